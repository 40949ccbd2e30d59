"""Write tests/fixtures/reference_prompts.json: per LLM call of the `paper` profile, each
line of the reference's prompt (AIRI-Institute/AriGraph at commit e884b76) with its file and
line, and the form changes Ariadne makes with their reasons.

Usage: python3 scripts/reference_prompts.py REFERENCE_GIT_DIR tests/fixtures/reference_prompts.json
(REFERENCE_GIT_DIR: a clone of AIRI-Institute/AriGraph; the lines are read at HEAD.)
tests/reference_prompts.rs checks every rendered `paper` prompt against the file.
"""
import json
import re
import subprocess
import sys

REPO = sys.argv[1]
def src(path):
    return subprocess.run(["git", "-C", REPO, "show", f"HEAD:{path}"], capture_output=True, text=True).stdout.split("\n")

def block(path, start_marker, end_marker=None, first_line_strip=None):
    """Lines of a triple-quoted literal starting on the line that contains start_marker."""
    lines = src(path)
    i = next(k for k, l in enumerate(lines) if start_marker in l)
    out = []
    k = i
    while True:
        l = lines[k]
        text = l
        if k == i:
            text = l.split(start_marker, 1)[1]
        end = None
        for q in ('"""', "'''"):
            if q in text:
                end = text.index(q)
        if end is not None and (k != i or True):
            t = text[:end]
            if t.strip():
                out.append((f"{path}:{k+1}", t))
            break
        if text.strip():
            out.append((f"{path}:{k+1}", text))
        k += 1
    return out

def norm(t):
    t = re.sub(r"\{[a-z_0-9]+\}", "{}", t)
    return t.strip()

def clean(pairs):
    return [[where, norm(t)] for where, t in pairs if norm(t)]

plan_sys = clean(block("prompts/system_prompts.py", 'system_plan_agent = """'))
act_sys = clean(block("prompts/system_prompts.py", 'system_action_agent_sub_expl = """'))
exp_sys = clean(block("prompts/system_prompts.py", 'if_exp_prompt = """'))
dflt_sys = clean(block("prompts/system_prompts.py", "default_system_prompt = '''"))
summ_sys = clean(block("prompts/system_prompts.py", 'summary_prompt = """'))
refine = clean(block("prompts/prompts.py", 'prompt_refining_items = """'))
extract = clean(block("prompts/prompts.py", "prompt_extraction_current = '''"))

def fstring_after(path, def_name, nth_prompt=0):
    """The lines of the f'''...''' prompt inside a function, and the lines added to it."""
    lines = src(path)
    d = next(k for k, l in enumerate(lines) if l.startswith(f"def {def_name}("))
    out = []
    k = d + 1
    while k < len(lines) and not lines[k].startswith("def "):
        l = lines[k]
        m = re.search(r"prompt \+?= f?'''(.*)", l) or re.search(r'prompt \+?= f?"""(.*)', l)
        if m and not l.strip().startswith("#"):
            text = m.group(1)
            j = k
            while True:
                for q in ("'''", '"""'):
                    if q in text:
                        text = text[:text.index(q)]
                        if text.replace("\\n", "").strip():
                            out.append((f"{path}:{j+1}", text.replace("\\n", "")))
                        break
                else:
                    if text.replace("\\n", "").strip():
                        out.append((f"{path}:{j+1}", text.replace("\\n", "")))
                    j += 1
                    text = lines[j]
                    continue
                break
            k = j
        k += 1
    return clean(out)

entries = []
SYSTEM = {}
exec("\n".join(src("prompts/system_prompts.py")), SYSTEM)
SYSTEM_OF = {"plan": SYSTEM["system_plan_agent"], "action": SYSTEM["system_action_agent_sub_expl"],
             "explore": SYSTEM["if_exp_prompt"], "key_items": SYSTEM["default_system_prompt"],
             "summary": SYSTEM["summary_prompt"], "outdated": "You are a helpful assistant",
             "extract_triplets": "You are a helpful assistant", "importance": "You are a helpful assistant"}


def add(call, template, design, source, lines, form, user=None):
    entry = {"call": call, "template": template, "design": design, "source": source,
             "lines": lines, "form": form}
    if call in SYSTEM_OF:
        entry["system"] = SYSTEM_OF[call].strip()
    if user is not None:
        entry["user"] = user
    entries.append(entry)


def user_text(path, def_name, lists):
    """The user message the reference's function builds, every variable a `{}` marker
    (the names in `lists` as a one-item list, as the pipeline passes them), with its
    exploration branch taken: the whole text, blank lines and spaces included."""
    lines = src(path)
    d = next(k for k, l in enumerate(lines) if l.startswith(f"def {def_name}("))
    k = next(i for i in range(d, len(lines)) if lines[i].strip().startswith("prompt = f"))
    end = next(i for i in range(k, len(lines)) if "cost" in lines[i] and "generate(" in lines[i])
    code = "\n".join(l[4:] if l.startswith("    ") else l for l in lines[k:end])
    names = ["main_goal", "observations", "observation", "subgraph", "top_episodic", "plan0",
             "all_unexpl_exits", "valid_actions", "n_prev", "topk_episodic", "summary"]
    ns = {n: (["{}"] if n in lists else "{}") for n in names}
    ns["if_explore"] = True
    ns["need_exp"] = True
    exec(code, ns)
    return ns["prompt"]

arigraph_plan = fstring_after("pipeline_arigraph.py", "planning")
arigraph_act = fstring_after("pipeline_arigraph.py", "choose_action")

def concat_lines(path, def_name):
    lines = src(path)
    d = next(k for k, l in enumerate(lines) if f"def {def_name}(" in l)
    out = []
    k = d + 1
    while "response, cost" not in lines[k]:
        l = lines[k].strip()
        l = re.sub(r"^prompt = ", "", l)
        l = re.sub(r"\s*\+\s*\\$", "", l)
        l = re.sub(r"\.format\([a-z_]+\)$", "", l)
        if (l.startswith('"') and l.endswith('"')) or (l.startswith("'") and l.endswith("'")):
            l = l[1:-1]
        for part in l.split("\\n"):
            if part.strip():
                out.append((f"{path}:{k+1}", part))
        k += 1
    return clean(out)

HELPFUL = [["pipeline_arigraph.py:67", "You are a helpful assistant"]]
JSON_PLAN = []
ACTION_FREE = ["Possible actions in current situation: write one command for the game's parser, as a player types it"]

for design, path, lists in [("arigraph", "pipeline_arigraph.py", ["subgraph", "top_episodic", "valid_actions"]),
                            ("full-history", "pipeline_fullhist.py", ["observations", "valid_actions"]),
                            ("summary", "pipeline_summary.py", ["valid_actions"]),
                            ("rag", "pipeline_smartrag.py", ["observations", "valid_actions"])]:
    add("plan", "plan_reference", design, f"prompts/system_prompts.py (system_plan_agent), {path} (planning)",
        plan_sys + fstring_after(path, "planning"), [], user_text(path, "planning", lists))
    add("action", "action_reference", design, f"prompts/system_prompts.py (system_action_agent_sub_expl), {path} (choose_action)",
        act_sys + fstring_after(path, "choose_action"), [], user_text(path, "choose_action", lists))

key = concat_lines("agents/parent_agent.py", "item_processing_scores")
key_form = [['{"items": [{"entity": "entity_1", "relevance": score1}, {"entity": "entity_2", "relevance": score2}, ...]}',
             "form: the reference's answer is a dictionary {entity: score}; a list of objects keeps the entities' order and lets a JSON schema bound each relevance to 1-2"]]
add("key_items", "key_items_reference", "arigraph", "prompts/system_prompts.py (default_system_prompt), agents/parent_agent.py (item_processing_scores)",
    dflt_sys + [l for l in key if not l[1].startswith('{"entity_1"')], key_form)
add("explore", "explore_reference", "arigraph", "prompts/system_prompts.py (if_exp_prompt), pipeline_arigraph.py (run)",
    exp_sys + [["pipeline_arigraph.py:100", "Plan:"], ["pipeline_arigraph.py:100", "{}"]],
    [['Answer with JSON only: {"explore": true or false}', "form: the reference reads \"True\" anywhere in a text answer; a JSON boolean is the same answer, schema-checked"]])
warn = 'Warning! Replacing must be generated strictly in following format: [[outdated_triplet_1 -> actual_triplet_1], [outdated_triplet_2 -> actual_triplet_2], ...], you MUST NOT include any descriptions in answer.'
add("outdated", "outdated_reference", "arigraph", "graphs/contriever_graph.py (update), prompts/prompts.py (prompt_refining_items)",
    HELPFUL + [l for l in refine if l[1] != warn],
    [['Warning! Replacing must be generated strictly in following format: {"replacing": [["outdated_triplet_1", "actual_triplet_1"], ["outdated_triplet_2", "actual_triplet_2"], ...]}, you MUST NOT include any descriptions in answer.',
      "form: the replacement pairs as JSON arrays instead of the reference's `[[old -> new], ...]` text, the same pairs; the old triplet is matched exactly as the reference matches it"]])
fmt = 'Remember that triplets must be extracted in format: "subject_1, relation_1, object_1; subject_2, relation_2, object_2; ..."'
add("extract_triplets", "extract_reference", "arigraph", "graphs/contriever_graph.py (update), prompts/prompts.py (prompt_extraction_current)",
    HELPFUL + [l for l in extract if l[1] != fmt],
    [['Remember that triplets must be extracted as JSON on one line: {"triplets": [["subject_1", "relation_1", "object_1"], ["subject_2", "relation_2", "object_2"], ...]}',
      "form: the triplets as JSON arrays of three strings instead of the reference's `s, r, o; ...` text"]])

add("summary", "summary_reference", "summary", "prompts/system_prompts.py (summary_prompt), pipeline_summary.py (get_summary)",
    summ_sys + fstring_after("pipeline_summary.py", "get_summary"),
    [['Answer with JSON only: {"summary": "your summary"}', "form: the summary as a JSON string; the reference takes the whole answer as the summary"]])
add("importance", "importance_reference", "rag", "pipeline_smartrag.py (agent_score, get_score)",
    [["pipeline_smartrag.py:41", "You are a helpful assistant"]] + fstring_after("pipeline_smartrag.py", "get_score"),
    [['Answer with JSON only: {"importance": your rating}', "form: the rating as a JSON integer bounded to 1-10; the reference reads the first integer of the answer"]])
reflex = clean(block("prompts/prompts.py", "reflex_prompt = '''"))
add("lesson", "lesson_reference", "reflexion", "prompts/prompts.py (reflex_prompt)",
    reflex,
    [["You are a helpful assistant", "the reference calls `reflex_prompt` from no pipeline, so no system prompt of its goes with it: Ariadne sends its agents' default for calls without a role (`graphs/contriever_graph.py`'s)"],
     ['Answer with JSON only: {"lesson": "your answer"}', "form: the lesson as a JSON string"]])

qa_key = concat_lines("agents/parent_agent.py", "item_processing_scores_qa")
SYSTEM_OF["qa_key_items"] = "You are a helpful assistant"
add("qa_key_items", "qa_key_items", "arigraph", "musique_test_big.py (load_setup), agents/parent_agent.py (item_processing_scores_qa)",
    [["musique_test_big.py:117", "You are a helpful assistant"]] + [l for l in qa_key if not l[1].startswith('{"entity_1"')],
    [['{"items": [{"entity": "entity_1", "relevance": score1}, {"entity": "entity_2", "relevance": score2}, ...]}',
      "form: the reference's answer is a dictionary {entity: score}; a list of objects keeps the entities' order and lets a JSON schema bound each relevance to 1-3"]])


def qa_answer_user():
    """`get_answer`'s prompt, every variable a `{}` marker (the lists as one-item lists),
    with the two lines of its text answer format given as the JSON form."""
    lines = src("musique_test_big.py")
    d = next(k for k, l in enumerate(lines) if l.startswith("def get_answer("))
    k = next(i for i in range(d, len(lines)) if lines[i].strip().startswith("prompt = f"))
    end = next(i for i in range(k, len(lines)) if "return agent.generate(prompt)" in lines[i])
    # Only the statement's first line is de-indented: the others are inside the string.
    code = "\n".join([lines[k].strip()] + lines[k + 1:end])
    ns = {"question": "{}", "subgraph": ["{}"], "episodic": ["{}"]}
    exec(code, ns)
    return ns["prompt"].replace('"CoT: your chain of thoughts\n    Direct answer: your direct answer to the question"', QA_FORM)


QA_FORM = '{"chain_of_thoughts": "your chain of thoughts", "direct_answer": "your direct answer to the question"}'
SYSTEM_OF["qa_answer"] = "You are a helpful assistant"
qa_lines = [l for l in fstring_after("musique_test_big.py", "get_answer")
            if l[1] not in ('"CoT: your chain of thoughts', 'Direct answer: your direct answer to the question"')]
add("qa_answer", "qa_answer", "arigraph", "musique_test_big.py (load_setup, get_answer)",
    [["musique_test_big.py:123", "You are a helpful assistant"]] + qa_lines,
    [[QA_FORM, "form: the chain of thought and the direct answer as JSON fields instead of the reference's two text lines `CoT: ...` and `Direct answer: ...` (which the reference splits at `Direct answer:`)"]],
    qa_answer_user())

json.dump({"reference": "AIRI-Institute/AriGraph", "commit": "e884b76", "calls": entries}, open(sys.argv[2], "w"), indent=1, ensure_ascii=False)
