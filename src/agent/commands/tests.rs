//! Free text in the game's language and the answers kept: the pure parts, no LLM.
use super::language::clean;
use super::*;
use crate::agent::AgentRevision;
use crate::env::CommandGrammar;

/// The pattern the server enforces is the one checked here: commands of the family
/// pass (repaired only in case, a closing period and articles the family's parser
/// does not read); plan phrases and other families' verbs do not.
#[test]
fn answers_are_held_to_the_family_language() {
    let twx = Language::new(
        CommandGrammar::TextworldExpress,
        &["living room".into()],
        "You are in the kitchen. To the North you see a closed wooden door.",
    );
    assert_eq!(twx.command("take the coin"), Ok(("take coin".into(), true)));
    assert_eq!(twx.command("Move North."), Ok(("move north".into(), true)));
    assert_eq!(
        twx.command("open door to west"),
        Ok(("open door to west".into(), false))
    );
    assert_eq!(
        twx.command("go to living room"),
        Ok(("go to living room".into(), false))
    );
    for phrase in [
        "go west",
        "go to the kitchen",
        "find an item to cook with",
        "take the coin from the shower and put it into the box",
        "go west -> take the coin",
    ] {
        let e = twx.command(phrase).expect_err(phrase);
        assert!(e.contains("is not a command of this game"), "{e}");
    }
    // TextWorld reads articles: they stay.
    let tw = Language::new(CommandGrammar::TextWorld, &[], "");
    assert_eq!(
        tw.command("take the coin"),
        Ok(("take the coin".into(), false))
    );
    // A story's verbs are its own: any short lowercase command.
    let story = Language::new(CommandGrammar::InteractiveFiction, &[], "");
    assert_eq!(story.command("xyzzy"), Ok(("xyzzy".into(), false)));
    assert!(story.command("a b c d e f g h i").is_err());
    assert_eq!(
        twx.fallbacks,
        ["move north", "open door to north", "look around"]
    );
}

/// A refusal holds in its place (room, inventory, score), up to articles, and is
/// lifted where the place has changed; `go to` the room the agent is in is refused.
#[test]
fn refusals_hold_in_their_place() {
    let lang = Language::new(CommandGrammar::TextworldExpress, &[], "");
    let mut c = GameCommands::default();
    c.set_place(None, "", 0, "You are in the kitchen. You see a stove.");
    c.observe("take coin", "Unknown action: I'm not sure what you mean.");
    c.observe("look around", "You are in the kitchen.");
    let e = free_command(
        "take the coin",
        Some(&lang),
        Some(&c),
        "kitchen",
        AgentRevision::CURRENT,
    )
    .unwrap_err();
    assert!(
        e.contains("answer to \"take coin\" here is known (\"Unknown action"),
        "{e}"
    );
    assert_eq!(c.accepted(), ["look around"]);
    assert_eq!(c.refusals_here().len(), 1);
    // `look around` told something new: the refusal is shown but no longer holds.
    c.set_place(None, "", 0, "You are in the kitchen.");
    assert!(
        free_command(
            "take coin",
            Some(&lang),
            Some(&c),
            "kitchen",
            AgentRevision::CURRENT
        )
        .is_ok()
    );
    assert_eq!(c.refusals_here().len(), 1);
    // The same answer again is nothing new: held until something changes.
    c.observe("look around", "You are in the kitchen.");
    c.set_place(None, "", 0, "You are in the kitchen.");
    let e = free_command(
        "look around",
        Some(&lang),
        Some(&c),
        "kitchen",
        AgentRevision::CURRENT,
    )
    .unwrap_err();
    assert!(e.contains("nothing new"), "{e}");
    assert_eq!(
        c.fallback(&lang, None, true),
        "look around",
        "the last resort"
    );
    // Somewhere else the same commands may be sent.
    c.set_place(None, "", 0, "You move west.\n\nYou are in the pantry.");
    assert!(
        free_command(
            "look around",
            Some(&lang),
            Some(&c),
            "pantry",
            AgentRevision::CURRENT
        )
        .is_ok()
    );
    assert!(
        free_command(
            "take coin",
            Some(&lang),
            Some(&c),
            "pantry",
            AgentRevision::CURRENT
        )
        .is_ok()
    );
    assert!(c.refusals_here().is_empty());
    // Without the rule, nothing is refused.
    c.set_place(None, "", 0, "You are in the kitchen.");
    assert!(
        free_command(
            "look around",
            Some(&lang),
            None,
            "kitchen",
            AgentRevision::CURRENT
        )
        .is_ok()
    );
    let sw = Language::new(CommandGrammar::ScienceWorld, &[], "");
    let e = free_command(
        "go to the kitchen",
        Some(&sw),
        None,
        "kitchen",
        AgentRevision::CURRENT,
    )
    .unwrap_err();
    assert!(e.contains("already in the kitchen"), "{e}");
}

/// Rooms are read from the sentences the families use.
#[test]
fn rooms_are_read_from_the_observation() {
    assert_eq!(
        named_room("You are in the kitchen. In one part").as_deref(),
        Some("kitchen")
    );
    assert_eq!(
        named_room("This room is called the art studio. In it").as_deref(),
        Some("art studio")
    );
    assert_eq!(
        named_room("-= Living Room =-\nA room.").as_deref(),
        Some("living room")
    );
    assert_eq!(named_room("Unknown action."), None);
}

/// A free-text answer is cleaned, never rewritten; interpreter commands are refused.
#[test]
fn free_commands_are_cleaned_never_rewritten() {
    assert_eq!(
        clean("  > open   the Mailbox ").unwrap(),
        "open the Mailbox"
    );
    assert_eq!(clean("north").unwrap(), "north");
    assert!(clean("   ").unwrap_err().contains("empty"));
    assert!(clean("north\nsouth").unwrap_err().contains("one line"));
    assert!(clean(&"x".repeat(COMMAND_CHARS + 1)).is_err());
    assert!(
        clean("SAVE game")
            .unwrap_err()
            .contains("interpreter command")
    );
    assert_eq!(clean("quietly wait").unwrap(), "quietly wait");
}

/// A long admissible list is shown as its family's forms and the things that fill
/// them; a command no template matches is kept as it is.
#[test]
fn long_lists_are_shown_as_forms_and_things() {
    let commands: Vec<String> = [
        "look around",
        "open door to kitchen",
        "move apple to table",
        "move table to apple",
        "pick up apple",
        "focus on red box",
        "go to kitchen",
        "sing loudly",
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    let f = Forms::of(CommandGrammar::ScienceWorld, &commands);
    assert_eq!(
        f.forms,
        [
            "look around",
            "go to OBJ",
            "pick up OBJ",
            "move OBJ to OBJ",
            "open OBJ",
            "focus on OBJ",
            "sing loudly"
        ]
    );
    assert_eq!(
        f.things,
        ["door to kitchen", "apple", "table", "red box", "kitchen"]
    );
}

/// A look that repeats what the game already showed in this state is nothing new: the
/// refusals before it still hold (TWXMapReader: `move west` refused in the shower, then
/// `look around` repeats the shower's description).
#[test]
fn a_look_that_repeats_the_room_changes_nothing() {
    let lang = Language::new(CommandGrammar::TextworldExpress, &[], "");
    let mut c = GameCommands::default();
    let shower = "You are in the shower. There is also a coin.\nTo the East you see the bar.";
    c.set_place(None, "", 0, shower);
    c.observe("move west", "Unknown action: I'm not sure what you mean.");
    c.set_place(None, "", 0, "Unknown action: I'm not sure what you mean.");
    c.observe("look around", shower);
    c.set_place(None, "", 0, shower);
    assert_eq!(c.named_room(), "shower");
    for held in ["move west", "look around"] {
        let e = free_command(
            held,
            Some(&lang),
            Some(&c),
            "shower",
            AgentRevision::CURRENT,
        )
        .unwrap_err();
        assert!(e.contains("is known"), "{held}: {e}");
    }
    assert!(
        free_command(
            "take coin",
            Some(&lang),
            Some(&c),
            "shower",
            AgentRevision::CURRENT
        )
        .is_ok()
    );
}

/// Quotes and a closing mark are dropped, and any change to the answer is counted as
/// a repair; a refused command with a closing period is the same command.
#[test]
fn repairs_are_counted_and_closing_marks_do_not_hide_a_refusal() {
    let twx = Language::new(CommandGrammar::TextworldExpress, &[], "");
    for (answer, sent) in [
        ("take coin.", "take coin"),
        ("> take coin", "take coin"),
        ("look  around", "look around"),
        ("\"take coin\"", "take coin"),
        ("take coin?", "take coin"),
    ] {
        assert_eq!(
            twx.command(answer),
            Ok((sent.to_string(), true)),
            "{answer}"
        );
    }
    assert_eq!(twx.command("take coin"), Ok(("take coin".into(), false)));
    let mut c = GameCommands::default();
    c.set_place(None, "", 0, "You are in the kitchen.");
    c.observe(
        "open door to north",
        "Unknown action: I'm not sure what you mean.",
    );
    assert!(c.refused_here("Open the door to North.").is_some());
}

/// An answer that joins commands gives its first one as the fallback, when that one is
/// a command of the family on its own; one that joins none gives none.
#[test]
fn the_first_command_of_a_joined_answer() {
    let twx = Language::new(CommandGrammar::TextworldExpress, &[], "");
    assert_eq!(
        twx.first_command("take notebook put notebook in coffee-table"),
        Some("take notebook".into())
    );
    assert_eq!(
        twx.first_command("Open the door and move north."),
        Some("open door".into())
    );
    assert_eq!(twx.first_command("take notebook"), None);
    assert_eq!(twx.first_command("find the coin then take it"), None);
}

/// From revision 11 a trailing place that is the current room is dropped (a repair);
/// another room stays, and revision 10 reads the answer as it did.
#[test]
fn a_trailing_place_that_is_here_is_dropped() {
    let twx = Language::new(CommandGrammar::TextworldExpress, &[], "");
    let here = "living room";
    assert_eq!(
        free_command(
            "put notebook on coffee table in the living room",
            Some(&twx),
            None,
            here,
            AgentRevision::CURRENT
        ),
        Ok(("put notebook on coffee table".into(), true))
    );
    assert_eq!(
        free_command(
            "take coin in kitchen",
            Some(&twx),
            None,
            here,
            AgentRevision::CURRENT
        ),
        Ok(("take coin in kitchen".into(), false))
    );
    assert_eq!(
        free_command(
            "put notebook on coffee table in living room",
            Some(&twx),
            None,
            here,
            AgentRevision::R10
        ),
        Ok(("put notebook on coffee table in living room".into(), false))
    );
}
