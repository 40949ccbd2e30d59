//! The memory designs the paper compares (section 4.1, Table 4), as `--memory` names
//! them for `play`, and what each design is: whether it has the knowledge graph, calls
//! the chat model in its update, needs the game's true state, plays several trials. A
//! bench row (a design with a switch or option, its Table 4 label and cost) is
//! [`crate::rows`]'s; adding a design means one variant here, its row there and one arm
//! of [`crate::episode`]'s `build::memory`.

use serde::{Deserialize, Serialize};

use crate::error::UserError;

/// The memory designs the paper compares (section 4.1, Table 4), selected by `--memory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryDesign {
    /// AriGraph: semantic triplets + episodic vertices, two-step retrieval (section 2).
    Arigraph,
    /// AriGraph without episodic search (the paper's "w/o episodic" ablation).
    ArigraphNoEpisodic,
    /// Every past observation and action, unbounded ("Full history").
    FullHistory,
    /// Nothing beyond the observation and the recent history (the paper's NetPlay
    /// baselines on NetHack, section 5.2; not a row of Table 4).
    NoMemory,
    /// An LLM-maintained running summary plus the last few steps ("Summary").
    Summary,
    /// Top-k past observations by embedding similarity to observation + plan ("RAG").
    Rag,
    /// Generative Agents' memory stream: recency + importance + relevance, with
    /// reflections (Park et al. 2023; "Simulacra").
    Simulacra,
    /// An upper bound: the game's true state about what was observed as the semantic
    /// layer (needs ground truth; not in the paper).
    Oracle,
    /// RAG over several trials; after a failed one the LLM writes a lesson for the next
    /// (Shinn et al. 2023; the paper's "Reflexion", run as RAG with Reflexion).
    Reflexion,
}

impl MemoryDesign {
    /// Every design, in the order of the paper's Table 4.
    pub fn all() -> Vec<MemoryDesign> {
        vec![
            MemoryDesign::FullHistory,
            MemoryDesign::Summary,
            MemoryDesign::Rag,
            MemoryDesign::Reflexion,
            MemoryDesign::Simulacra,
            MemoryDesign::Arigraph,
            MemoryDesign::Oracle,
            MemoryDesign::NoMemory,
            MemoryDesign::ArigraphNoEpisodic,
        ]
    }

    /// The name used on the command line and in logs (its bench row's name).
    pub fn name(self) -> &'static str {
        match self {
            MemoryDesign::Arigraph => "arigraph",
            MemoryDesign::ArigraphNoEpisodic => "arigraph-no-episodic",
            MemoryDesign::FullHistory => "full-history",
            MemoryDesign::NoMemory => "no-memory",
            MemoryDesign::Summary => "summary",
            MemoryDesign::Rag => "rag",
            MemoryDesign::Simulacra => "simulacra",
            MemoryDesign::Oracle => "oracle",
            MemoryDesign::Reflexion => "reflexion",
        }
    }

    /// Whether the design has the knowledge graph that navigation and exploration use.
    pub fn has_graph(self) -> bool {
        matches!(
            self,
            MemoryDesign::Arigraph | MemoryDesign::ArigraphNoEpisodic | MemoryDesign::Oracle
        )
    }

    /// Whether updating the memory calls the chat model (triplet extraction, summaries,
    /// importance): a walkthrough-driven play needs the chat endpoint only then.
    pub fn chat_in_update(self) -> bool {
        !matches!(
            self,
            MemoryDesign::Oracle
                | MemoryDesign::Rag
                | MemoryDesign::FullHistory
                | MemoryDesign::NoMemory
                | MemoryDesign::Reflexion
        )
    }

    /// Whether the design needs the game's true state (TextWorld games only).
    pub fn needs_ground_truth(self) -> bool {
        self == MemoryDesign::Oracle
    }

    /// Whether the design plays several trials of a game (Reflexion).
    pub fn has_trials(self) -> bool {
        self == MemoryDesign::Reflexion
    }
}

impl std::str::FromStr for MemoryDesign {
    type Err = UserError;

    /// A design's name ([`MemoryDesign::name`]); a bench row's name is refused here and
    /// explained by [`crate::rows::design`].
    fn from_str(s: &str) -> Result<Self, UserError> {
        MemoryDesign::all()
            .into_iter()
            .find(|d| d.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = MemoryDesign::all().iter().map(|d| d.name()).collect();
                UserError::new(format!(
                    "unknown memory design {s:?}; known: {}",
                    names.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_design_parses_from_its_name() {
        for d in MemoryDesign::all() {
            assert_eq!(d.name().parse::<MemoryDesign>().unwrap(), d);
        }
        assert_eq!(MemoryDesign::all().len(), 9);
        assert!("memgpt".parse::<MemoryDesign>().is_err());
        assert!(!MemoryDesign::NoMemory.has_graph() && !MemoryDesign::NoMemory.chat_in_update());
    }
}
