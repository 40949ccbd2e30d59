//! Tests of `explorer`.

use super::*;

/// A real move overrides a contradicting older spatial triplet, and the removal is
/// reported.
#[test]
fn a_move_made_overrides_a_contradicting_spatial_fact() {
    let mut g = AriGraph::new();
    let stale = Triplet::new("kitchen", "is north of", "hall").unwrap();
    g.add(stale.clone());
    let mut e = Explorer::of_rules(crate::memory::MemoryRevision::V2);
    e.visit("hall");
    let (added, removed) = e.record_move(Some(&mut g), "Hall", Direction::North, "Pantry", None);
    assert_eq!(removed, vec![stale.clone()]);
    assert_eq!(added.len(), 2);
    assert!(g.find(&stale).is_none());
    // The paper's deletion (the default) keeps no history.
    assert!(g.history().is_empty());
    let route = e.route(Some(&g), "hall", "pantry").unwrap();
    assert_eq!(route.len(), 1);
    assert_eq!(route[0].direction, Direction::North);
    // The move's own triplets are pinned: the outdated check never sees them.
    let id = g
        .find(&Triplet::new("pantry", "is north of", "hall").unwrap())
        .unwrap();
    assert!(g.is_pinned(id));
}

/// A door named in a spatial triplet is not a room to go to.
#[test]
fn go_to_targets_are_rooms_only() {
    let mut g = AriGraph::new();
    g.add(Triplet::new("wooden door", "is north of", "kitchen").unwrap());
    let mut e = Explorer::of_rules(crate::memory::MemoryRevision::V2);
    e.visit("Kitchen");
    let map = e.map(Some(&g));
    assert!(e.go_to_targets(&map, "kitchen").is_empty());
    // A room the agent has been in is a target.
    e.record_move(Some(&mut g), "Kitchen", Direction::East, "Pantry", None);
    let map = e.map(Some(&g));
    assert_eq!(e.go_to_targets(&map, "kitchen"), vec!["pantry".to_string()]);
}

/// With `--retire close`, the fact a move overrides is closed, superseded by the
/// move's triplets, and kept out of the map.
#[test]
fn a_move_override_closes_the_contradicted_fact() {
    let mut g = AriGraph::new();
    g.set_step(1);
    let stale = Triplet::new("kitchen", "is north of", "hall").unwrap();
    let (old, _) = g.add(stale.clone());
    let mut e = Explorer::of_rules(crate::memory::MemoryRevision::V2).retiring(Retire::Close);
    e.visit("hall");
    g.set_step(4);
    let (_, removed) = e.record_move(Some(&mut g), "Hall", Direction::North, "Pantry", None);
    assert_eq!(removed, vec![stale.clone()]);
    let closed = g.history().closed();
    assert_eq!(closed.len(), 1);
    assert_eq!(
        (closed[0].id, closed[0].since, closed[0].until),
        (old, 1, 4)
    );
    let by: Vec<Triplet> = closed[0]
        .superseded_by
        .iter()
        .map(|id| g.triplet(*id).clone())
        .collect();
    assert!(by.contains(&Triplet::new("pantry", "is north of", "hall").unwrap()));
    assert_eq!(by.len(), 2);
    assert_eq!(
        e.route(Some(&g), "hall", "pantry").unwrap()[0].to,
        "pantry".to_string()
    );
    assert!(e.route(Some(&g), "hall", "kitchen").is_none());
}

/// Rules 4: an extracted fact that joins two rooms the other way round from a move
/// actually made is retired, so A* no longer routes over it; rules 3 keep it.
#[test]
fn a_misread_direction_between_walked_rooms_is_retired() {
    for rules in [
        crate::memory::MemoryRevision::V3,
        crate::memory::MemoryRevision::V4,
    ] {
        let mut g = AriGraph::new();
        let mut e = Explorer::of_rules(rules);
        e.visit("Kitchen");
        // Going north from the kitchen reached the bathroom...
        e.record_move(Some(&mut g), "Kitchen", Direction::North, "Bathroom", None);
        // ...then the extractor read the reverse, and the way back south as leading
        // to a garden.
        let misread = Triplet::new("kitchen", "is north of", "bathroom").unwrap();
        let same = Triplet::new("kitchen", "is south of", "bathroom").unwrap();
        let elsewhere = Triplet::new("garden", "is south of", "bathroom").unwrap();
        let unrelated = Triplet::new("pantry", "is east of", "kitchen").unwrap();
        for t in [&misread, &same, &elsewhere, &unrelated] {
            g.add(t.clone());
        }
        let removed = e.reconcile(&mut g);
        if !rules.overrides_moves() {
            assert!(removed.is_empty());
            continue;
        }
        assert_eq!(removed, vec![misread.clone(), elsewhere.clone()]);
        assert!(g.find(&misread).is_none() && g.find(&elsewhere).is_none());
        assert!(g.find(&same).is_some() && g.find(&unrelated).is_some());
        let route = e.route(Some(&g), "bathroom", "kitchen").unwrap();
        assert_eq!(route[0].direction, Direction::South);
    }
}

/// Rules 4: a route move the game refused retires the unproven facts that sent the
/// agent that way; a fact proven by a move stays (its door may just be closed).
#[test]
fn a_refused_route_move_retires_the_unproven_way() {
    let mut g = AriGraph::new();
    let mut e = Explorer::of_rules(crate::memory::MemoryRevision::V4);
    e.visit("Kitchen");
    let wrong = Triplet::new("bedroom", "is east of", "kitchen").unwrap();
    g.add(wrong.clone());
    let (added, removed) = e.record_move(
        Some(&mut g),
        "Kitchen",
        Direction::East,
        "Kitchen",
        Some("bedroom"),
    );
    assert!(added.is_empty());
    assert_eq!(removed, vec![wrong.clone()]);
    // A door said to be that way is no room: it stays.
    let door = Triplet::new("screen door", "is north of", "kitchen").unwrap();
    g.add(door.clone());
    let (_, removed) = e.record_move(
        Some(&mut g),
        "Kitchen",
        Direction::North,
        "Kitchen",
        Some("pantry"),
    );
    assert!(removed.is_empty());
    assert!(g.find(&door).is_some());
    assert!(e.route(Some(&g), "kitchen", "bedroom").is_none());
    // A way walked before is kept when a closed door stops the route.
    e.record_move(Some(&mut g), "Kitchen", Direction::West, "Bedroom", None);
    let (_, removed) = e.record_move(
        Some(&mut g),
        "Kitchen",
        Direction::West,
        "Kitchen",
        Some("bedroom"),
    );
    assert!(removed.is_empty());
    assert_eq!(
        e.route(Some(&g), "kitchen", "bedroom").unwrap()[0].direction,
        Direction::West
    );
    // A move the agent chose itself (no route) that stays put retires nothing.
    g.add(Triplet::new("garden", "is north of", "kitchen").unwrap());
    let (_, removed) = e.record_move(Some(&mut g), "Kitchen", Direction::North, "Kitchen", None);
    assert!(removed.is_empty());
}
