//! World-model precision, recalls and wrong deletions, read where a run records them: a
//! step line's optional `world_model: {"precision", "recall", "stated_recall",
//! "wrong_deletions"}` (the graph's triplets checked against the game's ground truth,
//! [`crate::judge`]). Lines without the field, or with precision or recall
//! malformed, are skipped, so the page simply leaves the chart out; stated recall
//! (judge 2) and wrong deletions are shown where present.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

/// Precision and recall of the graph against the game's ground truth, where a run
/// records them (a step's optional `world_model` object).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WorldModel {
    /// Share of the graph's triplets that are true.
    pub precision: f64,
    /// Share of the true facts about named things that the graph holds.
    pub recall: f64,
    /// Share of the true facts the texts stated that the graph holds (judge 2).
    pub stated_recall: Option<f64>,
    /// True facts removed at the step.
    pub wrong_deletions: Option<u64>,
}

/// World-model scores by step from the raw lines of `steps.jsonl` (a step's optional
/// `world_model: {precision, recall}`); lines or fields that are not there are skipped.
pub fn world_model_scores(dir: &Path) -> HashMap<u32, WorldModel> {
    let text = std::fs::read_to_string(dir.join("steps.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            let step = u32::try_from(v.get("step")?.as_u64()?).ok()?;
            let wm = v.get("world_model")?;
            Some((
                step,
                WorldModel {
                    precision: wm.get("precision")?.as_f64()?,
                    recall: wm.get("recall")?.as_f64()?,
                    stated_recall: wm.get("stated_recall").and_then(|x| x.as_f64()),
                    wrong_deletions: wm.get("wrong_deletions").and_then(|x| x.as_u64()),
                },
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_where_recorded_and_skipped_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("steps.jsonl"),
            concat!(
                "{\"step\": 1}\n",
                "{\"step\": 2, \"world_model\": {\"precision\": 0.75, \"recall\": 0.5}}\n",
                "{\"step\": 3, \"world_model\": {\"precision\": \"high\"}}\n",
                "{\"step\": 5, \"world_model\": {\"precision\": 1, \"recall\": 0.5, \"stated_recall\": 0.25, \"wrong_deletions\": 2}}\n",
                "{\"step\": 4, \"world_mo",
            ),
        )
        .unwrap();
        let scores = world_model_scores(dir.path());
        assert_eq!(scores.len(), 2);
        assert_eq!(
            scores.get(&5),
            Some(&WorldModel {
                precision: 1.0,
                recall: 0.5,
                stated_recall: Some(0.25),
                wrong_deletions: Some(2),
            })
        );
        assert_eq!(
            scores.get(&2),
            Some(&WorldModel {
                precision: 0.75,
                recall: 0.5,
                stated_recall: None,
                wrong_deletions: None,
            })
        );
        assert!(world_model_scores(&dir.path().join("missing")).is_empty());
    }
}
