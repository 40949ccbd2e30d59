//! The sampling temperature of each call kind ([`Temperatures`]).

use serde::{Deserialize, Serialize, Serializer};

/// A temperature as the user wrote it: the shortest decimal that reads back as the same
/// `f32` (0.2, not the `f64` widening 0.20000000298023224), for request bodies and
/// manifests.
pub fn as_decimal(t: f32) -> f64 {
    t.to_string().parse().unwrap_or(f64::from(t))
}

/// Serialize an `f32` temperature as [`as_decimal`] writes it.
fn decimal<S: Serializer>(t: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(as_decimal(*t))
}

/// A sampling temperature per module, as the reference code sets them
/// (AIRI-Institute/AriGraph: `graphs/contriever_graph.py` extracts and checks outdated
/// facts at 0.001, `pipeline_arigraph.py` plans and acts at 0.2, `pipeline_summary.py`
/// summarizes at 0.6, `pipeline_smartrag.py` rates importance at 0.4; every other call
/// uses its client's default, 0.7). Used when no `--temperature` is given; the reference's
/// 0.001 is 0 here (greedy either way).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Temperatures {
    /// Triplet extraction (`extract_triplets`).
    #[serde(serialize_with = "decimal")]
    pub extraction: f32,
    /// The outdated-fact check (`outdated`).
    #[serde(serialize_with = "decimal")]
    pub outdated: f32,
    /// Planning (`plan`).
    #[serde(serialize_with = "decimal")]
    pub plan: f32,
    /// The ReAct decision (`action`).
    #[serde(serialize_with = "decimal")]
    pub action: f32,
    /// The summary baseline (`summary`).
    #[serde(serialize_with = "decimal")]
    pub summary: f32,
    /// Simulacra's importance rating (`importance`).
    #[serde(serialize_with = "decimal")]
    pub importance: f32,
    /// Whether the plan needs exploration (`explore`; the reference's `if_exp_prompt`).
    #[serde(default = "reference_explore")]
    #[serde(serialize_with = "decimal")]
    pub explore: f32,
    /// Every other call (reflections, lessons).
    #[serde(serialize_with = "decimal")]
    pub other: f32,
    /// The decision of an agent without exploration: the reference samples the
    /// baselines' action call at 1 (`pipeline_fullhist.py`, `pipeline_summary.py`,
    /// `pipeline_smartrag.py`: `t=1`) and AriGraph's when exploration is off
    /// (`pipeline_arigraph.py`: `t = 0.2 if need_exp else 1`). Runs recorded before
    /// this field sampled every decision at `action`.
    #[serde(default = "reference_action")]
    #[serde(serialize_with = "decimal")]
    pub sampled_action: f32,
}

impl Temperatures {
    /// The reference code's temperatures.
    pub const REFERENCE: Temperatures = Temperatures {
        extraction: 0.0,
        outdated: 0.0,
        plan: 0.2,
        action: 0.2,
        summary: 0.6,
        importance: 0.4,
        explore: 0.2,
        other: 0.7,
        sampled_action: 1.0,
    };

    /// These temperatures for an agent without exploration (see
    /// [`Temperatures::sampled_action`]): the decision is sampled at `sampled_action`.
    pub fn without_exploration(self) -> Self {
        Self {
            action: self.sampled_action,
            ..self
        }
    }

    /// The temperature of a call made for `purpose` (a [`crate::llm::ChatRequest::purpose`]).
    pub fn of(&self, purpose: &str) -> f32 {
        match purpose {
            "extract_triplets" => self.extraction,
            "outdated" | "qa_outdated" => self.outdated,
            "plan" => self.plan,
            "action" => self.action,
            "summary" => self.summary,
            "importance" => self.importance,
            "explore" => self.explore,
            _ => self.other,
        }
    }
}

fn reference_action() -> f32 {
    Temperatures::REFERENCE.action
}

fn reference_explore() -> f32 {
    Temperatures::REFERENCE.explore
}
