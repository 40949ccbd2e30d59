// ariadne view: the page's state, the step slider, keys and the #step=N fragment.
// The other parts (graph.js, panel.js, charts.js) follow in the same <script>.
"use strict";

const DATA = JSON.parse(document.getElementById("run-data").textContent);
const TEXTS = DATA.texts;
const STEPS = DATA.steps;
const App = { index: 0 };

// Build an element: el("li", {class: "x", "data-id": 3}, "text", child, ...).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function text(i) { return typeof i === "number" ? (TEXTS[i] || "") : ""; }
function tripletText(id) {
  const t = DATA.triplets[id];
  return DATA.vertices[t.s][0] + ", " + t.r + ", " + DATA.vertices[t.o][0];
}
function aliveAt(id, step) {
  for (const span of DATA.triplets[id].alive) {
    if (span[0] <= step && (span[1] === null || step < span[1])) return true;
  }
  return false;
}
function fmtInt(n) { return Number(n || 0).toLocaleString("en-US"); }
function fmtSec(ms) { return (Number(ms || 0) / 1000).toFixed(ms < 10000 ? 2 : 1) + " s"; }

// A button that moves to a step (by number).
function stepLink(step) {
  return el("button", { class: "step-link", onclick: () => go(indexOfStep(step)) }, String(step));
}

// The index of the step numbered `n`, or of the last one before it.
function indexOfStep(n) {
  let best = 0;
  STEPS.forEach((s, i) => { if (s.step <= n) best = i; });
  return best;
}

// The address fragment: step=N, episodes=1 (show episodic vertices), vertex=NAME.
function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, "")); }

function stepFromHash() {
  const v = hashParams().get("step");
  return v && /^\d+$/.test(v) ? parseInt(v, 10) : null;
}

// Set (or, with null, drop) one fragment parameter without a new history entry.
function setHash(key, value) {
  if (!history.replaceState) return;
  const p = hashParams();
  if (value === null) p.delete(key);
  else p.set(key, String(value));
  history.replaceState(null, "", "#" + p.toString());
}

function go(i, fromHash) {
  if (!STEPS.length) return;
  i = Math.max(0, Math.min(STEPS.length - 1, i | 0));
  App.index = i;
  const s = STEPS[i];
  document.getElementById("slider").value = String(i);
  document.getElementById("step-label").textContent =
    "step " + s.step + " of " + STEPS[STEPS.length - 1].step;
  document.body.dataset.step = String(s.step);
  Graph.show(i);
  Panel.show(i);
  Charts.mark(s.step);
  if (!fromHash) setHash("step", s.step);
}

function runInfo() {
  const r = DATA.run;
  const sum = r.summary;
  const box = document.getElementById("run-info");
  box.append(
    el("span", { class: "game" }, r.game),
    el("span", {}, "memory ", el("b", {}, r.design)),
    el("span", {}, "model ", el("b", {}, r.model)),
    el("span", { class: "muted" }, r.run_id),
    el("span", { class: "muted" }, r.created_at.replace("T", " ").slice(0, 19)),
  );
  if (sum) {
    box.append(
      el("span", {}, "outcome ", el("span", { class: "badge " + sum.outcome }, sum.outcome)),
      el("span", {}, "score " + sum.score + " / " + sum.max_score +
        " (" + Number(sum.normalized_score).toFixed(2) + ")"),
      el("span", {}, sum.steps + " steps, " + fmtInt(sum.llm_calls) + " LLM calls"),
      el("span", {}, fmtInt(sum.usage.prompt_tokens) + " prompt + " +
        fmtInt(sum.usage.completion_tokens) + " completion tokens"),
      el("span", {}, Number(sum.wall_s).toFixed(1) + " s"),
    );
    if (sum.error) box.append(el("span", { class: "warn" }, "error: " + sum.error));
  } else {
    box.append(el("span", { class: "warn" }, "no summary.json (the run did not finish)"));
  }
  if (r.parent) {
    box.append(el("span", {}, "continued from ", el("b", {}, r.parent.run_id),
      " after step " + r.parent.step + " (steps 1-" + r.parent.step + " replayed from it)"));
  }
  if (r.trial) box.append(el("span", {}, "Reflexion trial " + r.trial + " of " + (r.trials || "?")));
  if (r.truncated) box.append(el("span", { class: "warn" }, "the last line of steps.jsonl was cut off and is not shown"));
  if (r.lessons.length || (sum && sum.lesson)) {
    box.append(el("details", {}, el("summary", {}, "lessons"),
      r.lessons.length ? el("div", {}, "given to this trial:", el("ul", { class: "plain" }, r.lessons.map((l) => el("li", {}, l)))) : null,
      sum && sum.lesson ? el("div", {}, "written after it: ", sum.lesson) : null));
  }
  box.append(callKinds(sum));
  box.append(el("details", {}, el("summary", {}, "settings"),
    el("pre", {}, "game " + r.game_path + "\nseed " + r.seed + ", step cap " + r.max_steps +
      ", command " + (r.command || "?") + ", ariadne " + (r.ariadne_version || "?") +
      "\nmemory " + JSON.stringify(r.memory))));
}

// Where the time goes, per call kind (the summary's `call_kinds`): calls, wall seconds
// per call and share of the calls' time, tokens per call, the cached share.
function callKinds(sum) {
  const kinds = sum && sum.call_kinds ? Object.entries(sum.call_kinds) : [];
  if (!kinds.length) return null;
  const total = kinds.reduce((a, [, k]) => a + k.latency_ms, 0);
  const heads = ["call kind", "calls", "s/call", "share of time", "prompt / completion tok/call", "cached"];
  const row = ([name, k]) => {
    const n = Math.max(k.calls, 1);
    const u = k.usage;
    return el("tr", {},
      el("td", {}, name),
      el("td", {}, fmtInt(k.calls)),
      el("td", {}, (k.latency_ms / 1000 / n).toFixed(1)),
      el("td", {}, total ? Math.round(100 * k.latency_ms / total) + "%" : "-"),
      el("td", {}, Math.round(u.prompt_tokens / n) + " / " + Math.round(u.completion_tokens / n)),
      el("td", {}, u.prompt_tokens ? Math.round(100 * u.cached_tokens / u.prompt_tokens) + "%" : "-"));
  };
  return el("details", { class: "call-kinds" }, el("summary", {}, "where the time goes"),
    el("table", {}, el("thead", {}, el("tr", {}, heads.map((h) => el("th", {}, h)))),
      el("tbody", {}, kinds.map(row))));
}

function onKey(e) {
  const t = e.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) {
    if (!(t.id === "show-episodes")) return;
  }
  const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
  if (e.key in moves) go(App.index + moves[e.key]);
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(STEPS.length - 1);
  else return;
  e.preventDefault();
}

function start() {
  if (DATA.version !== 1) {
    document.body.prepend(el("p", { class: "warn" }, "unknown page data version " + DATA.version));
  }
  runInfo();
  const slider = document.getElementById("slider");
  slider.max = String(Math.max(0, STEPS.length - 1));
  slider.addEventListener("input", () => go(parseInt(slider.value, 10)));
  document.getElementById("prev").addEventListener("click", () => go(App.index - 1));
  document.getElementById("next").addEventListener("click", () => go(App.index + 1));
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => {
    const n = stepFromHash();
    if (n !== null) go(indexOfStep(n), true);
  });
  const n = stepFromHash();
  const first = !STEPS.length ? -1 : n === null ? STEPS.length - 1 : indexOfStep(n);
  // The charts first: the graph takes the room they leave.
  Charts.init(document.getElementById("charts"));
  Graph.init(document.getElementById("graph"), first);
  if (first < 0) {
    document.getElementById("step-pane").append(el("p", { class: "warn" }, "This run has no step."));
    Graph.show(-1);
  } else {
    go(first, n !== null);
    const p = hashParams();
    if (p.get("episodes") === "1") Graph.setEpisodes(true);
    const name = (p.get("vertex") || "").toLowerCase();
    const vi = DATA.vertices.findIndex((v) => v[0].toLowerCase() === name);
    if (name && vi >= 0) Panel.vertex(vi);
  }
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  requestAnimationFrame(() => requestAnimationFrame(() => {
    document.body.dataset.paintedMs = String(Math.round(performance.now()));
  }));
}

document.addEventListener("DOMContentLoaded", start);
