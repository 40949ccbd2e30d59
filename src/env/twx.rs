//! TextWorld-Express games (Jansen and Côté 2022; PyPI `textworld-express`): fast
//! re-implementations of CookingWorld, Coin Collector, TextWorld Commonsense and a few
//! other families, played by `python/twx_bridge.py` through [`super::BridgeEnv`].
//!
//! A game is named `twx:<game>[?key=value&key=value...]`: `seed` (default 0), `split`
//! (`train`, `dev` or `test`; default `train`), and any generation parameter of the
//! family (for example `numLocations=3`), passed through to TextWorld-Express. The
//! bridge documents its defaults, its score scale and its gold path.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::EnvError;

/// The prefix that names a TextWorld-Express game on the command line.
pub const PREFIX: &str = "twx:";

/// Families this Ariadne knows to play (the bridge's names).
pub const GAMES: &[&str] = &[
    "cookingworld",
    "coin",
    "twc",
    "mapreader",
    "mapworld",
    "arithmetic",
    "sorting",
    "simonsays",
    "peckingorder",
];

/// The splits the bridge takes (`split`; TextWorld-Express's object and recipe sets).
pub const SPLITS: &[&str] = &["train", "dev", "test"];

/// A TextWorld-Express game: family and generation parameters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TwxGame {
    /// The family (`cookingworld`, `coin`, `twc`, ...).
    pub game: String,
    /// Parameters, sorted by key (`seed`, `split`, generation parameters).
    pub params: BTreeMap<String, String>,
}

impl TwxGame {
    /// Parse `<game>[?key=value&...]` (the part after `twx:`).
    ///
    /// # Errors
    /// [`EnvError::BadSpec`] for an empty name, a malformed parameter or one given twice.
    pub fn parse(spec: &str) -> Result<Self, EnvError> {
        let (game, query) = spec.split_once('?').unwrap_or((spec, ""));
        let game = game.trim().to_lowercase();
        if game.is_empty() {
            return Err(EnvError::BadSpec(format!(
                "{PREFIX}{spec}: it names no game; known: {}",
                GAMES.join(", ")
            )));
        }
        let mut params = BTreeMap::new();
        for pair in query.split('&').filter(|p| !p.trim().is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                EnvError::BadSpec(format!(
                    "{PREFIX}{spec}: parameter {pair:?} is not key=value"
                ))
            })?;
            let (k, v) = (k.trim(), v.trim());
            // What the bridge takes (`python/twx_bridge.py`): a split of three, every
            // other value a whole number.
            let bad = match k {
                "" => Some("a parameter has no name".to_string()),
                "split" if !SPLITS.contains(&v) => Some(format!(
                    "split must be one of {}, not {v:?}",
                    SPLITS.join("|")
                )),
                "split" => None,
                _ if v.parse::<u64>().is_err() => Some(format!(
                    "parameter {k} must be a whole number of 0 or more, not {v:?}"
                )),
                _ => None,
            };
            if let Some(why) = bad {
                return Err(EnvError::BadSpec(format!("{PREFIX}{spec}: {why}")));
            }
            if params.insert(k.to_string(), v.to_string()).is_some() {
                return Err(EnvError::BadSpec(format!(
                    "{PREFIX}{spec}: parameter {k:?} is given twice"
                )));
            }
        }
        Ok(Self { game, params })
    }

    /// Check the family name before any process is started.
    ///
    /// # Errors
    /// [`EnvError::MissingGame`] listing the known families.
    pub fn check(&self) -> Result<(), EnvError> {
        if GAMES.contains(&self.game.as_str()) {
            Ok(())
        } else {
            Err(EnvError::MissingGame(format!(
                "{PREFIX}{self}: unknown TextWorld-Express game; known: {}",
                GAMES.join(", ")
            )))
        }
    }

    /// The game the bridge plays, whatever the spelling: the family's alias resolved,
    /// `seed` 0 and `split` train filled in where absent (the bridge's defaults), numbers
    /// as numbers (`seed=01` is `seed=1`). Two specifications with the same identity play
    /// the same game.
    pub fn identity(&self) -> String {
        let mut params = self.params.clone();
        params.entry("seed".into()).or_insert_with(|| "0".into());
        params
            .entry("split".into())
            .or_insert_with(|| "train".into());
        for v in params.values_mut() {
            if let Ok(n) = v.parse::<i64>() {
                *v = n.to_string();
            }
        }
        let game = if self.game == "mapworld" {
            "mapreader"
        } else {
            self.game.as_str()
        };
        TwxGame {
            game: game.to_string(),
            params,
        }
        .to_string()
    }

    /// A name for run directories: `twx-coin-s3`, `twx-twc-s1-numLocations2`.
    pub fn short_name(&self) -> String {
        let mut out = format!("twx-{}", self.game);
        for (k, v) in &self.params {
            if k == "seed" {
                out.push_str(&format!("-s{v}"));
            } else {
                out.push_str(&format!("-{k}{v}"));
            }
        }
        out
    }
}

impl std::fmt::Display for TwxGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_query(f, &self.game, &self.params)
    }
}

/// `name?k1=v1&k2=v2` (the parameters in their sorted order; `name` alone without
/// any): how a game with parameters is written.
pub(super) fn write_query(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    params: &BTreeMap<String, String>,
) -> std::fmt::Result {
    write!(f, "{name}")?;
    for (i, (k, v)) in params.iter().enumerate() {
        write!(f, "{}{k}={v}", if i == 0 { '?' } else { '&' })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_parse_sorted() {
        let g = TwxGame::parse("CookingWorld?seed=2&numLocations=1").unwrap();
        assert_eq!(g.game, "cookingworld");
        assert_eq!(g.to_string(), "cookingworld?numLocations=1&seed=2");
        assert_eq!(g.short_name(), "twx-cookingworld-numLocations1-s2");
        assert!(g.check().is_ok());
        assert!(TwxGame::parse("coin?seed").is_err());
        assert!(TwxGame::parse("zork").unwrap().check().is_err());
        for (bad, why) in [
            (
                "coin?seed=x",
                "parameter seed must be a whole number of 0 or more, not \"x\"",
            ),
            (
                "coin?seed=-1",
                "parameter seed must be a whole number of 0 or more, not \"-1\"",
            ),
            ("coin?split=foo", "split must be one of train|dev|test"),
            ("coin?=1", "a parameter has no name"),
        ] {
            let e = TwxGame::parse(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("bad game specification") && e.contains(why),
                "{e}"
            );
        }
        let same = |a: &str, b: &str| {
            TwxGame::parse(a).unwrap().identity() == TwxGame::parse(b).unwrap().identity()
        };
        assert!(same("coin", "coin?seed=0&split=train"));
        assert!(same("coin?seed=1", "coin?seed=01"));
        assert!(same("mapworld", "mapreader"));
        assert!(!same("coin?seed=1", "coin?seed=2"));
        let twice = TwxGame::parse("coin?seed=1&seed=2")
            .unwrap_err()
            .to_string();
        assert!(
            twice.starts_with(
                "bad game specification twx:coin?seed=1&seed=2: parameter \"seed\" is given twice"
            ),
            "{twice}"
        );
    }
}
