//! Free text under the extended profile (rules `game-commands` and
//! `remembered-refusals`): the house of `tests.rs` behind a parser that refuses what it
//! does not understand, played by a scripted model that writes plan phrases.

use std::sync::Arc;

use async_trait::async_trait;

use super::tests::{House, config, play_in};
use super::*;
use crate::env::{CommandGrammar, EnvError};
use crate::llm::scripted::Scripted;
use crate::trajectory::ActionSource;

/// [`House`] with each state it shows changed by a function of the test's.
struct Changed(House, fn(GameState) -> GameState);

#[async_trait]
impl Environment for Changed {
    async fn reset(&mut self) -> Result<GameState, EnvError> {
        self.0.reset().await.map(self.1)
    }
    async fn step(&mut self, command: &str) -> Result<GameState, EnvError> {
        self.0.step(command).await.map(self.1)
    }
    async fn close(self: Box<Self>) {}
}

/// [`House`] in free text: no admissible list, TextWorld's language, and the parser's
/// refusal where the house would answer "Nothing happens.".
fn parser() -> Changed {
    Changed(House::new(false), |mut s| {
        s.admissible_commands.clear();
        s.free_text = true;
        s.grammar = Some(CommandGrammar::TextWorld);
        s.observation = s
            .observation
            .replace("Nothing happens.", "You can't see any such thing.");
        s
    })
}

/// Plan phrases become commands the game parses or are asked again; a refused command
/// is shown to the next decision and not sent again in the same place, but is sent
/// where the place has changed.
#[tokio::test]
async fn plan_phrases_become_commands_and_refusals_are_remembered() {
    let script = Arc::new(Scripted::default().actions(&[
        // Step 1, in the hall: a command the house refuses.
        "Take the apple.",
        // Step 2, still in the hall: the refused command again, then a `go to` the
        // room the agent is in: both asked again, then the game's look command.
        "take apple",
        "go to the hall",
        // Step 3: a plan phrase, asked again, then a move.
        "walk over to the kitchen to find food",
        "go east",
        // Steps 4 and 5: the pantry, where the apple is.
        "GO NORTH",
        "take apple",
    ]));
    let (result, steps, _) = play_in(
        parser(),
        script.clone(),
        CancellationToken::new(),
        free_config(),
    )
    .await;
    let done = result.expect("episode");
    let commands: Vec<&str> = steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(
        commands,
        [
            "take the apple",
            "look",
            "go east",
            "go north",
            "take apple"
        ]
    );
    let sources: Vec<ActionSource> = steps.iter().map(|s| s.action_source).collect();
    assert_eq!(sources[1], ActionSource::Fallback);
    assert_eq!(
        sources[3],
        ActionSource::Repaired,
        "upper case read as lower"
    );
    assert_eq!(done.summary.outcome, Outcome::Won);
    // The action calls are held to the language, and the second step's working memory
    // shows the refusal with the game's answer.
    let actions: Vec<_> = script
        .requests()
        .into_iter()
        .filter(|r| r.purpose == "action")
        .collect();
    let pattern = actions[0].schema.as_ref().expect("schema").1["properties"]["action"]["pattern"]
        .as_str()
        .expect("a pattern")
        .to_string();
    assert!(pattern.contains("go (north|south|east|west)"), "{pattern}");
    let second: String = actions[1]
        .messages
        .iter()
        .map(|m| m.content.clone())
        .collect();
    assert!(
        second.contains("Commands whose answer here is known (refused, or nothing new; send them again only after something changed):\n- take the apple -> \"-= Hall =- You can't see any such thing.\""),
        "{second}"
    );
    assert!(
        second.contains("Commands this game understands (only these;"),
        "{second}"
    );
    // The retry of step 2 was told why.
    let retry: String = actions[2]
        .messages
        .iter()
        .map(|m| m.content.clone())
        .collect();
    assert!(
        retry.contains("the game's answer to \"take the apple\" here is known"),
        "{retry}"
    );
    assert!(retry.contains("understands, as listed above, with each OBJ the name of a thing as the game writes it.\nAnswer:"), "{retry}");
}

/// Under `--without game-commands,remembered-refusals` the same answers are sent as
/// written: the rules, not the revision, change what is sent.
#[tokio::test]
async fn without_the_rules_answers_are_sent_as_written() {
    let script = Arc::new(Scripted::default().actions(&["Take the apple.", "take apple"]));
    let mut config = free_config();
    config.max_steps = 2;
    config.agent.game_commands = false;
    config.agent.remembered_refusals = false;
    let (_, steps, _) = play_in(parser(), script, CancellationToken::new(), config).await;
    let commands: Vec<&str> = steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(commands, ["Take the apple.", "take apple"]);
}

fn free_config() -> EpisodeConfig {
    let mut c = config();
    c.max_steps = 5;
    c
}

/// [`House`] with a list too long to show one by one: seventy more things to examine.
fn crowded() -> Changed {
    Changed(House::new(false), |mut s| {
        s.admissible_commands
            .extend((0..70).map(|i| format!("examine pebble {i}")));
        s.grammar = Some(CommandGrammar::TextWorld);
        s
    })
}

/// A list longer than `LISTED_COMMANDS` is shown as its forms and things, and the
/// answer is still held to the whole list.
#[tokio::test]
async fn a_long_admissible_list_is_shown_as_forms() {
    let script = Arc::new(Scripted::default().actions(&["examine pebble 7"]));
    let mut config = free_config();
    config.max_steps = 1;
    let (_, steps, _) = play_in(crowded(), script.clone(), CancellationToken::new(), config).await;
    assert_eq!(steps[0].command, "examine pebble 7");
    let action = script
        .requests()
        .into_iter()
        .find(|r| r.purpose == "action")
        .expect("an action call");
    let text: String = action.messages.iter().map(|m| m.content.clone()).collect();
    assert!(text.contains("commands now, too many to list"), "{text}");
    assert!(text.contains("examine OBJ"), "{text}");
    assert!(!text.contains("- examine pebble 7"), "{text}");
    let schema = &action.schema.expect("schema").1;
    assert_eq!(
        schema["properties"]["action"]["enum"]
            .as_array()
            .map(Vec::len),
        Some(73)
    );
}

/// A request longer than the endpoint's context (llama.cpp's 400) is a failed call:
/// the step plays its fallback and the episode goes on.
#[tokio::test]
async fn a_request_too_long_for_the_context_falls_back() {
    let mut script = Scripted::default();
    script.too_long_for = Some("action".into());
    let mut config = free_config();
    config.max_steps = 2;
    let (result, steps, summary) = play_in(
        House::new(false),
        Arc::new(script),
        CancellationToken::new(),
        config,
    )
    .await;
    result.expect("the episode goes on");
    assert_eq!(steps.len(), 2);
    assert!(
        steps
            .iter()
            .all(|s| s.action_source == ActionSource::Fallback)
    );
    assert!(summary.expect("summary").llm_failures >= 2);
}

/// An answer that joins two commands, written again when asked again, is played as its
/// first command (the step's fallback, agent revision 11), not as the game's look.
#[tokio::test]
async fn a_joined_answer_falls_back_to_its_first_command() {
    let script = Arc::new(Scripted::default().actions(&[
        "take key from box then put key in box",
        "take key from box and put key in box",
    ]));
    let mut config = free_config();
    config.max_steps = 1;
    let (result, steps, _) = play_in(parser(), script, CancellationToken::new(), config).await;
    result.expect("episode");
    assert_eq!(steps[0].command, "take key from box");
    assert_eq!(steps[0].action_source, ActionSource::Fallback);
    assert_eq!(
        steps[0].feedback,
        "-= Hall =-\nYou take the key from the box."
    );
}
