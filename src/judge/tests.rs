use super::*;

fn f(p: &str, args: &[&str]) -> Fact {
    Fact {
        predicate: p.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
    }
}

fn t(s: &str, r: &str, o: &str) -> Triplet {
    Triplet::new(s, r, o).unwrap()
}

/// Each triplet's verdict against `truth`: `Some(holds)` for a verifiable triplet,
/// `None` for an unverifiable one.
fn assert_judged(truth: &Truth, cases: &[(&str, &str, &str, Option<bool>)]) {
    for &(s, r, o, want) in cases {
        let judged = claim_of(&t(s, r, o)).map(|c| truth.holds(&c));
        assert_eq!(judged, want, "{s}, {r}, {o}");
    }
}

/// Hand values: 3 verifiable triplets of which 2 true, 1 unverifiable; 4 observed
/// true facts of which 2 held; one true triplet wrongly deleted; then a change of
/// state makes a once-true triplet stale.
#[test]
fn precision_recall_wrong_deletions_and_stale_by_hand() {
    let facts = vec![
        f("at", &["P", "bedroom"]),
        f("at", &["antique trunk", "bedroom"]),
        f("closed", &["antique trunk"]),
        f("in", &["old key", "antique trunk"]),
        f("east_of", &["kitchen", "bedroom"]),
    ];
    let mut g = AriGraph::new();
    g.add(t("antique trunk", "is in", "bedroom")); // true
    g.add(t("antique trunk", "is", "closed")); // true
    g.add(t("antique trunk", "is", "open")); // false
    g.add(t("recipe", "requires", "apple")); // unverifiable
    let mut tracker = Tracker::default();
    let seen = ["-= Bedroom =- You see a closed antique trunk."];
    // "old key" and "kitchen" are not observed: 3 observed facts (player at bedroom,
    // trunk at bedroom, trunk closed), 2 held.
    let removed = vec![t("player", "is in", "bedroom")];
    let a = tracker.measure(&g, &facts, &seen, &removed);
    assert_eq!((a.verifiable, a.true_triplets, a.unverifiable), (3, 2, 1));
    assert!((a.precision - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!((a.observed_facts, a.held_facts), (3, 2));
    assert!((a.recall - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(a.wrong_deletions, 1);
    assert_eq!(a.recoverable, 0);
    assert_eq!(a.stale, 0);

    // The trunk is opened; the graph still says closed: stale.
    let facts2: Vec<Fact> = facts
        .iter()
        .map(|x| {
            if x.predicate == "closed" {
                f("open", &["antique trunk"])
            } else {
                x.clone()
            }
        })
        .collect();
    let b = tracker.measure(
        &g,
        &facts2,
        &["You open the antique trunk, revealing an old key."],
        &[],
    );
    assert_eq!(b.stale, 1);
    assert_eq!(b.true_triplets, 2); // in bedroom, open
    // The key is observed now: in(old key, trunk) is observed and not held.
    assert_eq!((b.observed_facts, b.held_facts), (4, 2));
}

/// An object tree's facts decide locations only: a state or a connection is
/// unverifiable there, never false; locations are judged as in TextWorld's world.
/// Hand values: 5 triplets, 2 verifiable (1 true), 3 unverifiable; of the 3 facts
/// about named things, 1 held.
#[test]
fn an_object_tree_decides_locations_only() {
    let facts = vec![
        f("decides", &["location"]),
        f("at", &["P", "Kitchen"]),
        f("at", &["wooden table", "Kitchen"]),
        f("in", &["brass key", "wooden table"]),
    ];
    let mut g = AriGraph::new();
    g.add(t("brass key", "is on", "wooden table")); // true
    g.add(t("wooden table", "is in", "Hallway")); // false
    g.add(t("wooden door", "is", "locked")); // a state: unverifiable
    g.add(t("Hallway", "is north of", "Kitchen")); // a connection: unverifiable
    g.add(t("brass key", "is", "small")); // no claim
    let seen = ["Kitchen. You can see a wooden table (on which is a brass key) here."];
    let a = Tracker::default().measure(&g, &facts, &seen, &[]);
    assert_eq!((a.verifiable, a.true_triplets, a.unverifiable), (2, 1, 3));
    assert_eq!((a.observed_facts, a.held_facts), (3, 1));
    let truth = Truth::new(&facts);
    assert!(!truth.decides(&Claim::State("wooden door".into(), "locked".into())));
    assert!(truth.decides(&Claim::Carried("brass key".into())));
    assert!(Truth::new(&facts[1..]).decides(&Claim::State("x".into(), "open".into())));
    // A thing in a place of its own name: no triplet states it, so it is not counted.
    let altar = Truth::new(&[f("decides", &["location"]), f("at", &["altar", "Altar"])]);
    assert!(altar.recall_facts().is_empty());
}

/// Judge 2's state rules, each by hand: a locked thing is closed, a thing with an
/// open/closed/locked state that is not locked is unlocked, a negation is true of a
/// named thing without the state, and a thing the game does not have is false.
#[test]
fn state_implications_and_negations_by_hand() {
    let truth = Truth::new(&[
        f("locked", &["wooden door"]),
        f("closed", &["antique trunk"]),
        f("open", &["chest drawer"]),
        f("at", &["apple", "kitchen"]),
    ]);
    assert_judged(
        &truth,
        &[
            ("wooden door", "is", "closed", Some(true)),
            ("wooden door", "is", "shut", Some(true)),
            ("wooden door", "is", "locked", Some(true)),
            ("wooden door", "is", "unlocked", Some(false)),
            ("wooden door", "is", "open", Some(false)),
            ("antique trunk", "is", "unlocked", Some(true)),
            ("antique trunk", "is", "locked", Some(false)),
            ("chest drawer", "is", "opened", Some(true)),
            ("chest drawer", "is", "unlocked", Some(true)),
            ("chest drawer", "is", "closed", Some(false)),
            ("wooden door", "is not", "locked", Some(false)),
            ("antique trunk", "is not", "locked", Some(true)),
            ("antique trunk", "is not", "open", Some(true)),
            ("chest drawer", "is not", "open", Some(false)),
            // A thing the game does not have: a negation about it is false too.
            ("golden gate", "is not", "locked", Some(false)),
            ("golden gate", "is", "closed", Some(false)),
            // An apple has no lock.
            ("apple", "is", "unlocked", Some(false)),
            ("apple", "is", "red", None),
        ],
    );
}

/// The run: the game says "a closed wooden door" of a locked door; the graph's
/// "wooden door, is, closed" is true now (judge 1 said false).
#[test]
fn a_locked_door_read_as_closed_is_true() {
    let facts = vec![
        f("at", &["P", "bedroom"]),
        f("locked", &["wooden door"]),
        f("link", &["bedroom", "wooden door", "kitchen"]),
    ];
    let mut g = AriGraph::new();
    g.add(t("wooden door", "is", "closed"));
    g.add(t("player", "is in", "bedroom"));
    let a = Tracker::default().measure(
        &g,
        &facts,
        &["-= Bedroom =- There is a closed wooden door."],
        &[],
    );
    assert_eq!((a.verifiable, a.true_triplets), (2, 2));
    // Named recall: player at bedroom, locked, closed (3), two held. Stated recall:
    // player at bedroom and closed (2), both held.
    assert_eq!((a.observed_facts, a.held_facts), (3, 2));
    assert_eq!((a.stated_facts, a.held_stated), (2, 2));
    assert_eq!(a.stated_recall, Some(1.0));
}

/// A connection is one fact in recall, whichever direction the game and the graph
/// state it in.
#[test]
fn a_connection_counts_once() {
    let facts = vec![
        f("at", &["P", "kitchen"]),
        f("east_of", &["kitchen", "bedroom"]),
        f("west_of", &["bedroom", "kitchen"]),
    ];
    let mut g = AriGraph::new();
    g.add(t("bedroom", "is west of", "kitchen"));
    let mut tracker = Tracker::default();
    let before = [
        f("at", &["P", "bedroom"]),
        facts[1].clone(),
        facts[2].clone(),
    ];
    tracker.measure(&AriGraph::new(), &before, &["-= Bedroom =-"], &[]);
    let a = tracker.measure(&g, &facts, &["-= Kitchen =-"], &[]);
    // Player at kitchen, and the connection once: 2 facts, 1 held; the move from the
    // bedroom to the kitchen stated the connection.
    assert_eq!((a.observed_facts, a.held_facts), (2, 1));
    assert_eq!((a.stated_facts, a.held_stated), (2, 1));
    assert_eq!(a.precision, 1.0);
}

#[test]
fn facts_serialize_as_arrays() {
    let x = f("in", &["old key", "I"]);
    let v = serde_json::to_value(&x).unwrap();
    assert_eq!(v, serde_json::json!(["in", "old key", "I"]));
    assert_eq!(serde_json::from_value::<Fact>(v).unwrap(), x);
}

/// A true fact wrongly retired is a wrong deletion either way; closed
/// (`--retire close`) it is also recoverable, deleted it is not.
#[test]
fn a_wrongly_closed_fact_is_recoverable() {
    use crate::memory::Retire;
    let facts = vec![
        f("at", &["P", "bedroom"]),
        f("at", &["antique trunk", "bedroom"]),
    ];
    let seen = ["-= Bedroom =- An antique trunk."];
    for (mode, recoverable) in [(Retire::Close, 1), (Retire::Delete, 0)] {
        let mut g = AriGraph::new();
        let (old, _) = g.add(t("antique trunk", "is in", "bedroom"));
        let (new, _) = g.add(t("antique trunk", "is in", "kitchen"));
        g.retire(old, mode, &[new]);
        let removed = vec![t("antique trunk", "is in", "bedroom")];
        let a = Tracker::default().measure(&g, &facts, &seen, &removed);
        assert_eq!(
            (a.wrong_deletions, a.recoverable),
            (1, recoverable),
            "{mode:?}"
        );
        let mut s = WorldModelSummary::default();
        s.add(&a);
        assert_eq!(s.recoverable, recoverable as u64);
    }
}

/// Judge 3: a plural or person form of a relation claims what its singular claims
/// ("you, are in, cellar" is the player's place; "coins, are on, table" a location;
/// "you, have, lamp" a carried thing); a form with no singular in the tables stays
/// unverifiable, and "are not" keeps its negation.
#[test]
fn plural_and_person_forms_claim_what_the_singular_claims() {
    let truth = Truth::new(&[
        f("at", &["P", "cellar"]),
        f("on", &["coins", "table"]),
        f("in", &["lamp", "I"]),
        f("closed", &["hatch"]),
    ]);
    assert_judged(
        &truth,
        &[
            ("you", "are in", "cellar", Some(true)),
            ("you", "are at", "attic", Some(false)),
            ("i", "am in", "cellar", Some(true)),
            ("coins", "are on", "table", Some(true)),
            ("coins", "are located in", "table", Some(true)),
            ("coins", "are inside", "cellar", Some(false)),
            ("you", "have", "lamp", Some(true)),
            ("you", "carry", "coins", Some(false)),
            ("table", "hold", "coins", Some(true)),
            ("hatch", "are", "closed", Some(true)),
            ("hatch", "are not", "open", Some(true)),
            ("coins", "are under", "table", None),
            ("coins", "are shiny near", "table", None),
        ],
    );
}

/// A step whose graph holds nothing verifiable has precision 1.0 by convention; the
/// episode's mean leaves such steps out (a graph of unverifiable triplets is not a
/// precise one), and an episode with no such step has no mean precision for the bench.
#[test]
fn the_mean_precision_leaves_out_steps_with_nothing_verifiable() {
    let step = |verifiable: usize, true_triplets: usize| Accuracy {
        precision: ratio(true_triplets, verifiable),
        verifiable,
        true_triplets,
        ..Accuracy::default()
    };
    let mut s = WorldModelSummary::default();
    for a in [step(0, 0), step(4, 1), step(2, 1)] {
        s.add(&a);
    }
    assert_eq!(s.steps, 3);
    assert_eq!(s.precision_steps, Some(2));
    assert_eq!(s.mean_precision, 0.375);
    assert_eq!(s.final_precision, 0.5);
    let mut none = WorldModelSummary::default();
    none.add(&step(0, 0));
    assert_eq!((none.precision_steps, none.mean_precision), (Some(0), 0.0));
    // A summary written before counted every step; it goes on doing so.
    let mut old: WorldModelSummary = serde_json::from_value(serde_json::json!({
        "steps": 2, "mean_precision": 0.75, "mean_recall": 0.0, "final_precision": 1.0,
        "final_recall": 0.0, "wrong_deletions": 0, "final_stale": 0
    }))
    .unwrap();
    assert_eq!(old.precision_steps, None);
    old.add(&step(4, 0));
    assert_eq!((old.precision_steps, old.mean_precision), (Some(3), 0.5));
}
