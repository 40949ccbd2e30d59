//! Tests of `graph`.

use super::*;

fn t(s: &str, r: &str, o: &str) -> Triplet {
    Triplet::new(s, r, o).unwrap()
}

#[test]
fn triplets_are_normalized_and_deduplicated() {
    let mut g = AriGraph::new();
    let (a, new_a) = g.add(t("  Key ", "is in", "Locker."));
    let (b, new_b) = g.add(t("key", "IS  in", "locker"));
    assert_eq!(a, b);
    assert!(new_a && !new_b);
    assert_eq!(g.edge_count(), 1);
    assert_eq!(g.vertex_count(), 2);
    assert!(Triplet::new("key", "is", "key").is_none());
    assert!(Triplet::new("", "is", "key").is_none());
    assert!(Triplet::new("trunk", "has exit", "None").is_none());
    assert!(Triplet::new("nothing", "is in", "inventory").is_none());
}

#[test]
fn replacement_keeps_episodes_and_revives_ids() {
    let mut g = AriGraph::new();
    let (old, _) = g.add(t("key", "is in", "locker"));
    g.add_episode(1, "You see a key in the locker.".into(), vec![old]);
    assert!(g.remove(old));
    assert!(!g.remove(old));
    let (new, _) = g.add(t("key", "is in", "inventory"));
    assert_eq!(g.find(&t("key", "is in", "locker")), None);
    assert_eq!(g.incident_to(["key"]), vec![new]);
    assert_eq!(g.incident_to(["locker"]), Vec::<TripletId>::new());
    assert_eq!(g.episodes()[0].triplets, vec![old]);
    let (again, fresh) = g.add(t("key", "is in", "locker"));
    assert_eq!(again, old);
    assert!(fresh);
}

/// The relation index gives what a filter over [`AriGraph::alive_ids`] would, in the
/// same order, through removals and revivals.
#[test]
fn triplets_by_relation_follow_removals_and_revivals() {
    let mut g = AriGraph::new();
    let (a, _) = g.add(t("hall", "is north of", "kitchen"));
    let (b, _) = g.add(t("key", "is in", "locker"));
    let (c, _) = g.add(t("pantry", "is east of", "kitchen"));
    let spatial = |g: &AriGraph| g.alive_ids_with_relation(|r| r.ends_with(" of"));
    let by_scan = |g: &AriGraph| -> Vec<TripletId> {
        g.alive_ids()
            .filter(|&id| g.triplet(id).relation.ends_with(" of"))
            .collect()
    };
    assert_eq!(spatial(&g), vec![a, c]);
    g.remove(a);
    assert_eq!(spatial(&g), vec![c]);
    assert_eq!(spatial(&g), by_scan(&g));
    g.add(t("hall", "is north of", "kitchen"));
    assert_eq!(spatial(&g), vec![a, c]);
    assert_eq!(spatial(&g), by_scan(&g));
    assert_eq!(g.alive_ids_with_relation(|r| r == "is in"), vec![b]);
}
