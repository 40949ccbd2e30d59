//! The reference's Cooking commands (`utils/utils.py:361-377`, `action_processing` and
//! `action_deprocessing`, applied by `pipeline_arigraph.py:109` and `:200` in a Cooking
//! game): the game's `cook X with stove` is offered as `fry X with stove` (`oven`:
//! `roast`, `BBQ`: `grill`), as the paper's instructions to the players name the three
//! ways of cooking, and the command chosen is sent to the game as the game spells it.

/// The command as the reference offers it: `cook` replaced by `fry`, `roast` or `grill`
/// where the command names the stove, the oven or the BBQ (each test in the reference's
/// order, every `cook` of the command replaced, as Python's `str.replace` does).
pub fn as_offered(command: &str) -> String {
    let mut out = command.to_string();
    for (tool, verb) in [("stove", "fry"), ("oven", "roast"), ("BBQ", "grill")] {
        if out.contains("cook") && out.contains(tool) {
            out = out.replace("cook", verb);
        }
    }
    out
}

/// The admissible commands as offered in a Cooking game, each with the game's command
/// it stands for (`(offered, sent)`), in the game's order.
pub fn offered(admissible: &[String]) -> Vec<(String, String)> {
    admissible
        .iter()
        .map(|a| (as_offered(a), a.clone()))
        .collect()
}

/// The game's command for a chosen one: the command an offered one stands for, else the
/// choice as it is. (The reference maps back by replacing `fry`, `roast` and `grill`
/// with `cook` in any command, which also turns `take grilled carrot` into a command the
/// game refuses; only the commands it rewrote are mapped back here.)
pub fn as_sent(chosen: &str, offered: &[(String, String)]) -> String {
    offered
        .iter()
        .find(|(o, _)| o == chosen)
        .map_or_else(|| chosen.to_string(), |(_, sent)| sent.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand values: each tool's verb, commands without a tool or without `cook` as they
    /// are, and the choice sent back as the game spells it.
    #[test]
    fn cook_commands_are_offered_as_the_reference_rewrites_them() {
        assert_eq!(
            as_offered("cook carrot with stove"),
            "fry carrot with stove"
        );
        assert_eq!(
            as_offered("cook red potato with oven"),
            "roast red potato with oven"
        );
        assert_eq!(
            as_offered("cook yellow pepper with BBQ"),
            "grill yellow pepper with BBQ"
        );
        assert_eq!(as_offered("take grilled carrot"), "take grilled carrot");
        assert_eq!(as_offered("cook carrot"), "cook carrot");
        assert_eq!(as_offered("open oven"), "open oven");
        let offered = offered(&[
            "cook carrot with stove".to_string(),
            "take grilled carrot".to_string(),
        ]);
        assert_eq!(
            as_sent("fry carrot with stove", &offered),
            "cook carrot with stove"
        );
        assert_eq!(
            as_sent("take grilled carrot", &offered),
            "take grilled carrot"
        );
        assert_eq!(as_sent("go to kitchen", &offered), "go to kitchen");
    }
}
