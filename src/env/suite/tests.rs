//! Tests of `suite`.

use super::*;

fn fact(p: &str, args: &[&str]) -> Fact {
    Fact {
        predicate: p.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
    }
}

/// The reference's reward on hand-built states: taking a misplaced item +1, putting
/// it where it belongs +1, moving 0, opening 0, taking an item from its place -1,
/// putting an item in a wrong place -1, nothing changed 0.
#[test]
fn cleaning_reward_follows_the_reference() {
    let base = vec![
        fact("at", &["P", "bathroom"]),
        fact("on", &["toothbrush", "kitchen table"]),
        fact("on", &["wet towel", "towel rack"]),
        fact("closed", &["refrigerator"]),
    ];
    let with = |from: &Fact, to: Fact| -> Vec<Fact> {
        let mut v: Vec<Fact> = base.iter().filter(|f| *f != from).cloned().collect();
        v.push(to);
        v
    };
    // Taking a misplaced item.
    let taken = with(&base[1], fact("in", &["toothbrush", "I"]));
    assert_eq!(cleaning_reward(&base, &taken), 1);
    // Putting it where it belongs.
    let mut put = taken.clone();
    put.retain(|f| f.args[0] != "toothbrush");
    put.push(fact("on", &["toothbrush", "bathroom sink"]));
    assert_eq!(cleaning_reward(&taken, &put), 1);
    // Putting it in a wrong place.
    let mut wrong = taken.clone();
    wrong.retain(|f| f.args[0] != "toothbrush");
    wrong.push(fact("on", &["toothbrush", "sofa"]));
    assert_eq!(cleaning_reward(&taken, &wrong), -1);
    // Taking an item that was in its place.
    let towel = with(&base[2], fact("in", &["wet towel", "I"]));
    assert_eq!(cleaning_reward(&base, &towel), -1);
    // Moving and opening.
    let moved = with(&base[0], fact("at", &["P", "kitchen"]));
    assert_eq!(cleaning_reward(&base, &moved), 0);
    let opened = with(&base[3], fact("open", &["refrigerator"]));
    assert_eq!(cleaning_reward(&base, &opened), 0);
    assert_eq!(cleaning_reward(&base, &base), 0);
}

/// A game whose true state is scripted: each step moves to the next state.
struct Scripted {
    states: Vec<Vec<Fact>>,
    at: usize,
}

#[async_trait]
impl Environment for Scripted {
    async fn reset(&mut self) -> Result<GameState, EnvError> {
        self.at = 0;
        Ok(GameState {
            observation: "-= Bathroom =-".into(),
            objective: "the game's own".into(),
            facts: Some(self.states[0].clone()),
            ..GameState::default()
        })
    }
    async fn step(&mut self, _command: &str) -> Result<GameState, EnvError> {
        self.at += 1;
        Ok(GameState {
            observation: "ok".into(),
            facts: Some(self.states[self.at].clone()),
            ..GameState::default()
        })
    }
    async fn close(self: Box<Self>) {}
}

/// The wrapper gives the reference's goal, task text and walkthrough, and scores
/// Cleaning from state changes (the game's own score is 0 throughout).
#[tokio::test]
async fn the_suite_env_scores_cleaning_from_state_changes() {
    let s0 = vec![
        fact("at", &["P", "bathroom"]),
        fact("on", &["toothbrush", "sofa"]),
    ];
    let s1 = vec![
        fact("at", &["P", "bathroom"]),
        fact("in", &["toothbrush", "I"]),
    ];
    let s2 = vec![
        fact("at", &["P", "bathroom"]),
        fact("on", &["toothbrush", "bathroom sink"]),
    ];
    let inner = Scripted {
        states: vec![s0, s1, s2],
        at: 0,
    };
    let mut env = SuiteEnv::new(Box::new(inner), SuiteGame::Clean);
    let first = env.reset().await.unwrap();
    assert!(
        first.observation.ends_with(CLEAN_TASK),
        "{}",
        first.observation
    );
    assert_eq!(first.objective, SuiteGame::Clean.main_goal());
    assert_eq!(
        first.walkthrough.as_ref().map(Vec::len),
        Some(CLEAN_WALKTHROUGH.len())
    );
    assert_eq!((first.score, first.max_score), (0, CLEAN_MAX_SCORE));
    let a = env.step("take toothbrush").await.unwrap();
    assert_eq!((a.reward, a.score), (1, 1));
    let b = env.step("put toothbrush on bathroom sink").await.unwrap();
    assert_eq!((b.reward, b.score, b.max_score), (1, 2, CLEAN_MAX_SCORE));
    assert!(!b.won);
}

#[test]
fn specs_name_the_game_and_its_folder() {
    let s = SuiteSpec::parse("clean@/x/envs").unwrap();
    assert_eq!(s.game, SuiteGame::Clean);
    assert_eq!(s.path(), Path::new("/x/envs/clean_3x3/clean_3x3_mess_2.z8"));
    assert_eq!(s.to_string(), "arigraph-paper:clean@/x/envs");
    assert!(SuiteSpec::parse("cleaning@/x").is_err());
    assert_eq!(
        CLEAN_WALKTHROUGH
            .iter()
            .filter(|c| c.starts_with("take ") || c.starts_with("put "))
            .count() as i64,
        CLEAN_MAX_SCORE
    );
}

/// Detective is the reference's Jericho game: its file under `jericho-game-suite/`, its
/// goal, no task text, and the Jericho bridge's checks (a z-machine file, no sidecar).
#[test]
fn detective_is_a_jericho_game_of_the_suite() {
    let s = SuiteSpec::parse("detective@/x/envs").unwrap();
    assert!(s.game.is_jericho());
    assert!(!SuiteGame::Clean.is_jericho());
    assert_eq!(
        s.path(),
        Path::new("/x/envs/jericho-game-suite/detective.z5")
    );
    assert_eq!(s.game.main_goal(), "Investigate the crime");
    assert_eq!(s.game.task(), "");
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("jericho-game-suite");
    std::fs::create_dir_all(&folder).unwrap();
    let mut story = vec![5u8];
    story.resize(64, 0);
    std::fs::write(folder.join("detective.z5"), story).unwrap();
    let spec = crate::env::GameSpec::Suite(SuiteSpec::new(
        SuiteGame::Detective,
        dir.path().to_path_buf(),
    ));
    assert!(spec.check().is_ok(), "no TextWorld sidecar is asked for");
    assert_eq!(games_in(dir.path()).len(), 1);
}
