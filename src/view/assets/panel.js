// ariadne view: the step panel (what the agent saw, remembered, retrieved, planned and
// did, and every LLM call) and the vertex and episode boxes over the graph.
const Panel = (() => {
  let picked = null; // vertex index shown in the box, or null
  let pickedEpisode = null;

  function section(title, ...body) {
    const kids = body.flat().filter((x) => x !== null && x !== undefined && x !== false);
    if (!kids.length) return null;
    return el("div", { class: "sec" }, el("h4", {}, title), kids);
  }

  function tripletList(ids, cls) {
    if (!ids.length) return null;
    return el("ul", { class: "triplets" }, ids.map((ti) => el("li", { class: cls }, tripletText(ti))));
  }

  function callBox(c, n) {
    const u = c.usage || {};
    const cached = u.cached_tokens ? " (" + fmtInt(u.cached_tokens) + " cached)" : "";
    const head = el("summary", {},
      el("b", {}, c.purpose), c.attempt > 1 ? " retry " + c.attempt : "",
      " · " + fmtInt(u.prompt_tokens) + " prompt + " + fmtInt(u.completion_tokens) +
      " completion tokens" + cached + " · " + fmtSec(c.latency_ms),
      c.error ? el("span", { class: "err" }, " · rejected") : "");
    return el("details", { class: "call", "data-call": n }, head,
      c.messages.map(([role, ti]) => el("details", {},
        el("summary", {}, el("span", { class: "role" }, role), " · " + fmtInt(text(ti).length) + " characters"),
        el("pre", {}, text(ti)))),
      el("div", { class: "role" }, "answer"), el("pre", {}, text(c.answer) || "(none)"),
      c.error ? el("div", { class: "err" }, "rejected: " + c.error) : null);
  }

  function show(i) {
    const s = STEPS[i];
    const pane = document.getElementById("step-pane");
    const badges = [];
    if (s.won) badges.push(el("span", { class: "badge won" }, "won"));
    if (s.lost) badges.push(el("span", { class: "badge lost" }, "lost"));
    if (s.done && !s.won && !s.lost) badges.push(el("span", { class: "badge" }, "game over"));
    const route = s.route ? "route to " + s.route.target + ", move " + s.route.index + " of " + s.route.length : null;
    const g = s.graph || {};
    const mismatch = DATA.has_graph && g.semantic_edges !== s.alive
      ? el("div", { class: "warn" }, "rebuilt from the log: " + s.alive + " triplets; the run recorded " + g.semantic_edges)
      : null;
    const t = s.timings || {};
    pane.replaceChildren(...[
      el("h2", {}, "Step " + s.step, s.room ? " · " + s.room : "",
        " · score " + s.score + " / " + s.max_score,
        s.reward ? el("span", { class: "badge won" }, (s.reward > 0 ? "+" : "") + s.reward) : "", badges),
      section("Action",
        el("div", {}, el("span", { class: "action" }, s.action || "(none)"),
          el("span", { class: "badge " + s.action_source }, s.action_source),
          s.command && s.command !== s.action ? el("span", { class: "muted" }, " sent: " + s.command) : ""),
        route ? el("div", { class: "muted" }, route) : null,
        s.rationale ? el("div", {}, el("span", { class: "muted" }, "rationale: "), s.rationale) : null),
      section("Observation", el("pre", {}, text(s.observation))),
      section("The game answered", el("pre", {}, text(s.feedback))),
      section("Inventory", el("pre", {}, text(s.inventory))),
      section("Plan", s.plan.length ? el("ol", { class: "plan" }, s.plan.map((p) =>
        el("li", {}, p.sub_goal, el("div", { class: "reason" }, p.reason)))) : null),
      section("Warnings", s.warnings.length ? el("ul", { class: "plain warn" }, s.warnings.map((w) => el("li", {}, w))) : null),
      section("Memory update",
        DATA.has_graph ? el("div", { class: "muted" }, s.extracted + " extracted, " + s.checked +
          " old triplets checked; after the step " + fmtInt(g.semantic_vertices) + " vertices, " +
          fmtInt(g.semantic_edges) + " triplets, " + fmtInt(g.episodic_vertices) + " episodic vertices") : null,
        tripletList(s.added, "added"), tripletList(s.removed, "removed"), mismatch),
      section("Retrieved",
        s.retrieval.length ? el("ul", { class: "triplets" }, s.retrieval.map((r) =>
          el("li", { class: "retrieved" }, r.text,
            el("span", { class: "muted" }, " · depth " + r.depth + " · similarity " + Number(r.similarity).toFixed(3))))) : null,
        s.episodes.map((e) => el("details", {},
          el("summary", {}, "episode of step ", stepLink(e.step),
            el("span", { class: "muted" }, " score " + Number(e.score).toFixed(3) + (e.total ? " (" + e.n + " of " + e.total + " triplets)" : ""))),
          el("pre", {}, text(e.observation)))),
        s.notes.length ? el("ul", { class: "plain" }, s.notes.map((n) => el("li", {}, n))) : null,
        s.queries.length ? el("details", {}, el("summary", {}, s.queries.length + " queries"),
          s.queries.map((q) => el("pre", {}, text(q)))) : null),
      section("Navigation",
        s.unexplored.length ? el("div", {}, "unexplored exits: " + s.unexplored.map((u) => u.room + " " + u.direction).join(", ")) : null,
        s.go_to.length ? el("div", {}, "go to: " + s.go_to.join(", ")) : null),
      section("LLM calls",
        el("div", { class: "muted" }, s.calls.length + " chat calls, " + fmtInt(s.usage.prompt_tokens) +
          " prompt + " + fmtInt(s.usage.completion_tokens) + " completion tokens" +
          (s.failures ? ", " + s.failures + " rejected" : "") + (s.repairs ? ", " + s.repairs + " repaired" : "") +
          "; " + s.embeds.calls + " embedding calls (" + s.embeds.texts + " texts, " + fmtSec(s.embeds.latency_ms) + ")"),
        el("div", { class: "muted" }, "step " + fmtSec(t.total_ms) + ": LLM " + fmtSec(t.llm_ms) +
          ", game " + fmtSec(t.env_ms) + ", agent " + fmtSec(t.agent_ms) +
          (t.wait_ms ? ", waiting on retries " + fmtSec(t.wait_ms) : "")),
        s.calls.map(callBox)),
      section("Admissible commands", s.admissible.length ? el("details", {},
        el("summary", {}, s.admissible.length + " commands"), el("pre", {}, s.admissible.join("\n"))) : null),
    ].filter((x) => x !== null));
    if (picked !== null) vertex(picked);
    else if (pickedEpisode !== null) episode(pickedEpisode);
  }

  function box(title, ...body) {
    const info = document.getElementById("vertex-info");
    info.replaceChildren(
      el("button", { class: "close", title: "close", onclick: close }, "×"),
      el("h3", {}, title), ...body.flat().filter((x) => x !== null && x !== undefined && x !== false));
    info.hidden = false;
  }

  function close() {
    picked = null;
    pickedEpisode = null;
    setHash("vertex", null);
    document.getElementById("vertex-info").hidden = true;
    Graph.markPicked();
  }

  // Triplets of a vertex now and at other steps, and the steps that mention it.
  function vertex(vi) {
    picked = vi;
    pickedEpisode = null;
    setHash("vertex", DATA.vertices[vi][0]);
    Graph.markPicked();
    const name = DATA.vertices[vi][0];
    const step = STEPS[App.index] ? STEPS[App.index].step : 0;
    const now = [];
    const other = [];
    const mine = new Set();
    DATA.triplets.forEach((t, ti) => {
      if (t.s !== vi && t.o !== vi) return;
      mine.add(ti);
      if (aliveAt(ti, step)) now.push(ti);
      else other.push(ti);
    });
    const spans = (ti) => DATA.triplets[ti].alive.map((a) => a[1] === null ? a[0] + "-" : a[0] + "-" + (a[1] - 1)).join(", ");
    const lower = name.toLowerCase();
    const mentions = STEPS.filter((s) =>
      s.added.concat(s.removed, s.retrieved).some((ti) => mine.has(ti)) ||
      text(s.observation).toLowerCase().includes(lower) || text(s.feedback).toLowerCase().includes(lower));
    box(name,
      el("div", { class: "muted" }, now.length + " triplets at step " + step),
      tripletList(now, ""),
      other.length ? el("details", {}, el("summary", {}, other.length + " triplets at other steps"),
        el("ul", { class: "triplets" }, other.map((ti) => el("li", {}, tripletText(ti),
          el("span", { class: "muted" }, " (steps " + spans(ti) + ")"))))) : null,
      el("div", {}, "mentioned at steps: ", mentions.length ? mentions.map((s) => stepLink(s.step)) : "none"));
  }

  function episode(k) {
    pickedEpisode = k;
    picked = null;
    setHash("vertex", null);
    Graph.markPicked();
    const e = DATA.episodes[k];
    const s = STEPS[indexOfStep(e.step)];
    box("Episodic vertex of step " + e.step,
      el("div", {}, stepLink(e.step)),
      el("pre", {}, s && s.step === e.step ? text(s.observation) : ""),
      el("div", { class: "muted" }, e.triplets.length + " triplets in its episodic edge"),
      tripletList(e.triplets, ""));
  }

  return { show, vertex, episode, pickedVertex: () => picked };
})();
