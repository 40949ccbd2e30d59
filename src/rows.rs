//! The rows a bench plays: each memory design of the paper's Table 4, and each variant
//! the bench compares beside it (the paper's "w/o exploration" ablation, AriGraph with
//! one of PersonalAI's retrieval strategies or an option of AriadneMem's), with its name
//! on the command line, its label in Table 4, what the paper reports it costs (Table
//! 3), and the memory setting it applies. Adding a bench row that changes a memory
//! setting means one [`VariantOption`] arm (with its [`VariantOption::apply`]) and one
//! [`ROWS`] entry.

use serde::{Deserialize, Serialize};

use crate::error::UserError;
use crate::memory::{MemoryDesign, MemorySettings, Retire, Strategy};

/// A row of a bench table: a design, possibly with the exploration switch off or a
/// memory option set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The memory design.
    pub design: MemoryDesign,
    /// Unexplored exits shown.
    pub exploration: bool,
    /// A memory setting the row sets on top of the bench's (benches planned before
    /// options existed have none).
    #[serde(default)]
    pub option: VariantOption,
    /// The row's profile (`bench --profile`); `None` in benches planned before profiles,
    /// whose rows played the plan's settings as recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::profile::Profile>,
}

/// A named option of a bench row: a memory setting applied to the episode's
/// [`MemorySettings`] (the row's value wins over the flag or config key), or, for
/// [`VariantOption::LevelObs`], the observation the game gives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantOption {
    /// The bench's settings as they are.
    #[default]
    None,
    /// The semantic-search strategy (`--retrieval`; PersonalAI's traversals).
    Retrieval(Strategy),
    /// Retired facts are closed, not deleted (`--retire close`; AriadneMem).
    Temporal,
    /// Entropy-aware gating of repeated observations (`--gating`; AriadneMem).
    Gating,
    /// Bridge discovery between disconnected retrieved parts (`--bridge`; AriadneMem).
    Bridge,
    /// Thesis vertices (`--thesis`; PersonalAI, arXiv:2506.17001, section III).
    Thesis,
    /// NetHack's Level obs: every observation describes the whole explored level, the
    /// paper's "handcrafted memory oracle" of NetPlay [Level obs] (section 4.2). Not a
    /// memory setting: the row plays its NetHack games with `obs=level`
    /// (`ops::bench::plan::played`).
    LevelObs,
}

impl VariantOption {
    /// Set the option on an episode's memory settings.
    pub fn apply(self, settings: &mut MemorySettings) {
        match self {
            VariantOption::None => {}
            VariantOption::Retrieval(s) => settings.retrieval = s,
            VariantOption::Temporal => settings.retire = Retire::Close,
            VariantOption::Gating => settings.gating = true,
            VariantOption::Bridge => settings.bridge = true,
            VariantOption::Thesis => settings.thesis = true,
            VariantOption::LevelObs => {}
        }
    }

    /// How to get the same settings in `play` (for the error on a row name given as a
    /// design, and for the option check's reasons).
    pub(crate) fn flag(self) -> String {
        match self {
            VariantOption::None => String::new(),
            VariantOption::Retrieval(s) => format!(" --retrieval {s}"),
            VariantOption::Temporal => " --retire close".into(),
            VariantOption::Gating => " --gating".into(),
            VariantOption::Bridge => " --bridge".into(),
            VariantOption::Thesis => " --thesis".into(),
            VariantOption::LevelObs => " on a NetHack game with obs=level".into(),
        }
    }
}

/// One registry entry.
struct Row {
    name: &'static str,
    label: &'static str,
    variant: Variant,
    /// Prompt and completion tokens per step the paper reports (Table 3).
    paper_tokens: (u64, u64),
    /// Chat calls per step, about.
    calls_per_step: u64,
}

const fn v(design: MemoryDesign, exploration: bool) -> Variant {
    Variant {
        design,
        exploration,
        option: VariantOption::None,
        profile: None,
    }
}

/// AriGraph with a retrieval strategy.
const fn arigraph_with(s: Strategy) -> Variant {
    Variant {
        design: MemoryDesign::Arigraph,
        exploration: true,
        option: VariantOption::Retrieval(s),
        profile: None,
    }
}

/// AriGraph with one of AriadneMem's or PersonalAI's options.
const fn arigraph_plus(option: VariantOption) -> Variant {
    Variant {
        design: MemoryDesign::Arigraph,
        exploration: true,
        option,
        profile: None,
    }
}

/// The row of AriGraph with one of PersonalAI's retrieval strategies.
const fn retrieval_row(name: &'static str, label: &'static str, s: Strategy) -> Row {
    Row {
        name,
        label,
        variant: arigraph_with(s),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    }
}

/// Every row, in the order of the paper's Table 4.
const ROWS: &[Row] = &[
    Row {
        name: "full-history",
        label: "Full history",
        variant: v(MemoryDesign::FullHistory, true),
        paper_tokens: (14000, 350),
        calls_per_step: 2,
    },
    Row {
        name: "summary",
        label: "Summary",
        variant: v(MemoryDesign::Summary, true),
        paper_tokens: (3800, 350),
        calls_per_step: 3,
    },
    Row {
        name: "rag",
        label: "RAG",
        variant: v(MemoryDesign::Rag, true),
        paper_tokens: (4000, 350),
        calls_per_step: 2,
    },
    Row {
        name: "reflexion",
        label: "Reflexion",
        variant: v(MemoryDesign::Reflexion, true),
        paper_tokens: (5800, 350),
        calls_per_step: 2,
    },
    Row {
        name: "simulacra",
        label: "Simulacra",
        variant: v(MemoryDesign::Simulacra, true),
        paper_tokens: (7500, 400),
        calls_per_step: 3,
    },
    Row {
        name: "arigraph",
        label: "AriGraph",
        variant: v(MemoryDesign::Arigraph, true),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
    Row {
        name: "arigraph-no-exploration",
        label: "AriGraph w/o exploration",
        variant: v(MemoryDesign::Arigraph, false),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
    retrieval_row("arigraph+astar", "AriGraph + A*", Strategy::Astar),
    retrieval_row(
        "arigraph+water-circles",
        "AriGraph + WaterCircles",
        Strategy::WaterCircles,
    ),
    retrieval_row("arigraph+beam", "AriGraph + BeamSearch", Strategy::Beam),
    retrieval_row("arigraph+mixed", "AriGraph + Mixed", Strategy::Mixed),
    retrieval_row(
        "arigraph+water-circles+beam",
        "AriGraph + WC + BS",
        Strategy::WaterCirclesBeam,
    ),
    retrieval_row(
        "arigraph+astar+beam",
        "AriGraph + A* + BS",
        Strategy::AstarBeam,
    ),
    retrieval_row(
        "arigraph+astar+water-circles",
        "AriGraph + A* + WC",
        Strategy::AstarWaterCircles,
    ),
    Row {
        name: "arigraph+temporal",
        label: "AriGraph + temporal coarsening",
        variant: arigraph_plus(VariantOption::Temporal),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
    Row {
        name: "arigraph+gating",
        label: "AriGraph + gating",
        variant: arigraph_plus(VariantOption::Gating),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
    Row {
        name: "arigraph+bridge",
        label: "AriGraph + bridges",
        variant: arigraph_plus(VariantOption::Bridge),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
    Row {
        name: "arigraph+thesis",
        label: "AriGraph + theses",
        variant: arigraph_plus(VariantOption::Thesis),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
    Row {
        name: "oracle",
        label: "Oracle (true facts)",
        variant: v(MemoryDesign::Oracle, true),
        paper_tokens: (6000, 500),
        calls_per_step: 2,
    },
    Row {
        name: "no-memory",
        label: "No long-term memory",
        variant: v(MemoryDesign::NoMemory, true),
        // Not in Table 3: the observation and the recent history alone, about half of
        // RAG's prompt (for the bench's estimate only).
        paper_tokens: (2000, 350),
        calls_per_step: 2,
    },
    Row {
        name: "level-obs",
        label: "NetPlay (Level obs)",
        variant: Variant {
            design: MemoryDesign::NoMemory,
            exploration: true,
            option: VariantOption::LevelObs,
            profile: None,
        },
        // The explored level in every prompt: the paper's Table 3 has no figure.
        paper_tokens: (4000, 350),
        calls_per_step: 2,
    },
    Row {
        name: "arigraph-no-episodic",
        label: "AriGraph w/o episodic",
        variant: v(MemoryDesign::ArigraphNoEpisodic, true),
        paper_tokens: (6000, 500),
        calls_per_step: 4,
    },
];

impl Variant {
    fn row(self) -> &'static Row {
        let this = Variant {
            profile: None,
            ..self
        };
        ROWS.iter()
            .find(|r| r.variant == this)
            .or_else(|| ROWS.iter().find(|r| r.variant.design == self.design))
            .unwrap_or(&ROWS[0])
    }

    /// The name on the command line and in files.
    pub fn name(self) -> String {
        // The paper's profile (and a row planned before profiles) carries the design's
        // name alone; another profile is named after it ("arigraph@extended").
        let base = Variant {
            profile: None,
            ..self
        };
        match self.profile {
            Some(p) if p != crate::profile::Profile::Paper => format!("{}@{p}", base.design_name()),
            _ => base.design_name(),
        }
    }

    /// The row's name without its profile.
    fn design_name(self) -> String {
        match ROWS.iter().find(|r| r.variant == self) {
            Some(r) => r.name.to_string(),
            None => {
                let mut name = self.design.name().to_string();
                if !self.exploration {
                    name.push_str("-no-exploration");
                }
                if let VariantOption::Retrieval(s) = self.option {
                    name.push('+');
                    name.push_str(s.name());
                }
                name
            }
        }
    }

    /// The episode's memory settings: the bench's, with the row's option applied.
    pub fn memory_settings(self, bench: &MemorySettings) -> MemorySettings {
        let mut m = bench.clone();
        self.option.apply(&mut m);
        m
    }

    /// The row label of the paper's Table 4, and the profile when it is not the
    /// paper's ("AriGraph (extended)"), so the rows of a bench over profiles differ.
    pub fn label(self) -> String {
        match self.profile {
            Some(p) if p != crate::profile::Profile::Paper => {
                format!("{} ({p})", self.row().label)
            }
            _ => self.row().label.to_string(),
        }
    }

    /// Prompt and completion tokens per step the paper reports for the design (Table 3),
    /// used for the cost estimate.
    pub fn paper_tokens_per_step(self) -> (u64, u64) {
        self.row().paper_tokens
    }

    /// Chat calls per step, about (for AriGraph: extraction, outdated check, exploration
    /// check, key items, plan, action).
    pub fn calls_per_step(self) -> u64 {
        // A design with a graph also asks for the key items (the retrieval queries)
        // and, when exploring, whether the plan needs exploration.
        let agent = if self.design.has_graph() {
            1 + u64::from(self.exploration)
        } else {
            0
        };
        self.row().calls_per_step + agent
    }
}

/// The design `s` names for `play --memory`: a design's name, or, for a bench row that
/// is not a design alone, an error saying which flags give the same settings.
///
/// # Errors
/// An unknown name; a bench row's name.
pub fn design(s: &str) -> Result<MemoryDesign, UserError> {
    // An unknown name is told with the designs `play` takes, not every bench row.
    let Ok(row) = Variant::parse(s) else {
        return s.parse::<MemoryDesign>();
    };
    match row {
        Variant {
            design,
            exploration: true,
            option: VariantOption::None,
            ..
        } => Ok(design),
        v => Err(UserError::new(format!(
            "{s} is a bench row, not a memory design; use --memory {}{}{}",
            v.design.name(),
            if v.exploration {
                ""
            } else {
                " --no-exploration"
            },
            v.option.flag()
        ))),
    }
}

mod parse;
#[cfg(test)]
mod tests;
