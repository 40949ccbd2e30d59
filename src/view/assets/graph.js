// ariadne view: the semantic graph at the chosen step (Cytoscape.js, preset positions
// computed by Ariadne for the whole run, so nothing moves from step to step).
const Graph = (() => {
  let cy = null;
  let showEpisodes = false;
  let fitted = false;
  let edgeEls = null; // the triplet edges
  let nodeEls = null; // every node
  const current = new Map(); // element id -> the classes it was given last
  // Per episodic vertex: Map(vertex index -> the episode's triplets that touch it).
  const episodeEdges = [];

  const style = [
    { selector: "node", style: {
      "background-color": "#7d8fa3", "width": 12, "height": 12, "label": "data(label)",
      "font-size": 11, "color": "#1d2330", "text-valign": "bottom", "text-margin-y": 2,
      "min-zoomed-font-size": 7, "text-wrap": "ellipsis", "text-max-width": 140 } },
    { selector: "node.touched", style: { "background-color": "#1f9d3a" } },
    { selector: "node.picked", style: { "border-width": 3, "border-color": "#f0a400" } },
    { selector: "node.episode", style: {
      "shape": "round-rectangle", "width": 38, "height": 16, "background-color": "#f6ebc4",
      "border-width": 1, "border-style": "dashed", "border-color": "#b09030",
      "label": "data(label)", "text-valign": "center", "text-margin-y": 0, "font-size": 9 } },
    { selector: "edge", style: {
      "curve-style": "bezier", "width": 1.5, "line-color": "#aab4c0",
      "target-arrow-shape": "triangle", "target-arrow-color": "#aab4c0", "arrow-scale": 0.7,
      "label": "data(label)", "font-size": 9, "color": "#5b6472", "text-rotation": "autorotate",
      "min-zoomed-font-size": 8 } },
    { selector: "edge.retrieved", style: {
      "width": 3, "underlay-color": "#2f6fd6", "underlay-opacity": 0.35, "underlay-padding": 4,
      "line-color": "#2f6fd6", "target-arrow-color": "#2f6fd6" } },
    { selector: "edge.added", style: { "width": 3, "line-color": "#1f9d3a", "target-arrow-color": "#1f9d3a", "color": "#17802e" } },
    { selector: "edge.removed", style: {
      "width": 2.5, "line-color": "#dd3333", "target-arrow-color": "#dd3333", "line-style": "dashed",
      "color": "#c22" } },
    { selector: "edge.episodic", style: {
      "width": 1, "line-color": "#d2b860", "line-style": "dotted", "target-arrow-shape": "none",
      "label": "" } },
    { selector: ".hidden", style: { "display": "none" } },
  ];

  // The states of the triplets shown at step index i: Map(ti -> ["alive", "added", ...])
  // or ["removed"] for those removed at the step.
  function states(i) {
    const out = new Map();
    if (i < 0) return out;
    const s = STEPS[i];
    DATA.triplets.forEach((t, ti) => { if (aliveAt(ti, s.step)) out.set(ti, ["alive"]); });
    for (const ti of s.added) if (out.has(ti)) out.get(ti).push("added");
    for (const ti of s.retrieved) if (out.has(ti)) out.get(ti).push("retrieved");
    for (const ti of s.removed) if (!out.has(ti)) out.set(ti, ["removed"]);
    return out;
  }

  // The classes of every triplet edge and semantic vertex at step index i.
  function classes(i, st) {
    const edges = DATA.triplets.map((t, ti) => {
      const c = st.get(ti);
      return c ? "triplet " + c.join(" ") : "triplet hidden";
    });
    const shown = new Set();
    for (const ti of st.keys()) { shown.add(DATA.triplets[ti].s); shown.add(DATA.triplets[ti].o); }
    const touched = new Set();
    if (i >= 0) {
      for (const ti of STEPS[i].added.concat(STEPS[i].removed)) {
        touched.add(DATA.triplets[ti].s); touched.add(DATA.triplets[ti].o);
      }
    }
    const picked = Panel.pickedVertex();
    const nodes = DATA.vertices.map((v, vi) => [
      shown.has(vi) ? "" : "hidden", touched.has(vi) ? "touched" : "", picked === vi ? "picked" : "",
    ].filter((c) => c).join(" "));
    return { edges, nodes };
  }

  function setClasses(e, cls) {
    const id = e.id();
    if (current.get(id) !== cls) {
      current.set(id, cls);
      e.classes(cls);
    }
  }

  // Build the graph with the classes of the step it opens on, so the first picture
  // costs one style pass.
  function init(container, i) {
    if (!DATA.has_graph) {
      container.append(el("p", { class: "empty" }, "The memory design " + DATA.run.design +
        " keeps no knowledge graph; what it retrieved at each step is in the step panel."));
      document.getElementById("show-episodes").disabled = true;
      return;
    }
    if (typeof cytoscape !== "function") {
      container.append(el("p", { class: "empty warn" }, "The graph library did not load."));
      return;
    }
    const c = classes(i, states(i));
    const elements = [];
    DATA.vertices.forEach((v, vi) => {
      current.set("v" + vi, c.nodes[vi]);
      elements.push({ group: "nodes", data: { id: "v" + vi, label: v[0], vi },
        position: { x: v[1], y: v[2] }, classes: c.nodes[vi] });
    });
    DATA.triplets.forEach((t, ti) => {
      current.set("t" + ti, c.edges[ti]);
      elements.push({ group: "edges",
        data: { id: "t" + ti, source: "v" + t.s, target: "v" + t.o, label: t.r, ti },
        classes: c.edges[ti] });
    });
    const many = DATA.triplets.length > 400;
    cy = cytoscape({
      container, elements, style, layout: { name: "preset" },
      minZoom: 0.05, maxZoom: 4, wheelSensitivity: 0.3,
      textureOnViewport: many, hideEdgesOnViewport: many, motionBlur: false,
    });
    edgeEls = cy.edges(".triplet");
    nodeEls = cy.nodes();
    cy.on("tap", "node", (ev) => {
      const d = ev.target.data();
      if (d.ek !== undefined) Panel.episode(d.ek);
      else Panel.vertex(d.vi);
    });
    document.getElementById("show-episodes").addEventListener("change", (ev) => {
      setEpisodes(ev.target.checked);
    });
    document.getElementById("fit").addEventListener("click", fit);
  }

  // Show or hide the episodic vertices.
  function setEpisodes(on) {
    if (!cy) return;
    showEpisodes = on;
    document.getElementById("show-episodes").checked = on;
    if (on) addEpisodes();
    setHash("episodes", on ? 1 : null);
    show(App.index);
  }

  // Episodic vertices and their edges join the graph the first time they are asked for.
  function addEpisodes() {
    if (episodeEdges.length || !DATA.episodes.length) return;
    const elements = [];
    DATA.episodes.forEach((e, k) => {
      elements.push({ group: "nodes", data: { id: "e" + k, label: "step " + e.step, ek: k },
        position: { x: e.x, y: e.y }, classes: "episode hidden" });
      current.set("e" + k, "episode hidden");
      const perVertex = new Map();
      for (const ti of e.triplets) {
        const t = DATA.triplets[ti];
        for (const v of [t.s, t.o]) {
          if (!perVertex.has(v)) perVertex.set(v, []);
          perVertex.get(v).push(ti);
        }
      }
      episodeEdges.push(perVertex);
      for (const v of perVertex.keys()) {
        current.set("e" + k + "-" + v, "episodic hidden");
        elements.push({ group: "edges", data: { id: "e" + k + "-" + v, source: "e" + k, target: "v" + v },
          classes: "episodic hidden" });
      }
    });
    cy.add(elements);
  }

  function fit() {
    if (!cy) return;
    const shown = cy.elements().filter((e) => !e.hasClass("hidden"));
    cy.fit(shown.length ? shown : undefined, 40);
    if (cy.zoom() > 1.6) { cy.zoom(1.6); cy.center(shown.length ? shown : undefined); }
  }

  function show(i) {
    const st = states(i);
    if (cy) {
      const step = i >= 0 ? STEPS[i].step : 0;
      const c = classes(i, st);
      cy.batch(() => {
        edgeEls.forEach((e) => setClasses(e, c.edges[e.data("ti")]));
        nodeEls.forEach((n) => setClasses(n, c.nodes[n.data("vi")]));
        episodeEdges.forEach((perVertex, k) => {
          const on = showEpisodes && DATA.episodes[k].step <= step;
          setClasses(cy.getElementById("e" + k), on ? "episode" : "episode hidden");
          for (const [v, tis] of perVertex) {
            const linked = on && tis.some((ti) => st.has(ti) && st.get(ti)[0] === "alive");
            setClasses(cy.getElementById("e" + k + "-" + v), linked ? "episodic" : "episodic hidden");
          }
        });
      });
      if (!fitted && st.size) { fitted = true; fit(); }
    }
    expose(i, st);
  }

  // The hidden list of the edges drawn, read back from the graph itself (an edge is
  // listed when Cytoscape reports it visible), for tests and for anyone who wants the
  // picture as text.
  function expose(i, st) {
    const list = document.getElementById("graph-edges");
    const items = [];
    let alive = 0;
    if (cy) {
      // Apply the new classes now (Cytoscape otherwise waits for the next frame, and
      // visible() would answer for the previous step): vertices first, then edges.
      nodeEls.forEach((n) => n.style("display"));
      edgeEls.forEach((e) => e.style("display"));
    }
    const drawn = edgeEls ? edgeEls.filter((e) => e.visible()) : [];
    drawn.forEach((e) => {
      const ti = e.data("ti");
      const state = (st.get(ti) || ["?"]).join(" ");
      if (state.startsWith("alive")) alive += 1;
      items.push(el("li", { "data-id": ti, "data-state": state }, tripletText(ti)));
    });
    list.replaceChildren(...items);
    list.dataset.step = i >= 0 ? String(STEPS[i].step) : "0";
    list.dataset.alive = String(alive);
    list.dataset.expected = String(i >= 0 ? STEPS[i].alive : 0);
    list.dataset.episodes = String(cy ? cy.nodes(".episode").filter((n) => n.visible()).length : 0);
    const removed = i >= 0 ? STEPS[i].removed.length : 0;
    document.getElementById("graph-count").textContent = DATA.has_graph
      ? alive + " triplets" + (removed ? ", " + removed + " removed" : "") : "";
  }

  // Mark the vertex the box shows (Panel.pickedVertex()), and only that one.
  function markPicked() {
    if (!cy) return;
    const c = classes(App.index, states(App.index));
    cy.batch(() => nodeEls.forEach((n) => setClasses(n, c.nodes[n.data("vi")])));
  }

  return { init, show, fit, markPicked, setEpisodes };
})();
