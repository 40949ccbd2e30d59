//! End-to-end tests of `ariadne games`: one seed of each family is generated with the
//! real TextWorld (GameMaker / tw-cooking) and its walkthrough wins through the bridge;
//! regeneration is byte-identical; bad input is one clear line.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{bin, setup_bridge};
use serde_json::Value;

fn ariadne(work: &Path, args: &[&str]) -> Output {
    setup_bridge();
    Command::new(bin())
        .current_dir(work)
        .args(args)
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

#[test]
fn each_family_generates_a_game_its_walkthrough_wins() {
    let work = tempfile::tempdir().unwrap();
    for (family, rooms, max_score) in [
        ("treasure-hunt", 12, 5),
        ("cleaning", 9, 22),
        ("cooking", 9, 11),
    ] {
        let out = format!("g/{family}-basic-1.z8");
        let made = ok(&ariadne(
            work.path(),
            &["games", "make", family, "--seed", "1", "--out", &out],
        ));
        assert!(
            made.contains(&format!("{rooms} rooms, max score {max_score}")),
            "{made}"
        );
        let walked = ok(&ariadne(
            work.path(),
            &["play", "--walkthrough", &out, "--quiet"],
        ));
        assert!(
            walked.contains(&format!("score {max_score}/{max_score}, won")),
            "{walked}"
        );
    }
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(work.path().join("g/manifest.json")).unwrap(),
    )
    .unwrap();
    let entries = manifest.as_array().unwrap();
    assert_eq!(entries.len(), 3);
    let th = entries
        .iter()
        .find(|e| e["family"] == "treasure-hunt")
        .unwrap();
    assert_eq!(th["seed"], 1);
    assert!(th["task"].as_str().unwrap().contains("golden locker"));
    assert!(!th["walkthrough"].as_array().unwrap().is_empty());
    let listed = ok(&ariadne(work.path(), &["games", "list", "--dir", "g"]));
    assert!(
        listed.contains("cleaning-basic-1") && listed.contains("cleaning") && listed.contains("22"),
        "{listed}"
    );
    // Every family Ariadne plays, how to name a game of it, what it needs installed.
    for said in [
        "PATH.z8, with its PATH.json sidecar",
        "arigraph-paper:NAME[@DIR]",
        "hunt, hunt_hard, cook",
        "twx:<game>",
        "`ariadne setup --twx` and a Java runtime",
        "scienceworld:<task>",
        "find-non-living-thing",
        "`ariadne setup --scienceworld`",
        "jericho:PATH",
        "`ariadne setup --jericho`",
        "nethack[?seed=S&character=C&obs=room|level]",
        "`ariadne setup --nethack`",
        "ariadne agent --name NAME",
    ] {
        assert!(
            listed.contains(said),
            "games list does not say {said:?}:\n{listed}"
        );
    }
}

#[test]
fn the_same_family_and_seed_give_byte_identical_files() {
    let work = tempfile::tempdir().unwrap();
    ok(&ariadne(
        work.path(),
        &[
            "games",
            "make",
            "treasure-hunt",
            "--seed",
            "3",
            "--out",
            "a/th.z8",
        ],
    ));
    ok(&ariadne(
        work.path(),
        &[
            "games",
            "make",
            "treasure-hunt",
            "--seed",
            "3",
            "--out",
            "b/th.z8",
        ],
    ));
    ok(&ariadne(
        work.path(),
        &[
            "games",
            "make",
            "treasure-hunt",
            "--seed",
            "4",
            "--out",
            "c/th.z8",
        ],
    ));
    let read = |p: &str| std::fs::read(work.path().join(p)).unwrap();
    assert_eq!(read("a/th.z8"), read("b/th.z8"));
    assert_eq!(read("a/th.json"), read("b/th.json"));
    // The compile date Inform stamps as serial number is pinned, so any day gives the same file.
    assert_eq!(&read("a/th.z8")[0x12..0x18], b"000000");
    assert_ne!(read("a/th.z8"), read("c/th.z8"));
}

#[test]
fn bad_family_and_size_are_one_clear_line() {
    let work = tempfile::tempdir().unwrap();
    let o = ariadne(work.path(), &["games", "make", "zork"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("unknown game family \"zork\"; known: treasure-hunt, cleaning, cooking"),
        "{err}"
    );
    let o = ariadne(
        work.path(),
        &["games", "make", "cleaning", "--size", "hardest"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("unknown size \"hardest\" for cleaning; known: basic")
    );
    let o = ariadne(work.path(), &["play", "--walkthrough", "nope.z8"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Regression: `games make --out` silently replaced an existing game.
#[test]
fn make_refuses_to_overwrite_a_game_without_force() {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(work.path().join("g")).unwrap();
    std::fs::write(work.path().join("g/x.z8"), b"precious").unwrap();
    let o = ariadne(
        work.path(),
        &["games", "make", "cleaning", "--out", "g/x.z8"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("exists; pass --force to replace it"));
    assert_eq!(
        std::fs::read(work.path().join("g/x.z8")).unwrap(),
        b"precious"
    );
}
