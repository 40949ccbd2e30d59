//! The command language of a game family ([`CommandGrammar`]): the command templates its
//! parser accepts, the directions it names, and the answers with which it refuses a
//! command. Read by the agent when it writes free-text commands (rule `game-commands`),
//! never by the games themselves. A leaf of `env`.
//!
//! Sources: TextWorld's grammar (`textworld/generator/data/text_grammars`, the verbs of
//! its `tw-*` games: Côté et al. 2018); TextWorld-Express's action set (Jansen & Côté
//! 2022: the verbs of the `validActions` and gold paths of its 8 games); ScienceWorld's
//! action templates (Wang et al. 2022: `get_possible_actions`, less `reset task`); for human-written interactive fiction,
//! the verbs every Inform and Infocom parser knows (the Inform Designer's Manual's
//! standard library grammar).

use serde::{Deserialize, Serialize};

/// A game family's command language (`textworld`, `textworld-express`, `scienceworld`,
/// `interactive-fiction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum CommandGrammar {
    /// TextWorld's generated games (`tw-*`, the paper's Treasure Hunt, Cleaning and
    /// Cooking): an Inform 7 parser over a fixed verb set.
    TextWorld,
    /// TextWorld-Express: a fixed action set (`move north`, `open door to north`).
    TextworldExpress,
    /// ScienceWorld: its action templates (`pick up OBJ`, `move OBJ to OBJ`, `go to OBJ`).
    ScienceWorld,
    /// Human-written interactive fiction (Jericho, any z-machine story): each story has
    /// verbs of its own, so the templates are the common ones, shown as examples and not
    /// enforced.
    InteractiveFiction,
}

/// A slot of a template: a thing as the game names it.
pub const OBJ: &str = "OBJ";
/// A slot of a template: one of the family's directions.
pub const DIR: &str = "DIR";

/// Answers with which parsers say they did not understand a command (lowercase,
/// matched anywhere in the game's answer): TextWorld-Express's "Unknown action: I'm not
/// sure what you mean.", ScienceWorld's "No known action matches that input.", Inform's
/// "That's not a verb I recognise." and "I didn't understand that sentence.", Infocom's
/// "I beg your pardon?". The agent also reads the answers that refuse a command the
/// parser understood ("You can't see any such thing.", "It is locked.") as refusals
/// (`agent::progress::succeeded`).
pub const REFUSALS: &[&str] = &[
    "unknown action",
    "no known action matches",
    "not a verb i recogni",
    "i didn't understand",
    "you used the word",
    "i beg your pardon",
    "is not here",
];

impl CommandGrammar {
    /// Every grammar, in the order tables list them.
    pub const ALL: [CommandGrammar; 4] = [
        CommandGrammar::TextWorld,
        CommandGrammar::TextworldExpress,
        CommandGrammar::ScienceWorld,
        CommandGrammar::InteractiveFiction,
    ];

    /// The name flags, protocol lines and manifests use.
    pub fn name(self) -> &'static str {
        match self {
            CommandGrammar::TextWorld => "textworld",
            CommandGrammar::TextworldExpress => "textworld-express",
            CommandGrammar::ScienceWorld => "scienceworld",
            CommandGrammar::InteractiveFiction => "interactive-fiction",
        }
    }

    /// The family's command templates: words, with [`OBJ`] for a thing and [`DIR`] for a
    /// direction.
    pub fn templates(self) -> &'static [&'static str] {
        match self {
            CommandGrammar::TextWorld => TEXTWORLD,
            CommandGrammar::TextworldExpress => TEXTWORLD_EXPRESS,
            CommandGrammar::ScienceWorld => SCIENCEWORLD,
            CommandGrammar::InteractiveFiction => INTERACTIVE_FICTION,
        }
    }

    /// The directions the family's moves take.
    pub fn directions(self) -> &'static [&'static str] {
        match self {
            CommandGrammar::TextWorld | CommandGrammar::TextworldExpress => {
                &["north", "south", "east", "west"]
            }
            CommandGrammar::ScienceWorld => &[],
            CommandGrammar::InteractiveFiction => &[
                "north",
                "south",
                "east",
                "west",
                "northeast",
                "northwest",
                "southeast",
                "southwest",
                "up",
                "down",
            ],
        }
    }

    /// Whether the parser accepts only its templates (the generated families), so the
    /// answer is held to them; a human-written story has verbs of its own, and its
    /// templates are examples.
    pub fn closed(self) -> bool {
        !matches!(self, CommandGrammar::InteractiveFiction)
    }

    /// Whether the parser names things without articles (`take coin`, not `take the
    /// coin`): TextWorld-Express and ScienceWorld match object names word for word.
    pub fn without_articles(self) -> bool {
        matches!(
            self,
            CommandGrammar::TextworldExpress | CommandGrammar::ScienceWorld
        )
    }

    /// The command that only looks: the fallback when no valid command was written.
    pub fn look(self) -> &'static str {
        self.templates()[0]
    }

    /// The commands that go or open the way one direction (`move north`, `open door to
    /// north`), in template order; none for a family without directions.
    pub fn moves(self, direction: &str) -> Vec<String> {
        self.templates()
            .iter()
            .filter(|t| t.split(' ').any(|w| w == DIR) && !t.starts_with("close "))
            .map(|t| t.replace(DIR, direction))
            .collect()
    }

    /// The grammar a game harness names (TALES's environment names: `TWXCoinCollector`,
    /// `ScienceWorldBoil`, `JerichoEnvZork1`, `TWCookingLevel1`; any case, so
    /// `twx-cookingworld` too), or `None`.
    pub fn of_game_name(name: &str) -> Option<Self> {
        let name = name.to_lowercase();
        let prefixed = |p: &str| name.starts_with(p);
        if prefixed("twx") {
            Some(CommandGrammar::TextworldExpress)
        } else if prefixed("scienceworld") {
            Some(CommandGrammar::ScienceWorld)
        } else if prefixed("jericho") {
            Some(CommandGrammar::InteractiveFiction)
        } else if prefixed("tw") {
            Some(CommandGrammar::TextWorld)
        } else {
            None
        }
    }
}

/// Whether `answer`, the game's text after a command, says the parser did not
/// understand it ([`REFUSALS`]).
pub fn refuses(answer: &str) -> bool {
    let lower = answer.to_lowercase().replace('\u{2019}', "'");
    REFUSALS.iter().any(|r| lower.contains(r))
}

impl std::fmt::Display for CommandGrammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<String> for CommandGrammar {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<CommandGrammar> for &'static str {
    fn from(g: CommandGrammar) -> &'static str {
        g.name()
    }
}

impl std::str::FromStr for CommandGrammar {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let names: Vec<&str> = Self::ALL.iter().map(|g| g.name()).collect();
        Self::ALL
            .into_iter()
            .find(|g| g.name() == s.trim())
            .ok_or_else(|| format!("`grammar` must be one of {}, got {s:?}", names.join(", ")))
    }
}

/// TextWorld's commands (its Inform 7 grammar's verbs).
const TEXTWORLD: &[&str] = &[
    "look",
    "inventory",
    "go DIR",
    "examine OBJ",
    "take OBJ",
    "take OBJ from OBJ",
    "drop OBJ",
    "put OBJ on OBJ",
    "put OBJ in OBJ",
    "insert OBJ into OBJ",
    "open OBJ",
    "close OBJ",
    "unlock OBJ with OBJ",
    "lock OBJ with OBJ",
    "eat OBJ",
    "drink OBJ",
    "cook OBJ with OBJ",
    "slice OBJ with OBJ",
    "chop OBJ with OBJ",
    "dice OBJ with OBJ",
    "prepare meal",
];

/// TextWorld-Express's commands (the verbs of its 8 games' valid actions and gold paths).
const TEXTWORLD_EXPRESS: &[&str] = &[
    "look around",
    "inventory",
    "task",
    "move DIR",
    "open door to DIR",
    "close door to DIR",
    "take OBJ",
    "put OBJ in OBJ",
    "open OBJ",
    "close OBJ",
    "read OBJ",
    "examine OBJ",
    "eat OBJ",
    "smell OBJ",
    "touch OBJ",
    "cook OBJ in OBJ",
    "slice OBJ",
    "chop OBJ",
    "dice OBJ",
    "prepare meal",
];

/// ScienceWorld's action templates (`get_possible_actions`, less `reset task`).
const SCIENCEWORLD: &[&str] = &[
    "look around",
    "inventory",
    "task",
    "go to OBJ",
    "look at OBJ",
    "look in OBJ",
    "read OBJ",
    "pick up OBJ",
    "put down OBJ",
    "move OBJ to OBJ",
    "open OBJ",
    "close OBJ",
    "activate OBJ",
    "deactivate OBJ",
    "use OBJ on OBJ",
    "connect OBJ to OBJ",
    "disconnect OBJ",
    "pour OBJ in OBJ",
    "dunk OBJ in OBJ",
    "mix OBJ",
    "eat OBJ",
    "flush OBJ",
    "focus on OBJ",
    "wait",
    "wait1",
];

/// The commands every Inform and Infocom parser knows; a story has more of its own.
const INTERACTIVE_FICTION: &[&str] = &[
    "look",
    "inventory",
    "DIR",
    "examine OBJ",
    "take OBJ",
    "drop OBJ",
    "open OBJ",
    "close OBJ",
    "read OBJ",
    "put OBJ in OBJ",
    "put OBJ on OBJ",
    "unlock OBJ with OBJ",
    "turn on OBJ",
    "turn off OBJ",
    "push OBJ",
    "pull OBJ",
    "enter OBJ",
    "search OBJ",
    "give OBJ to OBJ",
    "ask OBJ about OBJ",
    "wear OBJ",
    "eat OBJ",
    "wait",
    "help",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each family's parser refusals are read as such; ordinary answers are not.
    #[test]
    fn parser_refusals_are_recognised_by_family() {
        for answer in [
            "Unknown action: I'm not sure what you mean.",
            "No known action matches that input.",
            "That's not a verb I recognise.",
            "I didn\u{2019}t understand that sentence.",
        ] {
            assert!(refuses(answer), "{answer}");
        }
        for answer in [
            "You take the coin.",
            "You move north.\n\nYou are in the kitchen.",
            "The door is now open.",
        ] {
            assert!(!refuses(answer), "{answer}");
        }
    }

    /// TALES's environment names give their families; other names give none.
    #[test]
    fn harness_names_give_families() {
        assert_eq!(
            CommandGrammar::of_game_name("TWXCoinCollector"),
            Some(CommandGrammar::TextworldExpress)
        );
        assert_eq!(
            CommandGrammar::of_game_name("ScienceWorldBoil"),
            Some(CommandGrammar::ScienceWorld)
        );
        assert_eq!(
            CommandGrammar::of_game_name("JerichoEnvZork1"),
            Some(CommandGrammar::InteractiveFiction)
        );
        assert_eq!(
            CommandGrammar::of_game_name("TWCookingLevel1"),
            Some(CommandGrammar::TextWorld)
        );
        assert_eq!(CommandGrammar::of_game_name("my-game"), None);
        assert_eq!(
            CommandGrammar::of_game_name("twx-cookingworld"),
            Some(CommandGrammar::TextworldExpress)
        );
        // The names the protocol and manifests use are the names serde reads and writes.
        for g in CommandGrammar::ALL {
            let json = serde_json::to_value(g).unwrap();
            assert_eq!(json, g.name());
            assert_eq!(serde_json::from_value::<CommandGrammar>(json).unwrap(), g);
        }
        let e = serde_json::from_value::<CommandGrammar>("text-world".into()).unwrap_err();
        assert!(
            e.to_string()
                .contains("`grammar` must be one of textworld,"),
            "{e}"
        );
        assert_eq!(
            CommandGrammar::TextworldExpress.moves("west"),
            ["move west", "open door to west"]
        );
        assert!(CommandGrammar::ScienceWorld.moves("west").is_empty());
        for g in CommandGrammar::ALL {
            assert_eq!(g.name().parse::<CommandGrammar>(), Ok(g));
            assert!(!g.templates().is_empty());
        }
    }
}
