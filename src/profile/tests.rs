//! Profiles resolve to their rules, versions are typed and refused by name.
use super::*;
use crate::agent::{AgentRevision, AgentSettings, REVISION};
use crate::memory::{MemoryRevision, MemorySettings, RULES};

/// A version this build does not know is refused with one line naming the known
/// ones; every known one resolves.
#[test]
fn unknown_versions_are_refused_by_name() {
    for n in 1..=RULES {
        assert!(MemoryRevision::from_number(n).is_ok());
    }
    for n in 1..=REVISION {
        assert!(AgentRevision::from_number(n).is_ok());
    }
    let e = MemoryRevision::from_number(RULES + 1).unwrap_err();
    assert!(e.contains("versions 1 to 8") && !e.contains('\n'), "{e}");
    let e = AgentRevision::from_number(0).unwrap_err();
    assert!(e.contains("revisions 1 to 11"), "{e}");
}

/// The settings hold the versions typed and store them as their numbers; a file
/// holding a number this build does not know is refused when read, never read as
/// the current version.
#[test]
fn versions_are_stored_as_numbers_and_read_typed() {
    for (i, r) in MemoryRevision::ALL.iter().enumerate() {
        assert_eq!(r.number() as usize, i + 1);
        assert_eq!(MemoryRevision::from_number(r.number()), Ok(*r));
    }
    for (i, r) in AgentRevision::ALL.iter().enumerate() {
        assert_eq!(r.number() as usize, i + 1);
    }
    assert_eq!(MemoryRevision::CURRENT.number(), RULES);
    assert_eq!(AgentRevision::CURRENT.number(), REVISION);
    let memory = serde_json::to_value(MemorySettings::default()).unwrap();
    assert_eq!(memory["rules"], RULES);
    let agent = serde_json::to_value(AgentSettings::default()).unwrap();
    assert_eq!(agent["revision"], REVISION);
    let mut newer = memory.clone();
    newer["rules"] = (RULES + 1).into();
    let e = serde_json::from_value::<MemorySettings>(newer)
        .unwrap_err()
        .to_string();
    assert!(e.contains("memory rules version 9 is unknown"), "{e}");
    let mut newer = agent.clone();
    newer["revision"] = 99.into();
    let e = serde_json::from_value::<AgentSettings>(newer)
        .unwrap_err()
        .to_string();
    assert!(e.contains("agent revision 99 is unknown"), "{e}");
    let back: MemorySettings = serde_json::from_value(memory).unwrap();
    assert_eq!(back.rules, MemoryRevision::CURRENT);
}

/// The paper's profile turns every rule off; the extended one on, but for those
/// named in `--without`; the settings follow.
#[test]
fn profiles_resolve_to_their_rules_and_settings() {
    assert!(Profile::Paper.rules().enabled().is_empty());
    assert_eq!(Profile::Extended.rules().enabled(), Rule::ALL.to_vec());
    let r = Rules::resolve(Profile::Extended, &[Rule::KeptNote, Rule::VerdictGuard]);
    assert!(!r.kept_note && !r.verdict_guard && r.loop_breaking);
    let mut agent = AgentSettings::default();
    let mut memory = MemorySettings::default();
    agent.follow(&r);
    memory.follow(&r);
    assert!(agent.loop_breaking && !agent.show_note && agent.plan_progress);
    assert_eq!(
        (agent.history, agent.feedback_chars, agent.repeat_warning),
        (4, 300, 3)
    );
    assert_eq!(memory.verdict_guard, Some(false));
    assert!(memory.admits_exits() && memory.overrides_moves() && !memory.guards());
    let paper = AgentSettings::default();
    assert_eq!(
        (paper.history, paper.feedback_chars, paper.repeat_warning),
        (5, 0, 0)
    );
    assert!(paper.route_one_step);
    assert_eq!(
        parse_rules(["kept-note, loop-breaking"]).unwrap(),
        vec![Rule::LoopBreaking, Rule::KeptNote]
    );
    assert!(
        parse_rules(["kept-notes"])
            .unwrap_err()
            .contains("kept-note")
    );
    assert!("papers".parse::<Profile>().is_err());
}
