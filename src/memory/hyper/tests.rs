use super::*;
use crate::memory::Triplet;

/// Two observations and two theses:
///
/// ```text
///   episode 1: alarm -0- clock          episode 2: safe -1- study -2- desk
///   thesis 0 "the alarm code opens the safe"  links alarm, safe   (episode 2)
///   thesis 1 "the desk hides a letter"        links desk, letter  (episode 2)
/// ```
/// No triplet joins episode 1's vertices to episode 2's: only thesis 0 does.
fn office() -> AriGraph {
    let mut g = AriGraph::new();
    let (a, _) = g.add(Triplet::new("alarm", "is on", "clock").unwrap());
    g.set_triplet_embedding(a, vec![1.0, 0.0, 0.0]);
    g.add_episode(1, "A clock with an alarm.".into(), vec![a]);
    let mut ids = Vec::new();
    for (s, r, o, e) in [
        ("safe", "is in", "study", [0.8, 0.6, 0.0]),
        ("desk", "is in", "study", [0.0, 1.0, 0.0]),
    ] {
        let (id, _) = g.add(Triplet::new(s, r, o).unwrap());
        g.set_triplet_embedding(id, e.to_vec());
        ids.push(id);
    }
    g.add_episode(2, "A study with a safe and a desk.".into(), ids);
    let (t0, _) = g.add_thesis_linking(
        "The alarm code opens the safe",
        2,
        Some(&["Alarm".into(), "the safe".into(), " ".into()]),
    );
    let (t1, _) = g.add_thesis_linking(
        "The desk hides a letter",
        2,
        Some(&["desk".into(), "letter".into()]),
    );
    g.link_theses(&[t0, t1]);
    g.set_thesis_embedding(t0, vec![1.0, 0.0, 0.0]);
    g.set_thesis_embedding(t1, vec![0.0, 1.0, 0.0]);
    g
}

const Q: [f32; 3] = [1.0, 0.0, 0.0];

fn all() -> Passable {
    Passable {
        objects: true,
        theses: true,
        episodes: true,
    }
}

fn run(g: &AriGraph, depth: u32, width: usize, cutoff: Option<f32>, can: Passable) -> Walk {
    let anchors: BTreeSet<&str> = ["alarm", "clock"].into();
    let retrieved: HashSet<TripletId> = [TripletId(0)].into();
    walk(
        g,
        &[&Q],
        &anchors,
        &retrieved,
        Bounds {
            depth,
            width,
            cutoff,
            theses: 15,
            can,
        },
    )
}

fn texts(g: &AriGraph, w: &Walk) -> Vec<(String, u32)> {
    w.triplets
        .iter()
        .map(|r| (g.triplet(r.id).text(), r.depth))
        .collect()
}

#[test]
fn the_extractors_entities_are_the_hyper_edge() {
    let g = office();
    // Canonical names (article and case dropped), blanks left out, sorted.
    assert_eq!(g.thesis(ThesisId(0)).unwrap().vertices, ["alarm", "safe"]);
    // "letter" names no vertex of the graph yet: the hyper-edge still links it.
    assert_eq!(g.thesis(ThesisId(1)).unwrap().vertices, ["desk", "letter"]);
    assert_eq!(g.theses_linking("safe"), [ThesisId(0)]);
    assert!(g.theses_linking("study").is_empty());
}

#[test]
fn a_thesis_is_walked_through_to_facts_no_triplet_reaches() {
    let g = office();
    let theses_only = Passable {
        episodes: false,
        ..all()
    };
    // Hop 1: thesis 0 links the anchor alarm; through it the walk reaches safe, whose
    // fact joins the retrieved ones at depth 1.
    let w = run(&g, 1, 6, None, theses_only);
    assert_eq!(texts(&g, &w), [("safe, is in, study".to_string(), 1)]);
    assert_eq!(
        w.theses,
        [ReachedThesis {
            id: ThesisId(0),
            hop: 1,
            anchors: 1,
            similarity: 1.0,
        }]
    );
    // Through theses alone the walk ends there: thesis 0 links only visited vertices
    // and nothing else links safe.
    assert_eq!(run(&g, 3, 6, None, theses_only), w);
    // No hop, no walk.
    assert_eq!(run(&g, 0, 6, None, all()), Walk::default());
}

#[test]
fn episodes_are_hyper_edges_over_their_facts_and_theses() {
    let g = office();
    // Episode 2 produced thesis 0, which names the anchor alarm: at hop 1 it links
    // alarm to safe, study, desk and letter, whose facts are taken (most similar
    // first); at hop 2 desk and letter lead to thesis 1.
    let w = run(&g, 2, 6, None, all());
    assert_eq!(
        texts(&g, &w),
        [
            ("safe, is in, study".to_string(), 1),
            ("desk, is in, study".to_string(), 1)
        ]
    );
    let reached: Vec<(usize, u32)> = w.theses.iter().map(|t| (t.id.0, t.hop)).collect();
    assert_eq!(reached, [(0, 1), (1, 2)]);
    // At one hop thesis 1 is not reached.
    assert_eq!(run(&g, 1, 6, None, all()).theses.len(), 1);
}

#[test]
fn width_and_cut_off_bound_each_hop() {
    let g = office();
    // Width 1: of hop 1's two facts the more similar is kept; the other's vertices were
    // reached at hop 1, so no later hop takes it.
    let w = run(&g, 3, 1, None, all());
    assert_eq!(texts(&g, &w), [("safe, is in, study".to_string(), 1)]);
    // Cut-off 0.75: "safe, is in, study" (cosine 0.8) stays, "desk, is in, study"
    // (cosine 0) is dropped, though the walk still passes through desk.
    let w = run(&g, 3, 6, Some(0.75), all());
    assert_eq!(texts(&g, &w), [("safe, is in, study".to_string(), 1)]);
    assert_eq!(w.theses.len(), 2);
}

#[test]
fn an_excluded_kind_is_left_out_of_the_walk_itself() {
    let g = office();
    // Without theses, episode 2's hyper-edge is its facts' vertices (safe, study,
    // desk), which no anchor is among: nothing is found.
    let no_theses = Passable {
        theses: false,
        ..all()
    };
    assert_eq!(run(&g, 3, 6, None, no_theses), Walk::default());
    // Without object vertices the walk goes on through both kinds of hyper-edge and
    // reaches both theses, but retrieves no triplet.
    let no_objects = Passable {
        objects: false,
        ..all()
    };
    let w = run(&g, 3, 6, None, no_objects);
    assert!(w.triplets.is_empty());
    assert_eq!(w.theses.len(), 2);
}

#[test]
fn retired_theses_are_not_walked_and_a_restated_one_holds_again() {
    let mut g = office();
    assert!(g.retire_thesis(ThesisId(0), 3));
    assert!(!g.retire_thesis(ThesisId(0), 4));
    assert_eq!(g.thesis(ThesisId(0)).unwrap().retired, Some(3));
    // Retired, thesis 0 links nothing, in the walk or in episode 2's hyper-edge.
    assert_eq!(run(&g, 3, 6, None, all()), Walk::default());
    let (id, fresh) = g.add_thesis_linking("the alarm code opens the SAFE", 5, None);
    assert_eq!((id, fresh), (ThesisId(0), true), "stated anew");
    assert_eq!(g.thesis(id).unwrap().retired, None);
    assert_eq!(run(&g, 1, 6, None, all()).theses.len(), 1);
}
