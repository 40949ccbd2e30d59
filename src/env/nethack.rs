//! NetHack (paper sections 4.2 and 5.2) through the NetHack Learning Environment (NLE
//! 1.3.0, NetHack 3.6.6), played by `python/nethack_bridge.py` through
//! [`super::BridgeEnv`].
//!
//! A game is named `nethack[?seed=S&character=C&obs=room|level]`: the seed (default 1)
//! fixes the dungeon and every roll (NLE's core and display seeds, no reseeding, the moon
//! phase fixed); `character` is NetHack's role option (default `@`, a role drawn from the
//! seed; for example `val-hum-neu-fem`); `obs` picks the observation: `room` (the paper's
//! "Room obs": the current room or corridor) or `level` (its "Level obs", every room and
//! corridor seen on the level, the memory oracle NetPlay's agent is given). The bridge
//! writes NetPlay's kind of text and carries out NetPlay's kind of skills (`explore
//! level`, `go to level 1 room 2`, `fight newt at (3, 4)`, ...): the admissible commands
//! are the skills that apply now, and the game's own travel replaces Ariadne's `go to`
//! routes ([`super::GameState::skills`]). Each state carries the seen level's ground
//! truth ([`super::GameState::facts`], led by `["decides", "location"]`): where the hero,
//! the features, exits, objects and monsters are, and what the hero carries.

use serde::{Deserialize, Serialize};

use super::EnvError;

/// The name of NetHack games on the command line (`nethack`, `nethack?seed=3`).
pub const PREFIX: &str = "nethack";

/// What the observation describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ObsMode {
    /// The current room or corridor ("Room obs", Ariadne's setting in the paper).
    #[default]
    Room,
    /// Every room and corridor seen on the level ("Level obs", NetPlay's oracle).
    Level,
}

impl ObsMode {
    fn as_str(self) -> &'static str {
        match self {
            ObsMode::Room => "room",
            ObsMode::Level => "level",
        }
    }
}

/// A NetHack game: seed, character and observation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetHackGame {
    /// NLE's core and display seed.
    pub seed: u64,
    /// NetHack's role option (`@` for one drawn from the seed).
    pub character: String,
    /// Room or level observations.
    pub obs: ObsMode,
}

/// NetHack's roles, races, alignments and genders, by their first three letters (NLE's
/// `character` option is `role-race-alignment-gender`; NetHack itself would silently
/// draw a random one for a word it does not know).
pub const ROLES: &[&str] = &[
    "arc", "bar", "cav", "hea", "kni", "mon", "pri", "ran", "rog", "sam", "tou", "val", "wiz",
];
/// See [`ROLES`].
pub const RACES: &[&str] = &["hum", "elf", "dwa", "gno", "orc"];
/// See [`ROLES`].
pub const ALIGNMENTS: &[&str] = &["law", "neu", "cha"];
/// See [`ROLES`].
pub const GENDERS: &[&str] = &["mal", "fem"];

/// Whether `v` is a character option NetHack reads as given: `@`, or up to four parts,
/// each `@` or a word whose first three letters name a role, race, alignment, gender.
fn is_character(v: &str) -> bool {
    let v = v.to_ascii_lowercase();
    let parts: Vec<&str> = v.split('-').collect();
    let lists = [ROLES, RACES, ALIGNMENTS, GENDERS];
    !v.is_empty()
        && parts.len() <= lists.len()
        && parts.iter().zip(lists).all(|(p, list)| {
            *p == "@"
                || (p.len() >= 3
                    && p.chars().all(|c| c.is_ascii_alphabetic())
                    && list.contains(&&p[..3]))
        })
}

impl NetHackGame {
    /// Whether `arg` names a NetHack game (`nethack` or `nethack?...`).
    pub fn is_spec(arg: &str) -> bool {
        arg == PREFIX || arg.starts_with("nethack?")
    }

    /// Parse `nethack[?key=value&...]`.
    ///
    /// # Errors
    /// [`EnvError::BadSpec`] naming the bad key or value, or a key given twice.
    pub fn parse(spec: &str) -> Result<Self, EnvError> {
        let query = spec
            .strip_prefix(PREFIX)
            .map(|r| r.strip_prefix('?').unwrap_or(r))
            .unwrap_or(spec);
        let bad = |what: String| EnvError::BadSpec(format!("{spec}: {what}"));
        let mut game = Self {
            seed: 1,
            character: "@".into(),
            obs: ObsMode::Room,
        };
        let mut seen: Vec<&str> = Vec::new();
        for pair in query.split('&').filter(|p| !p.trim().is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("parameter {pair:?} is not key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            if seen.contains(&k) {
                return Err(bad(format!("parameter {k:?} is given twice")));
            }
            seen.push(k);
            match k {
                "seed" => {
                    game.seed = v
                        .parse()
                        .map_err(|_| bad(format!("seed {v:?} is not a whole number")))?
                }
                "character" => {
                    if !is_character(v) {
                        return Err(bad(format!(
                            "character {v:?} is not role[-race[-alignment[-gender]]] of NetHack's (roles {}; races {}; alignments {}; genders {}; @ for any; for example val-hum-neu-fem)",
                            ROLES.join(" "),
                            RACES.join(" "),
                            ALIGNMENTS.join(" "),
                            GENDERS.join(" ")
                        )));
                    }
                    game.character = v.to_ascii_lowercase();
                }
                "obs" => {
                    game.obs = match v {
                        "room" => ObsMode::Room,
                        "level" => ObsMode::Level,
                        _ => return Err(bad(format!("obs {v:?} is not room or level"))),
                    }
                }
                other => {
                    return Err(bad(format!(
                        "unknown parameter {other:?} (known: seed, character, obs)"
                    )));
                }
            }
        }
        Ok(game)
    }

    /// A name for run directories: `nethack-s3-room`, `nethack-s3-level-val-hum-neu-fem`.
    pub fn short_name(&self) -> String {
        format!("nethack-s{}-{}", self.seed, self.observed_as())
    }

    /// The setting without the seed, what a bench's episodes over several seeds are
    /// grouped by (the paper's Table 1 rows): `nethack-room`,
    /// `nethack-level-val-hum-neu-fem`.
    pub fn setting_name(&self) -> String {
        format!("nethack-{}", self.observed_as())
    }

    /// The observation, then the character when one is chosen: `room`,
    /// `level-val-hum-neu-fem`.
    fn observed_as(&self) -> String {
        match self.character.as_str() {
            "@" => self.obs.as_str().to_string(),
            c => format!("{}-{c}", self.obs.as_str()),
        }
    }
}

impl std::fmt::Display for NetHackGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{PREFIX}?seed={}&character={}&obs={}",
            self.seed,
            self.character,
            self.obs.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_with_defaults_and_round_trip() {
        let g = NetHackGame::parse("nethack").unwrap();
        assert_eq!(
            (g.seed, g.character.as_str(), g.obs),
            (1, "@", ObsMode::Room)
        );
        assert_eq!(g.to_string(), "nethack?seed=1&character=@&obs=room");
        let h = NetHackGame::parse("nethack?obs=level&seed=7&character=val-hum-neu-fem").unwrap();
        assert_eq!(h.short_name(), "nethack-s7-level-val-hum-neu-fem");
        assert_eq!(NetHackGame::parse(&h.to_string()).unwrap(), h);
        for bad in [
            "nethack?seed=x",
            "nethack?obs=map",
            "nethack?colour=red",
            "nethack?seed",
            "nethack?character=a;b",
            "nethack?character=xyz",
            "nethack?character=val-hum-neu-fem-x",
            "nethack?obs=level&obs=room",
        ] {
            let e = NetHackGame::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
            assert!(e.starts_with("bad game specification"), "{e}");
        }
        assert!(
            NetHackGame::parse("nethack?seed=1&seed=1")
                .unwrap_err()
                .to_string()
                .contains("parameter \"seed\" is given twice")
        );
        for ok in ["@", "val", "Valkyrie-human", "sam-hum-law-mal", "tou-@-neu"] {
            assert!(is_character(ok), "{ok}");
        }
        assert!(NetHackGame::is_spec("nethack?seed=2"));
        assert!(!NetHackGame::is_spec("nethackish"));
    }
}
