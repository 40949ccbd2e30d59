//! A harness's game as the command line names it (`harness:NAME`).

use super::PREFIX;
use crate::env::EnvError;

/// A game played by a harness: only its name, for run directories and tables
/// (`harness:twx-cookingworld` plays as `harness-twx-cookingworld`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HarnessGame {
    /// What the harness calls the game: letters, digits, `.`, `_`, `-`.
    pub name: String,
}

impl HarnessGame {
    /// Read the part after `harness:`.
    ///
    /// # Errors
    /// [`EnvError::BadSpec`] for an empty name or one with other characters.
    pub fn parse(rest: &str) -> Result<Self, EnvError> {
        let ok = !rest.is_empty()
            && rest.len() <= 100
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !ok {
            return Err(EnvError::BadSpec(format!(
                "harness game name {rest:?}: use 1 to 100 letters, digits, '.', '_' or '-'"
            )));
        }
        Ok(Self { name: rest.into() })
    }

    /// The name of its run directories.
    pub fn short_name(&self) -> String {
        format!("harness-{}", self.name)
    }
}

impl std::fmt::Display for HarnessGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{PREFIX}{}", self.name)
    }
}
