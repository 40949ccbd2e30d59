//! The memory options a user sets (`--depth`, `--retrieval`, `--thesis`, ... or their
//! config keys), which memory designs read each one, and the check that none is given
//! where it changes nothing: `--retrieval astar` with `--memory no-memory` is an error,
//! not a run that quietly plays without it, and a bench whose rows read an option only in
//! part says which rows ignore it.

use std::fmt;

use super::MemoryDesign;
use crate::error::UserError;

/// One memory option of `play`, `bench` and `qa`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemoryOption {
    /// `--cutoff`: the semantic search's similarity cut-off.
    Cutoff,
    /// `--depth`: the semantic search's depth d (Algorithm 2).
    Depth,
    /// `--width`: the semantic search's width w (Algorithm 2).
    Width,
    /// `--episodes`: episodic vertices retrieved, k (Eq. 1), and Simulacra's k.
    Episodes,
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
}

use MemoryOption::*;

/// What AriGraph reads in `ariadne qa`: the reference's `update_without_retrieve` has
/// no outdated check (so nothing is retired) and k is fixed
/// ([`crate::qa::QA_EPISODES`]).
pub fn qa_arigraph_reads(o: MemoryOption) -> bool {
    !matches!(o, Episodes | OutdatedScope | Retire)
}

impl MemoryOption {
    /// Every option, in the order of `--help`.
    pub const ALL: [MemoryOption; 12] = [
        Cutoff,
        Depth,
        Width,
        Episodes,
        OutdatedScope,
        HopScope,
        Retrieval,
        Retire,
        Gating,
        Bridge,
        Thesis,
        Exclude,
    ];

    /// The flag (`--hop-scope`).
    pub fn flag(self) -> &'static str {
        match self {
            Cutoff => "--cutoff",
            Depth => "--depth",
            Width => "--width",
            Episodes => "--episodes",
            OutdatedScope => "--outdated-scope",
            HopScope => "--hop-scope",
            Retrieval => "--retrieval",
            Retire => "--retire",
            Gating => "--gating",
            Bridge => "--bridge",
            Thesis => "--thesis",
            Exclude => "--exclude",
        }
    }

    /// The config file's key (`hop_scope`): the flag's name in snake case.
    pub fn key(self) -> String {
        self.flag().trim_start_matches('-').replace('-', "_")
    }

    /// What the option sets, and in which designs (for the error on an option no row
    /// reads).
    fn applies_to(self) -> &'static str {
        match self {
            Cutoff | Depth | Width | HopScope | Retrieval | Bridge | Exclude => {
                "AriGraph's semantic search (arigraph, arigraph-no-episodic, oracle)"
            }
            Episodes => {
                "the episodic search's k in games (arigraph, oracle) and Simulacra's k; qa's is the reference's 2"
            }
            Gating | Thesis => "AriGraph's triplet extraction (arigraph, arigraph-no-episodic)",
            OutdatedScope => {
                "AriGraph's outdated check in games (arigraph, arigraph-no-episodic; qa has none, as the reference's)"
            }
            Retire => {
                "the facts the outdated check and navigation retire in games (arigraph, arigraph-no-episodic, oracle; qa has no outdated check)"
            }
        }
    }
}

impl MemoryDesign {
    /// Whether the design reads the option; the others change nothing in its episodes.
    /// AriGraph reads every one, without episodic search all but k; the oracle's
    /// semantic layer is the game's truth, so nothing of LLM extraction (the outdated
    /// check, gating, theses); RAG and Reflexion retrieve the reference's fixed k
    /// ([`super::RAG_ENTRIES`]), so not even `--episodes`.
    pub fn reads(self, o: MemoryOption) -> bool {
        match self {
            MemoryDesign::Arigraph => true,
            MemoryDesign::ArigraphNoEpisodic => o != Episodes,
            MemoryDesign::Oracle => !matches!(o, OutdatedScope | Gating | Thesis),
            MemoryDesign::Simulacra => o == Episodes,
            MemoryDesign::FullHistory
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
    /// The row turns thesis vertices on itself (the bench row `arigraph+thesis`).
    pub thesis: bool,
}

impl Row {
    /// A row named `name` reading the options `reads` says it does.
    pub fn reading(name: String, reads: impl Fn(MemoryOption) -> bool, thesis: bool) -> Self {
        Row {
            name,
            reads: MemoryOption::ALL
                .into_iter()
                .filter(|&o| reads(o))
                .collect(),
            thesis,
        }
    }

    /// The row of a design played with the run's settings as they are.
    pub fn of(design: MemoryDesign) -> Self {
        Row::reading(design.name().to_string(), |o| design.reads(o), false)
    }
}

impl super::Variant {
    /// The bench row as the option check sees it.
    pub fn reading(self) -> Row {
        let thesis = self.option == super::VariantOption::Thesis;
        Row::reading(self.name(), |o| self.design.reads(o), thesis)
    }
}

/// Check the options given against the rows of a run.
///
/// Returns a note for each option some rows read and others ignore ("--retrieval is
/// ignored by the rows rag, summary").
///
/// No rows (a resumed bench, which plays its own plan): nothing to check.
///
/// # Errors
/// An option that no row reads, naming it, the rows, and what it would apply to.
pub fn check(given: &[Given], rows: &[Row]) -> Result<Vec<String>, UserError> {
    let mut notes = Vec::new();
    if rows.is_empty() {
        return Ok(notes);
    }
    for g in given {
        let ignoring: Vec<&str> = rows
            .iter()
            .filter(|r| !r.reads.contains(&g.option))
            .map(|r| r.name.as_str())
            .collect();
        if ignoring.is_empty() {
            continue;
        }
        if ignoring.len() == rows.len() {
            return Err(UserError::new(format!(
                "{g} changes nothing for --memory {}: it sets {}",
                ignoring.join(","),
                g.option.applies_to()
            )));
        }
        notes.push(format!(
            "{g} is ignored by the row{} {}",
            if ignoring.len() == 1 { "" } else { "s" },
            ignoring.join(", ")
        ));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(designs: &[MemoryDesign]) -> Vec<Row> {
        designs.iter().map(|&d| Row::of(d)).collect()
    }

    fn flag(option: MemoryOption) -> Given {
        Given {
            option,
            by_flag: true,
        }
    }

    #[test]
    fn an_option_no_row_reads_is_an_error_naming_it_and_the_rows() {
        let e = check(&[flag(Retrieval)], &rows(&[MemoryDesign::NoMemory])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--retrieval changes nothing for --memory no-memory: it sets AriGraph's semantic search (arigraph, arigraph-no-episodic, oracle)"
        );
        let by_key = Given {
            option: Gating,
            by_flag: false,
        };
        let e = check(&[by_key], &rows(&[MemoryDesign::Oracle, MemoryDesign::Rag])).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the config key gating changes nothing for --memory oracle,rag:"),
            "{e}"
        );
        // RAG's k is the reference's, fixed: --episodes means nothing to it.
        assert!(check(&[flag(Episodes)], &rows(&[MemoryDesign::Rag])).is_err());
        assert!(
            check(
                &[flag(Episodes)],
                &rows(&[MemoryDesign::ArigraphNoEpisodic])
            )
            .is_err()
        );
    }

    #[test]
    fn rows_that_ignore_an_option_others_read_get_one_note() {
        let notes = check(
            &[flag(Depth), flag(Episodes)],
            &rows(&[
                MemoryDesign::Arigraph,
                MemoryDesign::Simulacra,
                MemoryDesign::Summary,
            ]),
        )
        .unwrap();
        assert_eq!(
            notes,
            [
                "--depth is ignored by the rows simulacra, summary",
                "--episodes is ignored by the row summary"
            ]
        );
    }

    #[test]
    fn config_keys_are_the_flags_in_snake_case() {
        assert_eq!(OutdatedScope.key(), "outdated_scope");
        assert_eq!(HopScope.key(), "hop_scope");
        assert_eq!(Exclude.key(), "exclude");
    }

    #[test]
    fn every_option_is_read_by_arigraph_and_nothing_by_the_history_designs() {
        let none = rows(&[MemoryDesign::Arigraph]);
        let given: Vec<Given> = MemoryOption::ALL.iter().map(|&o| flag(o)).collect();
        assert_eq!(check(&given, &none).unwrap(), Vec::<String>::new());
        for d in [
            MemoryDesign::FullHistory,
            MemoryDesign::NoMemory,
            MemoryDesign::Summary,
            MemoryDesign::Rag,
            MemoryDesign::Reflexion,
        ] {
            for &o in &MemoryOption::ALL {
                assert!(check(&[flag(o)], &rows(&[d])).is_err(), "{d:?} {o:?}");
            }
        }
        // The oracle writes no triplet by LLM: extraction's options mean nothing to it.
        for o in [OutdatedScope, Gating, Thesis] {
            assert!(check(&[flag(o)], &rows(&[MemoryDesign::Oracle])).is_err());
        }
    }
}
