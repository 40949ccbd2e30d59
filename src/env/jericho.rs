//! Human-written interactive fiction: z-machine story files (`.z3`, `.z5`, `.z8`, ...)
//! played through Jericho 3.3.1 by `python/jericho_bridge.py`, through
//! [`super::BridgeEnv`].
//!
//! A `.z1`-`.z7` file is a Jericho game; a `.z8` file is TextWorld's unless named
//! `jericho:PATH` (TextWorld's `.z8` games need their `.json` sidecar, and a human-written
//! `.z8` has none). Facts the bridge handles: for the games Jericho supports, valid
//! actions, score, maximum score, victory and the walkthrough from Jericho's bindings;
//! for the others, free-text play (no admissible commands), the score from the status
//! line, and a `NAME.json` sidecar may give a walkthrough and an objective. The object
//! tree gives the ground truth of where things are (facts led by `["decides",
//! "location"]`, [`crate::judge`]).

use std::io::Read;
use std::path::Path;

use super::EnvError;

/// The prefix that names a `.z8` file as a Jericho game: `jericho:PATH`.
pub const PREFIX: &str = "jericho:";

/// The extensions of z-machine story files played through Jericho without a prefix.
pub const EXTENSIONS: &[&str] = &["z1", "z2", "z3", "z4", "z5", "z6", "z7"];

/// Whether `path` names a z-machine story file by its extension (`.z8` excluded: that
/// is TextWorld's unless prefixed).
pub fn is_story_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// Check that a story file exists and starts as a z-machine file (version byte 1-8,
/// a 64-byte header), before any process is started.
///
/// # Errors
/// [`EnvError::MissingGame`] or [`EnvError::BadGame`].
pub fn check_game(game: &Path) -> Result<(), EnvError> {
    if !game.is_file() {
        return Err(EnvError::MissingGame(if game.is_dir() {
            format!("{} is a directory, not a game file", game.display())
        } else {
            game.display().to_string()
        }));
    }
    let mut header = [0u8; 64];
    let read = std::fs::File::open(game).and_then(|mut f| f.read_exact(&mut header));
    let bad = |detail: String| EnvError::BadGame {
        game: game.display().to_string(),
        detail,
    };
    match read {
        Err(e) => Err(bad(format!(
            "not a z-machine story file (shorter than its 64-byte header: {e})"
        ))),
        Ok(()) if !(1..=8).contains(&header[0]) => Err(bad(format!(
            "not a z-machine story file (its first byte is {}, not a version from 1 to 8)",
            header[0]
        ))),
        Ok(()) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn story_files_are_checked_before_a_bridge_starts() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("notes.z5");
        std::fs::write(
            &fake,
            b"this is a text file, long enough to fill a header of sixty-four bytes",
        )
        .unwrap();
        let e = check_game(&fake).unwrap_err();
        assert!(e.to_string().contains("not a z-machine story file"), "{e}");
        let short = dir.path().join("short.z5");
        std::fs::write(&short, [5u8; 10]).unwrap();
        assert!(
            check_game(&short)
                .unwrap_err()
                .to_string()
                .contains("64-byte")
        );
        let mut ok = vec![5u8];
        ok.resize(64, 0);
        let good = dir.path().join("good.z5");
        std::fs::write(&good, ok).unwrap();
        assert!(check_game(&good).is_ok());
        assert!(matches!(
            check_game(&dir.path().join("none.z5")),
            Err(EnvError::MissingGame(_))
        ));
        assert!(is_story_file(Path::new("a/zork1.Z5")));
        assert!(!is_story_file(Path::new("simple.z8")));
    }
}
