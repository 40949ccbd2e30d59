//! Microsoft TextWorld games: a `.z8` file and its `.json` sidecar, played by
//! `python/textworld_bridge.py` (TextWorld 1.7 from PyPI) through [`super::BridgeEnv`].
//!
//! Facts the bridge handles: admissible commands need the sidecar (TextWorld silently
//! returns none without it, so a missing sidecar is an error); `env.step` returns the
//! cumulative score, so the reward is the score delta; after the end TextWorld keeps
//! answering, so the bridge tracks `done`; the room comes from the `-= Room =-` header.

use std::path::Path;

use super::EnvError;

/// Check that a game and its sidecar exist, before any process is started.
///
/// # Errors
/// [`EnvError::MissingGame`] or [`EnvError::MissingSidecar`].
pub fn check_game(game: &Path) -> Result<(), EnvError> {
    if game.is_dir() {
        return Err(EnvError::MissingGame(format!(
            "{} is a directory, not a .z8 game file",
            game.display()
        )));
    }
    if !game.is_file() {
        return Err(EnvError::MissingGame(game.display().to_string()));
    }
    if game.extension().is_none_or(|e| e != "z8") {
        return Err(EnvError::MissingGame(format!(
            "{} is not a .z8 game file",
            game.display()
        )));
    }
    let sidecar = game.with_extension("json");
    if !sidecar.is_file() {
        return Err(EnvError::MissingSidecar(format!(
            "the game's .json sidecar is missing: {} (TextWorld gives no score and no admissible commands without it; regenerate the game with tw-make; a human-written .z8 is played through Jericho as jericho:{})",
            sidecar.display(),
            game.display()
        )));
    }
    Ok(())
}
