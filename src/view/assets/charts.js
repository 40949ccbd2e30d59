// ariadne view: charts over the run as plain SVG, with a marker at the chosen step;
// a click on a chart moves to the nearest step.
const Charts = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const W = 300, H = 110, L = 34, R = 6, TOP = 6, B = 16;
  const charts = [];

  function svg(tag, attrs) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }

  function nice(max) {
    if (!(max > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(max)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
    return 10 * p;
  }

  function label(v) {
    if (Math.abs(v) >= 10000) return (v / 1000).toFixed(0) + "k";
    if (Math.abs(v) >= 1000) return (v / 1000).toFixed(1) + "k";
    return Number.isInteger(v) ? String(v) : v.toFixed(v < 1 ? 2 : 1);
  }

  // series: [{name, color, values: [number|null per step]}]
  function chart(key, title, series, fixedMax) {
    const xs = STEPS.map((s) => s.step);
    const x0 = xs[0], x1 = Math.max(xs[xs.length - 1], x0 + 1);
    let max = fixedMax || 0;
    if (!fixedMax) for (const s of series) for (const v of s.values) if (v !== null && v > max) max = v;
    max = fixedMax || nice(max);
    const px = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
    const py = (y) => TOP + (1 - y / max) * (H - TOP - B);
    const g = svg("svg", { viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", "data-chart": key });
    for (const y of [0, max / 2, max]) {
      g.append(svg("line", { x1: L, x2: W - R, y1: py(y), y2: py(y), stroke: "#e5e7eb" }));
      const t = svg("text", { x: L - 3, y: py(y) + 3, "text-anchor": "end" });
      t.textContent = label(y);
      g.append(t);
    }
    for (const [x, anchor] of [[x0, "start"], [x1, "end"]]) {
      const t = svg("text", { x: px(x), y: H - 3, "text-anchor": anchor });
      t.textContent = "step " + x;
      g.append(t);
    }
    for (const s of series) {
      let d = "";
      s.values.forEach((v, i) => {
        if (v === null || v === undefined) return;
        d += (d ? "L" : "M") + px(xs[i]).toFixed(1) + "," + py(Math.min(v, max)).toFixed(1);
      });
      if (d) g.append(svg("path", { d, fill: "none", stroke: s.color, "stroke-width": 1.6, "data-series": s.name }));
    }
    const marker = svg("line", { x1: 0, x2: 0, y1: TOP, y2: H - B, stroke: "#f0a400", "stroke-width": 2 });
    g.append(marker);
    g.addEventListener("click", (ev) => {
      const r = g.getBoundingClientRect();
      const x = x0 + ((ev.clientX - r.left) / r.width * W - L) / (W - L - R) * (x1 - x0);
      go(indexOfStep(Math.round(x)));
    });
    const legend = el("div", { class: "legend" }, series.map((s) =>
      el("span", {}, el("i", { class: "sw", style: "background:" + s.color }), s.name + " ")));
    const box = el("div", { class: "chart", "data-chart": key }, el("div", { class: "title" }, title), legend);
    box.append(g);
    charts.push({ marker, px, xs });
    return box;
  }

  function init(container) {
    if (!STEPS.length) return;
    const v = (f) => STEPS.map(f);
    const maxScore = Math.max(1, ...STEPS.map((s) => s.max_score));
    const list = [
      chart("score", "Score", [{ name: "score", color: "#1f9d3a", values: v((s) => s.score) }], maxScore),
      chart("graph", "Graph size (paper Fig. 5)", [
        { name: "semantic vertices", color: "#7d8fa3", values: v((s) => s.graph.semantic_vertices) },
        { name: "semantic edges", color: "#2f6fd6", values: v((s) => s.graph.semantic_edges) },
        { name: "episodic vertices", color: "#c79a1b", values: v((s) => s.graph.episodic_vertices) },
      ]),
      chart("tokens", "Tokens per step", [
        { name: "prompt", color: "#6d4fc2", values: v((s) => s.usage.prompt_tokens) },
        { name: "completion", color: "#d4572a", values: v((s) => s.usage.completion_tokens) },
      ]),
      chart("seconds", "Seconds per step", [
        { name: "step", color: "#1d2330", values: v((s) => s.timings.total_ms / 1000) },
        { name: "LLM", color: "#6d4fc2", values: v((s) => s.timings.llm_ms / 1000) },
      ]),
    ];
    if (STEPS.some((s) => s.world_model)) {
      list.push(chart("world-model", "World model vs ground truth", [
        { name: "precision", color: "#2f6fd6", values: v((s) => s.world_model ? s.world_model.precision : null) },
        { name: "named recall", color: "#1f9d3a", values: v((s) => s.world_model ? s.world_model.recall : null) },
        { name: "stated recall", color: "#c79a1b", values: v((s) => s.world_model && s.world_model.stated_recall != null ? s.world_model.stated_recall : null) },
      ], 1));
    }
    if (STEPS.some((s) => s.world_model && s.world_model.wrong_deletions != null)) {
      let total = 0;
      list.push(chart("wrong-deletions", "Wrong deletions (true facts removed)", [
        { name: "this step", color: "#d4572a", values: v((s) => s.world_model && s.world_model.wrong_deletions != null ? s.world_model.wrong_deletions : null) },
        { name: "so far", color: "#1d2330", values: v((s) => {
          if (s.world_model && s.world_model.wrong_deletions != null) total += s.world_model.wrong_deletions;
          return s.world_model ? total : null;
        }) },
      ]));
    }
    container.append(...list);
  }

  function mark(step) {
    for (const c of charts) {
      const x = c.px(step);
      c.marker.setAttribute("x1", x);
      c.marker.setAttribute("x2", x);
    }
  }

  return { init, mark };
})();
