//! Export of the memory graph: JSON (documented in the README) and Graphviz DOT (a small
//! adapter: semantic vertices as ellipses, triplets as labelled edges, episodic vertices
//! as dashed boxes joined to the vertices of their alive triplets).

use serde_json::{Value, json};

use super::AriGraph;

/// The graph as JSON: `{"semantic_vertices": [name], "semantic_edges": [{"id", "subject",
/// "relation", "object"}], "episodic_vertices": [{"step", "observation", "triplets": [id],
/// "removed": [id]}]}`; `removed` lists the episode's triplets that are no longer in the
/// semantic layer (outdated).
pub fn to_json(graph: &AriGraph) -> Value {
    let edges: Vec<Value> = graph
        .alive_ids()
        .map(|id| {
            let t = graph.triplet(id);
            json!({"id": id, "subject": t.subject, "relation": t.relation, "object": t.object})
        })
        .collect();
    let episodes: Vec<Value> = graph
        .episodes()
        .iter()
        .map(|e| {
            let removed: Vec<usize> = e.triplets.iter().copied().filter(|id| !graph.is_alive(*id)).collect();
            json!({"step": e.step, "observation": e.observation, "triplets": e.triplets, "removed": removed})
        })
        .collect();
    json!({
        "semantic_vertices": graph.vertices(),
        "semantic_edges": edges,
        "episodic_vertices": episodes,
    })
}

fn quote(s: &str) -> String {
    format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// The graph as a Graphviz `digraph` (render with `dot -Tsvg`).
pub fn to_dot(graph: &AriGraph) -> String {
    let mut out = String::from("digraph arigraph {\n  rankdir=LR;\n  node [shape=ellipse];\n");
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
    for e in graph.episodes() {
        let name = format!("step {}", e.step);
        let tip: String = e.observation.chars().take(200).collect();
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
    out.push_str("}\n");
    out
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
    }
}
