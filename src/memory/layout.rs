//! What a memory design puts in the reference's working memory: the layout of its
//! pipeline (`pipeline_arigraph.py`, `pipeline_fullhist.py`, `pipeline_summary.py`,
//! `pipeline_smartrag.py`) and the past entries it shows as item 2. Each design says
//! its own ([`super::MemoryModule::layout`], [`super::MemoryModule::past`]); the agent
//! renders them without naming a design.

/// How the reference's pipeline of a design lays out working memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `pipeline_arigraph.py`: the last steps, the retrieved triplets and episodes (or
    /// neither, for a design without a graph).
    Graph,
    /// `pipeline_fullhist.py`: every past step as item 2.
    FullHistory,
    /// `pipeline_summary.py`: the summary as item 4.
    Summary,
    /// `pipeline_smartrag.py`: the retrieved entries with the last steps as item 2.
    Ranked,
}

impl Layout {
    /// The name the prompt templates test (`layout == "full-history"`).
    pub fn name(self) -> &'static str {
        match self {
            Layout::Graph => "graph",
            Layout::FullHistory => "full-history",
            Layout::Summary => "summary",
            Layout::Ranked => "ranked",
        }
    }
}

/// One recent step as working memory shows it: the observation as the reference shows
/// it (`Game step #N`, the observation, its inventory) and the action taken.
#[derive(Debug, Clone, Copy)]
pub struct RecentStep<'a> {
    /// The observation as shown.
    pub seen: &'a str,
    /// The action taken.
    pub action: &'a str,
}
