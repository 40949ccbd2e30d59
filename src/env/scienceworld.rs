//! ScienceWorld (Wang et al. 2022; PyPI `scienceworld`, which bundles its Java server):
//! elementary-science tasks in a simulated house, played by
//! `python/scienceworld_bridge.py` through [`super::BridgeEnv`].
//!
//! A task is named `scienceworld:<task>[?variation=N&simplification=S]`: `variation`
//! (default 0; each task has its own count, the bridge checks it), `simplification`
//! (ScienceWorld's simplification string; default `easy`, `none` for none). The task
//! description is the goal, the score is ScienceWorld's 0 to 100, the walkthrough its gold
//! action sequence (checked to win by the bridge).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::EnvError;

/// The prefix that names a ScienceWorld task on the command line.
pub const PREFIX: &str = "scienceworld:";

/// ScienceWorld 1.2.3's 30 tasks (`ScienceWorldEnv.get_task_names()`).
pub const TASKS: &[&str] = &[
    "boil",
    "change-the-state-of-matter-of",
    "chemistry-mix",
    "chemistry-mix-paint-secondary-color",
    "chemistry-mix-paint-tertiary-color",
    "find-animal",
    "find-living-thing",
    "find-non-living-thing",
    "find-plant",
    "freeze",
    "grow-fruit",
    "grow-plant",
    "identify-life-stages-1",
    "identify-life-stages-2",
    "inclined-plane-determine-angle",
    "inclined-plane-friction-named-surfaces",
    "inclined-plane-friction-unnamed-surfaces",
    "lifespan-longest-lived",
    "lifespan-longest-lived-then-shortest-lived",
    "lifespan-shortest-lived",
    "measure-melting-point-known-substance",
    "measure-melting-point-unknown-substance",
    "melt",
    "mendelian-genetics-known-plant",
    "mendelian-genetics-unknown-plant",
    "power-component",
    "power-component-renewable-vs-nonrenewable-energy",
    "test-conductivity",
    "test-conductivity-of-unknown-substances",
    "use-thermometer",
];

/// A ScienceWorld task and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SwGame {
    /// The task (`boil`, `find-living-thing`, ...).
    pub task: String,
    /// `variation` and `simplification`, when given.
    pub params: BTreeMap<String, String>,
}

impl SwGame {
    /// Parse `<task>[?key=value&...]` (the part after `scienceworld:`).
    ///
    /// # Errors
    /// [`EnvError::BadSpec`] for an empty task, an unknown or repeated parameter, a
    /// variation that is not a whole number.
    pub fn parse(spec: &str) -> Result<Self, EnvError> {
        let (task, query) = spec.split_once('?').unwrap_or((spec, ""));
        let task = task.trim().to_lowercase();
        let bad = |why: String| EnvError::BadSpec(format!("{PREFIX}{spec}: {why}"));
        if task.is_empty() {
            return Err(bad("it names no task".into()));
        }
        let mut params = BTreeMap::new();
        for pair in query.split('&').filter(|p| !p.trim().is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("parameter {pair:?} is not key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            match k {
                "variation" if v.parse::<u32>().is_err() => {
                    return Err(bad(format!("variation must be a whole number, not {v:?}")));
                }
                "variation" | "simplification" => {}
                _ => {
                    return Err(bad(format!(
                        "unknown parameter {k:?} (known: variation, simplification)"
                    )));
                }
            }
            if params.insert(k.to_string(), v.to_string()).is_some() {
                return Err(bad(format!("parameter {k:?} is given twice")));
            }
        }
        Ok(Self { task, params })
    }

    /// Check the task name before any process is started.
    ///
    /// # Errors
    /// [`EnvError::MissingGame`] listing the tasks.
    pub fn check(&self) -> Result<(), EnvError> {
        if TASKS.contains(&self.task.as_str()) {
            Ok(())
        } else {
            Err(EnvError::MissingGame(format!(
                "{PREFIX}{self}: unknown ScienceWorld task; known: {}",
                TASKS.join(", ")
            )))
        }
    }

    /// The task the bridge plays, whatever the spelling: variation 0 and simplification
    /// `easy` filled in where absent, the variation as a number.
    pub fn identity(&self) -> String {
        let mut params = self.params.clone();
        let variation = params
            .get("variation")
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0);
        params.insert("variation".into(), variation.to_string());
        params
            .entry("simplification".into())
            .or_insert_with(|| "easy".into());
        SwGame {
            task: self.task.clone(),
            params,
        }
        .to_string()
    }

    /// A name for run directories: `sw-boil-v3`.
    pub fn short_name(&self) -> String {
        let mut out = format!("sw-{}", self.task);
        for (k, v) in &self.params {
            match k.as_str() {
                "variation" => out.push_str(&format!("-v{v}")),
                _ => out.push_str(&format!("-{}", v.replace(',', "+"))),
            }
        }
        out
    }
}

impl std::fmt::Display for SwGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::twx::write_query(f, &self.task, &self.params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_parses_with_its_parameters() {
        let g = SwGame::parse("Boil?variation=03&simplification=easy").unwrap();
        assert_eq!(g.task, "boil");
        assert_eq!(g.to_string(), "boil?simplification=easy&variation=03");
        assert_eq!(
            g.identity(),
            SwGame::parse("boil?variation=3").unwrap().identity()
        );
        assert_eq!(g.short_name(), "sw-boil-easy-v03");
        assert!(g.check().is_ok());
        assert!(SwGame::parse("").is_err());
        assert!(SwGame::parse("boil?variation=x").is_err());
        assert!(SwGame::parse("boil?seed=1").is_err());
        assert!(SwGame::parse("boil?variation=1&variation=2").is_err());
        assert!(SwGame::parse("bake").unwrap().check().is_err());
    }
}
