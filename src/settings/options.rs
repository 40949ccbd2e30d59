//! The memory and navigation options a user sets (`--depth`, `--retrieval`, `--thesis`,
//! `--no-go-to`, ... or their config keys), which memory designs read each one, and the check that none is given
//! where it changes nothing: `--retrieval astar` with `--memory no-memory` is an error,
//! not a run that quietly plays without it, and a bench whose rows read an option only in
//! part says which rows ignore it.

use std::fmt;

use crate::error::UserError;
use crate::memory::{MemoryDesign, MemorySettings, Strategy, VertexKind};
use crate::rows::{Variant, VariantOption};

/// One memory option of `play`, `bench` and `qa`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryOption {
    /// `--cutoff`: the semantic search's similarity cut-off.
    Cutoff,
    /// `--depth`: the semantic search's depth d (Algorithm 2).
    Depth,
    /// `--width`: the semantic search's width w (Algorithm 2).
    Width,
    /// `--episodic-k`: episodic vertices retrieved, k (Eq. 1), and Simulacra's k.
    EpisodicK,
    /// `--outdated-scope`: the triplets the outdated-edge check considers.
    OutdatedScope,
    /// `--hop-scope`: the edges a BFS hop ranks.
    HopScope,
    /// `--retrieval`: the semantic-search strategy.
    Retrieval,
    /// `--retire`: what a retired fact becomes.
    Retire,
    /// `--gating`: AriadneMem's entropy-aware gating of extraction.
    Gating,
    /// `--bridge`: AriadneMem's bridge discovery and path mining.
    Bridge,
    /// `--thesis`: PersonalAI's thesis vertices, written by extraction.
    Thesis,
    /// `--exclude`: PersonalAI's traversal constraints.
    Exclude,
    /// `--no-exploration` (config `exploration = false`): unexplored exits not shown.
    Exploration,
    /// `--no-go-to` (config `go_to = false`): no `go to <room>` routes.
    GoTo,
    /// `--trials`: Reflexion's trials of the same game.
    Trials,
}

use MemoryOption::*;

/// What AriGraph reads in `ariadne qa`: k is fixed ([`crate::qa::QA_EPISODES`]) and
/// there is no navigation. The check's scope and what a retired fact becomes are read
/// too, but act only with `ariadne qa --outdated-check` ([`Row::outdated_check`]).
pub fn qa_arigraph_reads(o: MemoryOption) -> bool {
    !matches!(o, EpisodicK | Exploration | GoTo | Trials)
}

impl MemoryOption {
    /// Every option, in the order of `--help`.
    pub const ALL: [MemoryOption; 15] = [
        Cutoff,
        Depth,
        Width,
        EpisodicK,
        OutdatedScope,
        HopScope,
        Retrieval,
        Retire,
        Gating,
        Bridge,
        Thesis,
        Exclude,
        Exploration,
        GoTo,
        Trials,
    ];

    /// The flag (`--hop-scope`).
    pub fn flag(self) -> &'static str {
        match self {
            Cutoff => "--cutoff",
            Depth => "--depth",
            Width => "--width",
            EpisodicK => "--episodic-k",
            OutdatedScope => "--outdated-scope",
            HopScope => "--hop-scope",
            Retrieval => "--retrieval",
            Retire => "--retire",
            Gating => "--gating",
            Bridge => "--bridge",
            Thesis => "--thesis",
            Exclude => "--exclude",
            Exploration => "--no-exploration",
            GoTo => "--no-go-to",
            Trials => "--trials",
        }
    }

    /// The config file's key (`hop_scope`): the flag's name in snake case, without the
    /// `no` of a switch that turns something off (`--no-go-to` is `go_to = false`).
    pub fn key(self) -> String {
        let name = self.flag().trim_start_matches('-');
        name.strip_prefix("no-").unwrap_or(name).replace('-', "_")
    }

    /// What the option sets, and in which designs (for the error on an option no row
    /// reads).
    fn applies_to(self) -> &'static str {
        match self {
            Cutoff | Depth | Width | HopScope | Retrieval | Bridge | Exclude => {
                "AriGraph's semantic search (arigraph, arigraph-no-episodic, oracle)"
            }
            EpisodicK => {
                "the episodic search's k in games (arigraph, oracle); RAG, Reflexion and Simulacra retrieve the reference's 5, and qa the reference's 2"
            }
            Gating | Thesis => "AriGraph's triplet extraction (arigraph, arigraph-no-episodic)",
            OutdatedScope => "AriGraph's outdated check (arigraph, arigraph-no-episodic)",
            Retire => {
                "the facts the outdated check and navigation retire (arigraph, arigraph-no-episodic, oracle)"
            }
            Trials => "Reflexion's trials of the same game (reflexion)",
            Exploration | GoTo => {
                "navigation over the knowledge graph (unexplored exits and `go to` routes; arigraph, arigraph-no-episodic, oracle)"
            }
        }
    }
}

impl MemoryDesign {
    /// Whether the design reads the option; the others change nothing in its episodes.
    /// Only Reflexion plays trials. AriGraph reads every other option, without episodic
    /// search all but k; the oracle's semantic layer is the game's truth, so nothing of
    /// LLM extraction (the outdated check, gating, theses); RAG, Reflexion and Simulacra
    /// retrieve the reference's fixed k ([`crate::memory::RAG_ENTRIES`], `pipeline_smartrag.py`'s
    /// `n_retrieve`), so not even `--episodic-k`.
    pub fn reads(self, o: MemoryOption) -> bool {
        if o == Trials {
            return self.has_trials();
        }
        match self {
            MemoryDesign::Arigraph => true,
            MemoryDesign::ArigraphNoEpisodic => o != EpisodicK,
            MemoryDesign::Oracle => !matches!(o, OutdatedScope | Gating | Thesis),
            MemoryDesign::FullHistory
            | MemoryDesign::Simulacra
            | MemoryDesign::NoMemory
            | MemoryDesign::Summary
            | MemoryDesign::Rag
            | MemoryDesign::Reflexion => false,
        }
    }
}

/// A memory option the user gave, and where: a flag or a config key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Given {
    /// The option.
    pub option: MemoryOption,
    /// Given as a flag (else as a config key; the flag wins when both are).
    pub by_flag: bool,
}

impl fmt::Display for Given {
    /// `--retrieval`, or `the config key retrieval`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.by_flag {
            f.write_str(self.option.flag())
        } else {
            write!(f, "the config key {}", self.option.key())
        }
    }
}

/// A row of a run as the check sees it: `play` has one, `bench` and `qa` one per memory
/// asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The row's name (`arigraph`, `rag`, `arigraph+thesis`).
    pub name: String,
    /// The options its design reads ([`MemoryDesign::reads`]).
    pub reads: Vec<MemoryOption>,
    /// What the row sets itself (the bench rows `arigraph+beam`, `arigraph+thesis`).
    pub sets: VariantOption,
    /// Its memory holds episodic vertices (what `--exclude episodic` leaves out).
    pub episodic: bool,
    /// It shows unexplored exits (not the bench row `arigraph-no-exploration`).
    pub exploration: bool,
    /// It runs the outdated check, so a fact can be retired (not `ariadne qa`'s AriGraph
    /// without `--outdated-check`, as the reference's QA path).
    pub outdated_check: bool,
}

/// Why a row ignores an option it was given ([`Row::ignores`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ignored {
    /// The row's design does not read it.
    Design,
    /// The row sets the option itself (`arigraph+beam` is `--retrieval beam`).
    SetByRow(VariantOption),
    /// Only Algorithm 2's BFS reads it (`--hop-scope`; `--cutoff` also the `--thesis`
    /// walk), and the row searches with another strategy.
    NotBfs(Strategy),
    /// `--thesis --exclude object`: the row has no semantic search.
    NoSemanticSearch,
    /// `--exclude episodic`: the row retrieves no episode.
    NoEpisodes,
    /// `--exclude` leaves out no kind of vertex the row has.
    NothingExcluded,
    /// The row plays without exploration itself (`arigraph-no-exploration`).
    WithoutExploration,
    /// `ariadne qa` without `--outdated-check`: no outdated check, no fact retired.
    NoOutdatedCheck,
}

impl Ignored {
    /// Why, for `option`: "only the BFS search reads it (this row: --retrieval beam)".
    fn reason(self, option: MemoryOption) -> String {
        match self {
            Ignored::Design => format!("it sets {}", option.applies_to()),
            Ignored::SetByRow(v) => format!("the row sets{} itself", v.flag()),
            Ignored::NotBfs(s) if option == Cutoff => format!(
                "only the BFS search (--retrieval bfs) and the --thesis walk read it, and the row searches with --retrieval {s}{}",
                if s == Strategy::WaterCircles {
                    " (which ranks theses itself)"
                } else {
                    " with no --thesis walk to take triplets"
                }
            ),
            Ignored::NotBfs(s) => format!(
                "only the BFS search (--retrieval bfs) reads it, and the row searches with --retrieval {s}"
            ),
            Ignored::NoSemanticSearch => {
                "--thesis with --exclude object has no semantic search (the walk starts at the matched vertices and goes through hyper-edges only, taking no triplet; only --retrieval water-circles still ranks theses and episodes)".to_string()
            }
            Ignored::NoEpisodes => "--exclude episodic retrieves no episode".to_string(),
            Ignored::NothingExcluded => {
                "it leaves out no kind of vertex the row's memory has".to_string()
            }
            Ignored::WithoutExploration => "the row plays without exploration itself".to_string(),
            Ignored::NoOutdatedCheck => {
                "ariadne qa runs no outdated check, so retires no fact, without --outdated-check (the reference's QA path has none)".to_string()
            }
        }
    }
}

impl Row {
    /// A row named `name` reading the options `reads` says it does, setting nothing
    /// itself, with episodic vertices.
    pub fn reading(name: String, reads: impl Fn(MemoryOption) -> bool) -> Self {
        Row {
            name,
            reads: MemoryOption::ALL
                .into_iter()
                .filter(|&o| reads(o))
                .collect(),
            sets: VariantOption::None,
            episodic: true,
            exploration: true,
            outdated_check: true,
        }
    }

    /// The row of a design played with the run's settings as they are.
    pub fn of(design: MemoryDesign) -> Self {
        Row {
            episodic: design != MemoryDesign::ArigraphNoEpisodic,
            ..Row::reading(design.name().to_string(), |o| design.reads(o))
        }
    }

    /// The row turns thesis vertices on itself (`arigraph+thesis`).
    pub fn thesis(&self) -> bool {
        self.sets == VariantOption::Thesis
    }

    /// Whether, and why, the row ignores `o` when the run's settings are `m` (before
    /// the row's own option is applied): its design does not read it, the row sets it
    /// itself, or the settings leave it nothing to act on.
    pub fn ignores(&self, o: MemoryOption, m: &MemorySettings) -> Option<Ignored> {
        if !self.reads.contains(&o) {
            return Some(Ignored::Design);
        }
        if self.sets.option() == Some(o) {
            return Some(Ignored::SetByRow(self.sets));
        }
        if o == Exploration && !self.exploration {
            return Some(Ignored::WithoutExploration);
        }
        if matches!(o, OutdatedScope | Retire) && !self.outdated_check {
            return Some(Ignored::NoOutdatedCheck);
        }
        let mut s = m.clone();
        self.sets.apply(&mut s);
        let semantic = !(s.thesis && s.excludes(VertexKind::Object));
        let bfs = s.retrieval == Strategy::Bfs;
        let circles = s.retrieval == Strategy::WaterCircles;
        // The hyper-edge walk (`--thesis`, any strategy but WaterCircles, which ranks
        // theses itself) takes triplets ranked by the cut-off only where object vertices
        // are allowed and a thesis or an episode leads somewhere.
        let walk_triplets = s.thesis
            && !circles
            && semantic
            && !(s.excludes(VertexKind::Thesis) && s.excludes(VertexKind::Episodic));
        match o {
            // Without semantic search, only WaterCircles still ranks theses and episodes.
            Retrieval if !semantic && !circles => Some(Ignored::NoSemanticSearch),
            HopScope | Bridge | Width if !semantic => Some(Ignored::NoSemanticSearch),
            Cutoff if !semantic => Some(Ignored::NoSemanticSearch),
            HopScope if !bfs => Some(Ignored::NotBfs(s.retrieval)),
            Cutoff if !(bfs || walk_triplets) => Some(Ignored::NotBfs(s.retrieval)),
            EpisodicK if s.excludes(VertexKind::Episodic) => Some(Ignored::NoEpisodes),
            Exclude
                if s.exclude
                    .iter()
                    .all(|&k| k == VertexKind::Episodic && !self.episodic) =>
            {
                Some(Ignored::NothingExcluded)
            }
            _ => None,
        }
    }
}

impl VariantOption {
    /// The memory option the row sets itself, if any.
    pub fn option(self) -> Option<MemoryOption> {
        match self {
            VariantOption::None => None,
            VariantOption::Retrieval(_) => Some(Retrieval),
            VariantOption::Temporal => Some(Retire),
            VariantOption::Gating => Some(Gating),
            VariantOption::Bridge => Some(Bridge),
            VariantOption::Thesis => Some(Thesis),
            VariantOption::LevelObs => None,
        }
    }
}

impl Variant {
    /// The bench row as the option check sees it.
    pub fn reading(self) -> Row {
        Row {
            name: self.name(),
            sets: self.option,
            exploration: self.exploration,
            ..Row::of(self.design)
        }
    }
}

/// Check the options given against the rows of a run whose settings are `m`.
///
/// Returns a note for each option some rows read and others ignore ("--retrieval is
/// ignored by the rows rag, summary"; with the reason when it is not the design's:
/// "--retrieval is ignored by the row arigraph+beam: the row sets --retrieval beam
/// itself").
///
/// No rows (a resumed bench, which plays its own plan): nothing to check.
///
/// A config key that no row reads is a note too ("the config key depth is ignored by
/// the row summary"): the file serves every run, and this one has no use for it.
///
/// # Errors
/// A flag that no row reads, naming it, the rows, and why each ignores it.
pub fn check(given: &[Given], rows: &[Row], m: &MemorySettings) -> Result<Vec<String>, UserError> {
    let mut notes = Vec::new();
    if rows.is_empty() {
        return Ok(notes);
    }
    for g in given {
        // The rows ignoring the option, grouped by why, in the order of first mention.
        let mut groups: Vec<(Ignored, Vec<&str>)> = Vec::new();
        for r in rows {
            if let Some(why) = r.ignores(g.option, m) {
                match groups.iter_mut().find(|(w, _)| *w == why) {
                    Some((_, names)) => names.push(&r.name),
                    None => groups.push((why, vec![&r.name])),
                }
            }
        }
        let ignoring: usize = groups.iter().map(|(_, names)| names.len()).sum();
        if ignoring == 0 {
            continue;
        }
        // A config file serves many runs: a key this run does not read is a note; a flag
        // given for this run is an error.
        if ignoring == rows.len() && g.by_flag {
            let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
            let reasons: Vec<String> = match groups.as_slice() {
                [(why, _)] => vec![why.reason(g.option)],
                _ => groups
                    .iter()
                    .map(|(why, names)| format!("{}: {}", names.join(", "), why.reason(g.option)))
                    .collect(),
            };
            return Err(UserError::new(format!(
                "{g} changes nothing for --memory {}: {}",
                names.join(","),
                reasons.join("; ")
            )));
        }
        for (why, names) in groups {
            let reason = match why {
                Ignored::Design => String::new(),
                _ => format!(": {}", why.reason(g.option)),
            };
            notes.push(format!(
                "{g} is ignored by the row{} {}{reason}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
    }
    Ok(notes)
}

impl crate::qa::QaMemory {
    /// The memory as the option check sees it ([`check`]): the
    /// AriGraph memory reads the retrieval and extraction options
    /// ([`qa_arigraph_reads`]), the check's scope and `--retire`
    /// acting only with `outdated_check`; RAG, BM25 and the full context read none
    /// (their [`crate::qa::TOP_PARAGRAPHS`] paragraphs are fixed).
    pub fn reading(self, outdated_check: bool) -> Row {
        let arigraph = self == crate::qa::QaMemory::Arigraph;
        Row {
            outdated_check,
            ..Row::reading(self.name().to_string(), |o| {
                arigraph && qa_arigraph_reads(o)
            })
        }
    }
}

#[cfg(test)]
mod tests;
