//! The authors' own games (suite `arigraph-paper`), played and scored as the reference
//! code plays and scores them (AIRI-Institute/AriGraph, MIT licence: `utils/envs_cfg.py`
//! for the files, goals, task texts and walkthroughs; `pipeline_arigraph.py` for the
//! step cap and the task text appended to the first observation; `utils/win_cond.py`
//! and `utils/utils.py` (`get_reward_for_changes`) for Cleaning's reward).
//!
//! The games themselves are not shipped: a suite game is named
//! `arigraph-paper:NAME[@DIR]`, where `DIR` is the reference repository's `envs/` folder
//! (default: `$ARIADNE_ARIGRAPH_ENVS`, else `./envs`), and `arigraph-paper[@DIR]` in
//! `bench --games` stands for every game of the suite found there.
//!
//! [`SuiteEnv`] wraps the game's bridge (TextWorld's; Jericho's for Detective): it appends the task text to the first
//! observation, gives the reference's main goal as the objective and its walkthrough,
//! and for Cleaning replaces the game's own score (0 throughout: its maximum is 0) with
//! the reward computed from the changes of the game's true state.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::{EnvError, Environment, Fact, GameState};

mod cleaning;
pub use cleaning::{CLEAN_MAX_SCORE, CLEAN_PLACES, cleaning_reward};

/// The suite's name, the prefix of its game specifications.
pub const SUITE: &str = "arigraph-paper";

/// The environment variable naming the reference's `envs/` folder.
pub const ENVS_VAR: &str = "ARIADNE_ARIGRAPH_ENVS";

/// The reference code's step cap for every game (`pipeline_arigraph.py`: `max_steps`).
pub const STEP_CAP: u32 = 150;

/// A game of the reference code's `utils/envs_cfg.py` (`ENV_NAMES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SuiteGame {
    /// Treasure Hunt (`envs/hunt/hunt.z8`).
    Hunt,
    /// Treasure Hunt Hard.
    HuntHard,
    /// Cooking.
    Cook,
    /// Cooking Hard.
    CookHard,
    /// Cooking Hardest (`envs/cook_hardest_7`).
    CookHardest,
    /// The cooking game of the RL comparison.
    CookRlBaseline,
    /// Cleaning (`envs/clean_3x3/clean_3x3_mess_2.z8`).
    Clean,
    /// Detective, a human-written game of Jericho's suite
    /// (`envs/jericho-game-suite/detective.z5`), played through the Jericho bridge.
    Detective,
}

const HUNT_TASK: &str = "Your task is to get a treasure. Treasure is hidden in the golden locker. You need a golden key to unlock it. The key is hidden in one of the other lockers located in the environment. All lockers are locked and require a specific key to unlock. The key 1 you found in room A unlocks white locker. Read the notes that you find, they will guide you further.";
const HUNT_HARD_TASK: &str = "Your task is to get a treasure. Treasure is hidden in the golden locker. You need a golden key to unlock it. The key is hidden in one of the other lockers located in the environment. All lockers are locked and require a specific key to unlock. The key 1 you found in room A unlocks bronze locker. Read the notes that you find, they will guide you further.";
const COOK_TASK: &str = "Your task is to prepare the meal by following the recipe from a cookbook and eating it aftewards. Do not forget the content of recipe when you find it. When you will prepare food, remember that frying can be done only with stove, roasting can be done only with oven and grilling can be done only with BBQ. Meal shoud be prepared in the kitchen. Do not forget to prepate meal after you gathered and processed all individual ingredients.";
const CLEAN_TASK: &str = "Your task is to clean the house by locating and taking items that are out of place and returning them to their proper locations in the house.";

const HUNT_WALKTHROUGH: &[&str] = &[
    "take Key 1",
    "go west",
    "go south",
    "go east",
    "go east",
    "unlock White locker with Key 1",
    "open White locker",
    "take Key 2 from White locker",
    "examine Note 2",
    "go west",
    "go west",
    "unlock Red locker with Key 2",
    "open Red locker",
    "take Key 3 from Red locker",
    "take Note 3 from Red locker",
    "examine Note 3",
    "go east",
    "go east",
    "go north",
    "go north",
    "go west",
    "go east",
    "go east",
    "unlock Cyan locker with Key 3",
    "open Cyan locker",
    "take Golden key from Cyan locker",
    "go west",
    "go south",
    "go south",
    "go west",
    "go west",
    "go north",
    "go east",
    "unclock Golden locker with Golden key",
    "unlock Golden locker with Golden key",
    "open Golden locker",
    "take treasure from Golden locker",
];

const CLEAN_WALKTHROUGH: &[&str] = &[
    "take toothbrush",
    "go north",
    "take dumbbell",
    "take dirty plate",
    "go east",
    "take raw meat",
    "go south",
    "take wet towel",
    "go south",
    "take swimming fins",
    "go west",
    "take toy car",
    "put swimming fins on equipment rack",
    "go west",
    "take fantasy book",
    "put dumbbell on dumbbell stand",
    "go north",
    "take business suit",
    "open refrigerator",
    "put raw meat in refrigerator",
    "close refrigerator",
    "open dishwasher",
    "put dirty plate in dishwasher",
    "close dishwasher",
    "go north",
    "take sleeping lamp",
    "take elegant table runner",
    "put toothbrush on bathroom sink",
    "put wet towel on towel rack",
    "go east",
    "open toy storage cabinet",
    "put toy car in toy storage cabinet",
    "close toy storage cabinet",
    "go east",
    "go south",
    "open wardrobe",
    "put business suit in wardrobe",
    "close wardrobe",
    "put sleeping lamp on bedside table",
    "go south",
    "put fantasy book on bookcase",
    "go west",
    "go north",
    "put elegant table runner on dining table",
];

const COOK_WALKTHROUGH: &[&str] = &[
    "south",
    "examine cookbook",
    "take orange bell pepper",
    "east",
    "east",
    "north",
    "take green bell pepper",
    "take yellow potato",
    "south",
    "cook orange bell pepper with BBQ",
    "cook yellow potato with BBQ",
    "west",
    "west",
    "take knife",
    "dice green bell pepper",
    "dice orange bell pepper",
    "slice yellow potato",
    "cook green bell pepper with stove",
    "prepare meal",
    "eat meal",
];

impl SuiteGame {
    /// Every game, in the order of the paper's Table 4, then Detective (in the
    /// reference's `ENV_NAMES`, not in the paper's tables).
    pub const ALL: [SuiteGame; 8] = [
        SuiteGame::Hunt,
        SuiteGame::HuntHard,
        SuiteGame::Cook,
        SuiteGame::CookHard,
        SuiteGame::CookHardest,
        SuiteGame::CookRlBaseline,
        SuiteGame::Clean,
        SuiteGame::Detective,
    ];

    /// A z-machine game of Jericho's suite (played through the Jericho bridge, its own
    /// walkthrough kept).
    pub fn is_jericho(self) -> bool {
        self == SuiteGame::Detective
    }

    /// The reference's name (`ENV_NAMES`' keys).
    pub fn name(self) -> &'static str {
        match self {
            SuiteGame::Hunt => "hunt",
            SuiteGame::HuntHard => "hunt_hard",
            SuiteGame::Cook => "cook",
            SuiteGame::CookHard => "cook_hard",
            SuiteGame::CookHardest => "cook_hardest",
            SuiteGame::CookRlBaseline => "cook_rl_baseline",
            SuiteGame::Clean => "clean",
            SuiteGame::Detective => "detective",
        }
    }

    /// The game file inside the `envs/` folder (`ENV_NAMES`).
    pub fn file(self) -> &'static str {
        match self {
            SuiteGame::Hunt => "hunt/hunt.z8",
            SuiteGame::HuntHard => "hunt_hard/hunt_hard.z8",
            SuiteGame::Cook => "cook/game.z8",
            SuiteGame::CookHard => "cook_hard/game.z8",
            SuiteGame::CookHardest => "cook_hardest_7/game.z8",
            SuiteGame::CookRlBaseline => "cook_rl_baseline/game.z8",
            SuiteGame::Clean => "clean_3x3/clean_3x3_mess_2.z8",
            SuiteGame::Detective => "jericho-game-suite/detective.z5",
        }
    }

    /// The reference's main goal (`MAIN_GOALS`).
    pub fn main_goal(self) -> &'static str {
        match self {
            SuiteGame::Hunt | SuiteGame::HuntHard => "Find the treasure",
            SuiteGame::Detective => "Investigate the crime",
            SuiteGame::Clean => {
                "Clean the house by returning items that are out of place to their proper locations"
            }
            _ => "Prepare meal by following the recipe and eat it",
        }
    }

    /// The task text appended to the first observation (`FIRST_OBS`; empty for
    /// Detective).
    pub fn task(self) -> &'static str {
        match self {
            SuiteGame::Detective => "",
            SuiteGame::Hunt => HUNT_TASK,
            SuiteGame::HuntHard => HUNT_HARD_TASK,
            SuiteGame::Clean => CLEAN_TASK,
            _ => COOK_TASK,
        }
    }

    /// The reference's walkthrough (`WALKTHROUGH`: Treasure Hunt, Cooking, Cleaning).
    pub fn walkthrough(self) -> Option<&'static [&'static str]> {
        match self {
            SuiteGame::Hunt => Some(HUNT_WALKTHROUGH),
            SuiteGame::Cook => Some(COOK_WALKTHROUGH),
            SuiteGame::Clean => Some(CLEAN_WALKTHROUGH),
            _ => None,
        }
    }

    /// Parse a reference name (`hunt`, `clean`, ...).
    ///
    /// # Errors
    /// An unknown name, with the list of known ones.
    pub fn parse(name: &str) -> Result<Self, EnvError> {
        SuiteGame::ALL
            .into_iter()
            .find(|g| g.name() == name.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = SuiteGame::ALL.iter().map(|g| g.name()).collect();
                EnvError::MissingGame(format!(
                    "{SUITE}:{name} is not a game of the suite; its games are {}",
                    names.join(", ")
                ))
            })
    }
}

/// A suite game and the `envs/` folder it is read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SuiteSpec {
    /// The game.
    pub game: SuiteGame,
    /// The reference repository's `envs/` folder.
    pub dir: PathBuf,
    /// The game file (`dir` joined with [`SuiteGame::file`]).
    pub file: PathBuf,
}

impl SuiteSpec {
    /// `game` in the folder `dir`.
    pub fn new(game: SuiteGame, dir: PathBuf) -> Self {
        let file = dir.join(game.file());
        Self { game, dir, file }
    }

    /// The game file.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// The game file exists (then TextWorld's or Jericho's own check follows); if not,
    /// say where the suite's games are read from and how to give the folder.
    ///
    /// # Errors
    /// [`EnvError::MissingSuiteGame`].
    pub fn check(&self) -> Result<(), EnvError> {
        if self.file.exists() {
            return Ok(());
        }
        Err(EnvError::MissingSuiteGame {
            game: self.game.name().to_string(),
            path: self.file.display().to_string(),
        })
    }

    /// Parse `NAME[@DIR]` (after the `arigraph-paper:` prefix).
    ///
    /// # Errors
    /// An unknown game name.
    pub fn parse(rest: &str) -> Result<Self, EnvError> {
        let (name, dir) = split_dir(rest);
        Ok(Self::new(SuiteGame::parse(name)?, dir))
    }
}

impl std::fmt::Display for SuiteSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{SUITE}:{}@{}", self.game.name(), self.dir.display())
    }
}

/// `NAME@DIR` as (NAME, DIR); without `@DIR`, the folder of [`envs_dir`].
pub fn split_dir(rest: &str) -> (&str, PathBuf) {
    match rest.split_once('@') {
        Some((name, dir)) => (name, folder(Some(dir))),
        None => (rest, envs_dir()),
    }
}

/// `DIR` of an `@DIR` suffix made absolute; the default folder without one.
fn folder(dir: Option<&str>) -> PathBuf {
    match dir {
        Some(d) => absolute(Path::new(d)),
        None => envs_dir(),
    }
}

/// The default `envs/` folder: `$ARIADNE_ARIGRAPH_ENVS`, else `./envs`, made absolute.
pub fn envs_dir() -> PathBuf {
    let dir = std::env::var_os(ENVS_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("envs"));
    absolute(&dir)
}

/// `p` made absolute against the working directory (it need not exist).
pub fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    })
}

/// Every game of the suite whose file is in `dir`.
pub fn games_in(dir: &Path) -> Vec<SuiteSpec> {
    SuiteGame::ALL
        .into_iter()
        .map(|game| SuiteSpec::new(game, absolute(dir)))
        .filter(|s| s.path().is_file())
        .collect()
}

/// A suite game's environment: the TextWorld bridge with the reference's goal, task
/// text, walkthrough and (for Cleaning) reward.
pub struct SuiteEnv {
    inner: Box<dyn Environment>,
    game: SuiteGame,
    facts: Vec<Fact>,
    score: i64,
}

impl SuiteEnv {
    /// Wrap the game's bridge.
    pub fn new(inner: Box<dyn Environment>, game: SuiteGame) -> Self {
        Self {
            inner,
            game,
            facts: Vec::new(),
            score: 0,
        }
    }

    /// The state the agent sees: Cleaning's reward and score from state changes.
    fn rescore(&mut self, mut state: GameState) -> GameState {
        if self.game == SuiteGame::Clean {
            let now = state.facts.clone().unwrap_or_default();
            state.reward = cleaning_reward(&self.facts, &now);
            self.score += state.reward;
            self.facts = now;
            state.score = self.score;
            state.max_score = CLEAN_MAX_SCORE;
            state.won = self.score >= CLEAN_MAX_SCORE;
            state.done = state.done || state.won;
        }
        state
    }
}

#[async_trait]
impl Environment for SuiteEnv {
    async fn reset(&mut self) -> Result<GameState, EnvError> {
        let mut state = self.inner.reset().await?;
        self.facts = state.facts.clone().unwrap_or_default();
        self.score = 0;
        if !self.game.task().is_empty() {
            state.observation = format!("{}\n{}", state.observation.trim_end(), self.game.task());
        }
        state.objective = self.game.main_goal().to_string();
        if !self.game.is_jericho() {
            state.walkthrough = self
                .game
                .walkthrough()
                .map(|w| w.iter().map(|c| c.to_string()).collect());
        }
        let mut state = self.rescore(state);
        state.reward = 0;
        Ok(state)
    }

    async fn step(&mut self, command: &str) -> Result<GameState, EnvError> {
        let state = self.inner.step(command).await?;
        Ok(self.rescore(state))
    }

    async fn close(self: Box<Self>) {
        self.inner.close().await;
    }
}

#[cfg(test)]
mod tests;
