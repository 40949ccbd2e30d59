//! The paper profile's step as the reference runs it around its calls
//! (`pipeline_arigraph.py`): one history entry and one `Game step #N` per decision, a
//! `go to` route played to its end, no room crossed mid-route counted as visited, the
//! exits read and printed as the reference reads and prints them. A corridor of five
//! rooms (and, twisted, a side room) and the scripted chat backend; no Python, no HTTP.

use std::sync::Arc;

use async_trait::async_trait;

use super::tests::{config, play_in, played};
use super::*;
use crate::env::EnvError;
use crate::llm::ChatRequest;
use crate::llm::scripted::Scripted;
use crate::trajectory::ActionSource;

/// Alpha -east-> Beta -east-> Gamma -east-> Delta -east-> Epsilon and back; twisted,
/// going west from Gamma reaches Side, and west from Side reaches Alpha.
struct Corridor {
    room: usize,
    twisted: bool,
}

const ROOMS: [&str; 6] = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Side"];
const SIDE: usize = 5;

impl Corridor {
    /// The corridor at its west end, twisted or not.
    fn new(twisted: bool) -> Self {
        Corridor { room: 0, twisted }
    }

    fn way(&self, command: &str) -> Option<usize> {
        match (self.room, command) {
            (SIDE, "go west") => Some(0),
            (SIDE, "go east") => Some(2),
            (2, "go west") if self.twisted => Some(SIDE),
            (r, "go east") if r < 4 => Some(r + 1),
            (r, "go west") if (1..SIDE).contains(&r) => Some(r - 1),
            _ => None,
        }
    }

    fn state(&self, text: &str) -> GameState {
        let mut admissible: Vec<String> = ["go east", "go west"]
            .into_iter()
            .filter(|c| self.way(c).is_some())
            .map(String::from)
            .collect();
        admissible.push("look".into());
        GameState {
            observation: format!("-= {} =-\n{text}", ROOMS[self.room]),
            max_score: 1,
            admissible_commands: admissible,
            room: Some(ROOMS[self.room].to_string()),
            inventory: "You are carrying nothing.".into(),
            objective: "Walk the corridor.".into(),
            ..GameState::default()
        }
    }
}

#[async_trait]
impl Environment for Corridor {
    async fn reset(&mut self) -> Result<GameState, EnvError> {
        self.room = 0;
        Ok(self.state("You are in the alpha room. Recipe #1 is on the wall.\n>"))
    }

    async fn step(&mut self, command: &str) -> Result<GameState, EnvError> {
        match self.way(command) {
            Some(to) => {
                self.room = to;
                Ok(self.state(&format!("You {command}.")))
            }
            None => Ok(self.state("Nothing happens.")),
        }
    }

    async fn close(self: Box<Self>) {}
}

/// The paper's profile (agent revision 11), `max_steps` decisions.
fn paper(max_steps: u32) -> EpisodeConfig {
    EpisodeConfig {
        memory: MemorySettings::default(),
        agent: AgentSettings::default(),
        profile: Some(crate::profile::ProfileRecord::new(
            crate::profile::Profile::Paper,
            &[],
        )),
        max_steps,
        ..config()
    }
}

/// East four times, `go to alpha`, then look; the commands sent and every request.
async fn walk(twisted: bool, config: EpisodeConfig) -> (Vec<StepRecord>, Vec<ChatRequest>) {
    let actions = [
        "go east",
        "go east",
        "go east",
        "go east",
        "go to alpha",
        "look",
    ];
    played(Corridor::new(twisted), &actions, config).await
}

/// The user message of the `n`-th request (1-based) made for `purpose`.
fn user(requests: &[ChatRequest], purpose: &str, n: usize) -> String {
    requests
        .iter()
        .filter(|r| r.purpose == purpose)
        .nth(n - 1)
        .and_then(|r| r.messages.iter().rev().find(|m| m.role == "user"))
        .map(|m| m.content.clone())
        .unwrap_or_else(|| panic!("no {purpose} request {n}"))
}

fn entry(step: u32, room: &str, text: &str, action: &str) -> String {
    format!(
        "Observation: Game step #{step}\n-= {room} =-\n{text}\nInventory: You are carrying nothing.\nAction taken: {action}"
    )
}

#[tokio::test]
async fn a_route_is_one_decision_in_the_history_the_reference_keeps() {
    let (steps, requests) = walk(false, paper(6)).await;
    let commands: Vec<&str> = steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(
        commands,
        [
            "go east", "go east", "go east", "go east", "go west", "go west", "go west", "go west",
            "look"
        ]
    );
    // The sixth plan call: five entries, one per decision, the route's one of them; the
    // observation cleaned as the reference cleans it.
    let plan = user(&requests, "plan", 6);
    let recent = [
        entry(
            1,
            "Alpha",
            "You are in the alpha room. Recipe is on the wall.\n",
            "go east",
        ),
        entry(2, "Beta", "You go east.", "go east"),
        entry(3, "Gamma", "You go east.", "go east"),
        entry(4, "Delta", "You go east.", "go east"),
        entry(5, "Epsilon", "You go east.", "go to alpha"),
    ]
    .join("\n");
    assert!(
        plan.contains(&format!(
            "2. History of 5 last observations and actions: {recent} \n\n3. Your current observation: Game step #6\n-= Alpha =-\nYou go west.\nInventory: You are carrying nothing.\n"
        )),
        "{plan}"
    );
    assert!(!plan.contains("Recipe #1"), "{plan}");
    // Exits as the reference prints them: a line per room decided in, `none` for none.
    assert!(
        plan.contains("7. Yet unexplored exits in the environment: \nUnexplored exits for alpha: none\nUnexplored exits for beta: none\nUnexplored exits for delta: none\nUnexplored exits for epsilon: none\nUnexplored exits for gamma: none"),
        "{plan}"
    );
    // Every room decided in is a `go to` target, the current one too.
    let action = user(&requests, "action", 6);
    for room in ["alpha", "beta", "gamma", "delta", "epsilon"] {
        assert!(
            action.contains(&format!("'go to {room}'")),
            "{room}: {action}"
        );
    }
}

#[tokio::test]
async fn a_route_is_played_to_its_end_and_crosses_no_room_into_the_visited_set() {
    let (steps, requests) = walk(true, paper(6)).await;
    let commands: Vec<&str> = steps.iter().map(|s| s.command.as_str()).collect();
    // West from Gamma reaches Side, not Beta: the reference plays the route on.
    assert_eq!(
        &commands[4..],
        ["go west", "go west", "go west", "go west", "look"]
    );
    assert_eq!(steps[6].room.as_deref(), Some("Gamma"));
    assert_eq!(steps[7].feedback, "-= Alpha =-\nYou go west.");
    assert!(!steps.iter().any(|s| s.feedback.contains("route stopped")));
    // Side was crossed, never decided in: no target, no exits line.
    let action = user(&requests, "action", 6);
    assert!(!action.contains("go to side"), "{action}");
    assert!(!user(&requests, "plan", 6).contains("exits for side"));
}

#[tokio::test]
async fn checked_routes_stop_where_the_map_was_wrong() {
    let mut extended = config();
    extended.max_steps = 7;
    let (steps, _) = walk(true, extended).await;
    let commands: Vec<&str> = steps.iter().map(|s| s.command.as_str()).collect();
    assert_eq!(&commands[4..7], ["go west", "go west", "go west"]);
    assert!(
        steps[6].feedback.starts_with("The route stopped"),
        "{}",
        steps[6].feedback
    );
}

#[tokio::test]
async fn an_unroutable_go_to_gets_the_reference_answer() {
    let script = Arc::new(Scripted::default().actions(&["go to alpha", "look"]));
    let (result, steps, _) = play_in(
        Corridor::new(false),
        script,
        CancellationToken::new(),
        paper(2),
    )
    .await;
    result.expect("episode");
    assert_eq!(steps[0].feedback, "You are already there");
}

#[tokio::test]
async fn key_items_are_lowercased_as_the_reference_does() {
    let script = Arc::new(
        Scripted::default()
            .answer(
                "key_items",
                &[r#"{"items": [{"entity": "Golden Locker", "relevance": 2}]}"#],
            )
            .actions(&["look"]),
    );
    let (result, steps, _) = play_in(
        Corridor::new(false),
        script,
        CancellationToken::new(),
        paper(1),
    )
    .await;
    result.expect("episode");
    let items: Vec<&str> = steps[0]
        .retrieval
        .key_items
        .iter()
        .map(|k| k.entity.as_str())
        .collect();
    assert_eq!(items, ["golden locker"]);
}

#[tokio::test]
async fn an_unreadable_plan_is_shown_back_as_its_text_and_a_bad_action_is_look() {
    let script = Arc::new(
        Scripted::default()
            .answer(
                "plan",
                &["go east first, then find the key", "still no JSON"],
            )
            .answer("action", &["not an action", "nor this"]),
    );
    let (result, steps, requests) = {
        let (r, s, _) = play_in(
            Corridor::new(false),
            script.clone(),
            CancellationToken::new(),
            paper(2),
        )
        .await;
        (r, s, script.requests())
    };
    result.expect("episode");
    assert_eq!(steps[0].command, "look");
    assert_eq!(steps[0].action_source, ActionSource::Fallback);
    // The second decision's plan call shows the first planner answer's last text as
    // the previous plan.
    let plan = user(&requests, "plan", 3);
    assert!(
        plan.contains("6. Your previous plan: still no JSON"),
        "{plan}"
    );
}
