//! Export of the memory graph: JSON (documented in `docs/replay.md`) and Graphviz DOT (a small
//! adapter: semantic vertices as ellipses, triplets as labelled edges, episodic vertices
//! as dashed boxes joined to the vertices of their alive triplets).

use serde_json::{Value, json};

use super::{AriGraph, TripletId};

/// The graph as JSON: `{"semantic_vertices": [name], "semantic_edges": [{"id", "subject",
/// "relation", "object", "since"}], "closed_edges": [{"id", "subject", "relation",
/// "object", "since", "until", "superseded_by": [id]}], "episodic_vertices": [{"step",
/// "observation", "triplets": [id], "removed": [id]}]}`. `since` is the step a fact
/// (last) entered the graph; `closed_edges` is the history kept by `--retire close`
/// (a fact current in steps `[since, until)`, then replaced by the triplets
/// `superseded_by`; empty under `--retire delete`); `removed` lists the episode's
/// triplets that are no longer in the semantic layer (outdated). With `--thesis`
/// (PersonalAI's thesis vertices, [`super::thesis`]) the object also has
/// `"thesis_vertices": [{"id", "step", "text", "vertices": [name], "retired": step or
/// null}]` and each episodic
/// vertex its `"theses": [id]`; both keys are absent when the graph holds no thesis.
pub fn to_json(graph: &AriGraph) -> Value {
    let edges: Vec<Value> = graph
        .alive_ids()
        .map(|id| {
            let t = graph.triplet(id);
            json!({"id": id, "subject": t.subject, "relation": t.relation, "object": t.object, "since": graph.since(id)})
        })
        .collect();
    let closed: Vec<Value> = graph
        .history()
        .closed()
        .iter()
        .map(|c| {
            let t = graph.triplet(c.id);
            json!({
                "id": c.id, "subject": t.subject, "relation": t.relation, "object": t.object,
                "since": c.since, "until": c.until, "superseded_by": c.superseded_by,
            })
        })
        .collect();
    let episodes: Vec<Value> = graph
        .episodes()
        .iter()
        .map(|e| {
            let removed: Vec<TripletId> = e.triplets.iter().copied().filter(|id| !graph.is_alive(*id)).collect();
            let mut v = json!({"step": e.step, "observation": e.observation, "triplets": e.triplets, "removed": removed});
            if !e.theses.is_empty() {
                v["theses"] = json!(e.theses);
            }
            v
        })
        .collect();
    let mut out = json!({
        "semantic_vertices": graph.vertices(),
        "semantic_edges": edges,
        "closed_edges": closed,
        "episodic_vertices": episodes,
    });
    if graph.thesis_count() > 0 {
        let theses: Vec<Value> = graph
            .theses()
            .into_iter()
            .enumerate()
            .map(
                |(id, t)| json!({"id": id, "step": t.step, "text": t.text, "vertices": t.vertices, "retired": t.retired}),
            )
            .collect();
        out["thesis_vertices"] = json!(theses);
    }
    out
}

fn quote(s: &str) -> String {
    format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// The graph as a Graphviz `digraph` (render with `dot -Tsvg`); closed facts
/// (`--retire close`) are grey dashed edges labelled with their steps and, in the
/// tooltip, what superseded them; thesis vertices (`--thesis`) are blue notes
/// (`thesis <id>`) joined by dashed edges to the vertices of their hyper-edge and by a
/// dotted one to their episodic vertex.
pub fn to_dot(graph: &AriGraph) -> String {
    let mut out = String::from("digraph arigraph {\n  rankdir=LR;\n  node [shape=ellipse];\n");
    dot_semantic(&mut out, graph);
    dot_episodes(&mut out, graph);
    dot_theses(&mut out, graph);
    out.push_str("}\n");
    out
}

/// The semantic layer in DOT, onto `out`: every vertex (an ellipse), every alive
/// triplet (an edge labelled with its relation) and every closed fact (`--retire
/// close`: a grey dashed edge labelled with its steps `[since, until)`, what superseded
/// it in the tooltip).
fn dot_semantic(out: &mut String, graph: &AriGraph) {
    for v in graph.vertices() {
        out.push_str(&format!("  {};\n", quote(v)));
    }
    for id in graph.alive_ids() {
        let t = graph.triplet(id);
        out.push_str(&format!(
            "  {} -> {} [label={}];\n",
            quote(&t.subject),
            quote(&t.object),
            quote(&t.relation)
        ));
    }
    for c in graph.history().closed() {
        let t = graph.triplet(c.id);
        let by: Vec<String> = c
            .superseded_by
            .iter()
            .map(|id| graph.triplet(*id).text())
            .collect();
        out.push_str(&format!(
            "  {} -> {} [label={}, style=dashed, color=grey, fontcolor=grey, tooltip={}];\n",
            quote(&t.subject),
            quote(&t.object),
            quote(&format!("{} [{}, {})", t.relation, c.since, c.until)),
            quote(&format!("superseded by: {}", by.join("; ")))
        ));
    }
}

/// The episodic vertices in DOT, onto `out`: a dashed box `step <n>` per episode (its
/// observation's first 200 characters in the tooltip), joined by dotted edges to the
/// vertices of its alive triplets.
fn dot_episodes(out: &mut String, graph: &AriGraph) {
    for e in graph.episodes() {
        let name = format!("step {}", e.step);
        let tip: String = crate::text::first_chars(&e.observation, 200);
        out.push_str(&format!(
            "  {} [shape=box, style=dashed, tooltip={}];\n",
            quote(&name),
            quote(&tip)
        ));
        let mut linked = std::collections::BTreeSet::new();
        for id in e.triplets.iter().filter(|id| graph.is_alive(**id)) {
            let t = graph.triplet(*id);
            linked.insert(t.subject.clone());
            linked.insert(t.object.clone());
        }
        for v in linked {
            out.push_str(&format!(
                "  {} -> {} [style=dotted, arrowhead=none];\n",
                quote(&name),
                quote(&v)
            ));
        }
    }
}

/// Thesis vertices (`--thesis`) in DOT, onto `out`: a note per statement (`thesis
/// <id>`, grey and dashed once retired), joined to the vertices of its hyper-edge and
/// to the episodic vertex it came from.
fn dot_theses(out: &mut String, graph: &AriGraph) {
    for (id, t) in graph.theses().into_iter().enumerate() {
        let name = format!("thesis {id}");
        // A retired thesis is drawn grey, dashed, as a removed triplet is.
        let style = if t.retired.is_some() {
            ", style=dashed, fontcolor=gray"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {} [shape=note, color=steelblue{style}, label={}];\n",
            quote(&name),
            quote(&t.text)
        ));
        for v in &t.vertices {
            out.push_str(&format!(
                "  {} -> {} [style=dashed, color=steelblue, arrowhead=none];\n",
                quote(&name),
                quote(v)
            ));
        }
        out.push_str(&format!(
            "  {} -> {} [style=dotted, arrowhead=none];\n",
            quote(&format!("step {}", t.step)),
            quote(&name)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Triplet;

    #[test]
    fn exports_hold_the_graph() {
        let mut g = AriGraph::new();
        let (a, _) = g.add(Triplet::new("key", "is in", "locker").unwrap());
        let (b, _) = g.add(Triplet::new("note", "says", "\"go north\"").unwrap());
        g.add_episode(1, "A key in a locker.".into(), vec![a, b]);
        g.remove(a);
        let j = to_json(&g);
        assert_eq!(j["semantic_edges"].as_array().unwrap().len(), 1);
        assert_eq!(j["episodic_vertices"][0]["removed"], json!([a]));
        let dot = to_dot(&g);
        assert!(dot.starts_with("digraph arigraph {"));
        assert!(
            dot.contains(r#""note" -> "go north" [label="says"];"#),
            "{dot}"
        );
        assert!(!dot.contains(r#""key" -> "locker""#));
        assert!(dot.contains(r#""step 1" -> "note" [style=dotted"#));
        assert_eq!(j["closed_edges"], json!([]));
        assert!(!dot.contains("thesis"));
    }

    #[test]
    fn dot_export_draws_thesis_vertices_with_their_hyper_edges() {
        let mut g = AriGraph::new();
        let (a, _) = g.add(Triplet::new("steel key", "is in", "locker").unwrap());
        g.add_episode(2, "A note.".into(), vec![a]);
        let (t, _) = g.add_thesis("the steel key opens the orange locker", 2);
        g.link_theses(&[t]);
        let dot = to_dot(&g);
        let name = format!("thesis {t}");
        assert!(
            dot.contains(&format!(
                r#""{name}" [shape=note, color=steelblue, label="the steel key opens the orange locker"];"#
            )),
            "{dot}"
        );
        assert_eq!(g.theses()[0].vertices, vec!["locker", "steel key"]);
        for v in &g.theses()[0].vertices {
            assert!(
                dot.contains(&format!(r#""{name}" -> "{v}" [style=dashed"#)),
                "{dot}"
            );
        }
        assert!(
            dot.contains(&format!(r#""step 2" -> "{name}" [style=dotted"#)),
            "{dot}"
        );
    }

    #[test]
    fn exports_show_closed_facts_with_interval_and_link() {
        let mut g = AriGraph::new();
        g.set_step(1);
        let (old, _) = g.add(Triplet::new("key", "is in", "locker").unwrap());
        g.set_step(3);
        let (new, _) = g.add(Triplet::new("key", "is in", "inventory").unwrap());
        g.retire(old, crate::memory::Retire::Close, &[new]);
        let j = to_json(&g);
        assert_eq!(
            j["closed_edges"],
            json!([{"id": old, "subject": "key", "relation": "is in", "object": "locker",
                    "since": 1, "until": 3, "superseded_by": [new]}])
        );
        assert_eq!(j["semantic_edges"][0]["since"], 3);
        let dot = to_dot(&g);
        assert!(
            dot.contains(r#""key" -> "locker" [label="is in [1, 3)", style=dashed"#)
                && dot.contains("superseded by: key, is in, inventory"),
            "{dot}"
        );
    }
}
