//! Tests of `rows`.

use super::*;
use crate::memory::MemoryDesign;

#[test]
fn variants_parse() {
    assert_eq!(
        Variant::parse("arigraph-no-exploration").unwrap().label(),
        "AriGraph w/o exploration"
    );
    assert_eq!(
        Variant::parse("simulacra").unwrap().design,
        MemoryDesign::Simulacra
    );
    assert!(Variant::parse("memgpt").is_err());
    // Each design's row carries the design's name, and the designs are the rows' in
    // Table 4's order.
    let mut designs: Vec<MemoryDesign> = Vec::new();
    for r in ROWS {
        if !designs.contains(&r.variant.design) {
            designs.push(r.variant.design);
        }
    }
    assert_eq!(designs, MemoryDesign::all());
    for d in MemoryDesign::all() {
        assert_eq!(Variant::parse(d.name()).unwrap().design, d);
        assert_eq!(design(d.name()).unwrap(), d);
    }
    let none = Variant::parse("no-memory").unwrap();
    assert_eq!(
        (none.design, none.label()),
        (MemoryDesign::NoMemory, "No long-term memory".to_string())
    );
    assert!(!MemoryDesign::NoMemory.has_graph() && !MemoryDesign::NoMemory.chat_in_update());
}

#[test]
fn retrieval_rows_parse_and_set_the_strategy() {
    let beam = Variant::parse("arigraph+beam").unwrap();
    assert_eq!(beam.design, MemoryDesign::Arigraph);
    assert!(beam.exploration);
    assert_eq!(beam.option, VariantOption::Retrieval(Strategy::Beam));
    assert_eq!(beam.label(), "AriGraph + BeamSearch");
    assert_eq!(beam.name(), "arigraph+beam");
    // Extraction, outdated check, exploration check, key items, plan, action.
    assert_eq!(beam.calls_per_step(), 6);
    let bench = MemorySettings {
        depth: 3,
        ..MemorySettings::default()
    };
    let m = beam.memory_settings(&bench);
    assert_eq!(m.retrieval, Strategy::Beam);
    assert_eq!(m.depth, 3);
    // Every strategy but the default has its row, named after it.
    for s in &Strategy::ALL[1..] {
        let row = Variant::parse(&format!("arigraph+{s}")).unwrap();
        assert_eq!(row.memory_settings(&bench).retrieval, *s);
        assert_eq!(row.name(), format!("arigraph+{s}"));
    }
    for (name, check) in [
        (
            "arigraph+temporal",
            (|m: &MemorySettings| m.retire == crate::memory::Retire::Close)
                as fn(&MemorySettings) -> bool,
        ),
        ("arigraph+gating", |m| m.gating),
        ("arigraph+bridge", |m| m.bridge),
        ("arigraph+thesis", |m| m.thesis),
    ] {
        let row = Variant::parse(name).unwrap();
        assert!(check(&row.memory_settings(&bench)), "{name}");
        assert_eq!(row.name(), name);
    }
    // The plain row leaves the bench's strategy alone.
    let plain = Variant::parse("arigraph").unwrap();
    let chosen = MemorySettings {
        retrieval: Strategy::Astar,
        ..MemorySettings::default()
    };
    assert_eq!(plain.memory_settings(&chosen).retrieval, Strategy::Astar);
    // A row is not a design for play, and the error says how to get it.
    // An unknown name is told with the designs play takes, not the bench rows.
    let unknown = design("memgpt").unwrap_err().to_string();
    assert!(
        unknown.contains("known: full-history") && !unknown.contains("arigraph+beam"),
        "{unknown}"
    );
    let err = design("arigraph+beam").unwrap_err();
    assert!(
        err.to_string()
            .contains("--memory arigraph --retrieval beam"),
        "{err}"
    );
    assert!(Variant::parse("arigraph+dfs").is_err());
    // Bench plans written before options existed still read.
    let old: Variant =
        serde_json::from_str(r#"{"design":"arigraph","exploration":false}"#).unwrap();
    assert_eq!(old.option, VariantOption::None);
    assert_eq!(old.name(), "arigraph-no-exploration");
    let round: Variant = serde_json::from_value(serde_json::to_value(beam).unwrap()).unwrap();
    assert_eq!(round, beam);
}

/// A row of another profile is labelled with it, so a bench over profiles has distinct
/// rows; the paper's keeps the paper's label.
#[test]
fn labels_name_a_profile_other_than_the_papers() {
    let paper = Variant::parse("arigraph").unwrap();
    assert_eq!(paper.label(), "AriGraph");
    let extended = Variant {
        profile: Some(crate::profile::Profile::Extended),
        ..paper
    };
    assert_eq!(extended.label(), "AriGraph (extended)");
}

#[test]
fn a_bench_memory_list_skips_empty_entries_and_repeats() {
    let list = |names: &[&str]| {
        Variant::parse_list(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
    };
    let got = list(&["rag", "", "arigraph", "rag", " "]).unwrap();
    assert_eq!(
        got.iter().map(|v| v.name()).collect::<Vec<_>>(),
        ["rag", "arigraph"]
    );
    assert!(
        list(&["", " "])
            .unwrap_err()
            .to_string()
            .starts_with("--memory names no memory design")
    );
    assert!(list(&["arigraph", "ragg"]).is_err());
}
