//! The semantic-search strategy a run uses (`--retrieval`): a setting's value, read by
//! the settings and the strategies alike (a leaf).

use serde::{Deserialize, Serialize};

/// The semantic-search strategy of AriGraph's retrieval (`--retrieval`; recorded as
/// `memory.retrieval` in every manifest; runs recorded before it existed used `bfs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// AriGraph's Algorithm 2: embedding-seeded BFS with depth d and width w.
    #[default]
    Bfs,
    /// PersonalAI's A*: triplets along shortest paths between matched vertices.
    Astar,
    /// PersonalAI's WaterCircles: rings from matched vertices, ranked by the matched
    /// vertices they touch.
    WaterCircles,
    /// PersonalAI's BeamSearch: the best-scored paths from each matched vertex.
    Beam,
    /// PersonalAI's mixed algorithm: the union of A*, WaterCircles and BeamSearch.
    Mixed,
    /// PersonalAI's hybrid WC + BS: WaterCircles' triplets, then BeamSearch's new ones
    /// (the paper's strongest family for large models).
    #[serde(rename = "water-circles+beam")]
    WaterCirclesBeam,
    /// PersonalAI's hybrid A* + BS: A*'s triplets, then BeamSearch's new ones.
    #[serde(rename = "astar+beam")]
    AstarBeam,
    /// PersonalAI's hybrid A* + WC: A*'s triplets, then WaterCircles' new ones.
    #[serde(rename = "astar+water-circles")]
    AstarWaterCircles,
}

impl Strategy {
    /// Every strategy, the default first.
    pub const ALL: [Strategy; 8] = [
        Strategy::Bfs,
        Strategy::Astar,
        Strategy::WaterCircles,
        Strategy::Beam,
        Strategy::Mixed,
        Strategy::WaterCirclesBeam,
        Strategy::AstarBeam,
        Strategy::AstarWaterCircles,
    ];

    /// The single strategies a union runs, in the order their triplets come (`None`
    /// for a single strategy).
    pub fn parts(self) -> Option<&'static [Strategy]> {
        match self {
            Strategy::Bfs | Strategy::Astar | Strategy::WaterCircles | Strategy::Beam => None,
            Strategy::Mixed => Some(&[Strategy::Astar, Strategy::WaterCircles, Strategy::Beam]),
            Strategy::WaterCirclesBeam => Some(&[Strategy::WaterCircles, Strategy::Beam]),
            Strategy::AstarBeam => Some(&[Strategy::Astar, Strategy::Beam]),
            Strategy::AstarWaterCircles => Some(&[Strategy::Astar, Strategy::WaterCircles]),
        }
    }

    /// The name on the command line, in config files and manifests.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Bfs => "bfs",
            Strategy::Astar => "astar",
            Strategy::WaterCircles => "water-circles",
            Strategy::Beam => "beam",
            Strategy::Mixed => "mixed",
            Strategy::WaterCirclesBeam => "water-circles+beam",
            Strategy::AstarBeam => "astar+beam",
            Strategy::AstarWaterCircles => "astar+water-circles",
        }
    }

    /// The name in tables (PersonalAI's spelling).
    pub fn label(self) -> &'static str {
        match self {
            Strategy::Bfs => "BFS",
            Strategy::Astar => "A*",
            Strategy::WaterCircles => "WaterCircles",
            Strategy::Beam => "BeamSearch",
            Strategy::Mixed => "Mixed",
            Strategy::WaterCirclesBeam => "WC + BS",
            Strategy::AstarBeam => "A* + BS",
            Strategy::AstarWaterCircles => "A* + WC",
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Strategy::ALL
            .into_iter()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown retrieval strategy {s:?}; use one of {}",
                    names.join(", ")
                )
            })
    }
}
