//! Tests of `options`.

use super::*;

fn rows(designs: &[MemoryDesign]) -> Vec<Row> {
    designs.iter().map(|&d| Row::of(d)).collect()
}

/// [`check`] under the default settings.
fn check(given: &[Given], rows: &[Row]) -> Result<Vec<String>, UserError> {
    super::check(given, rows, &MemorySettings::default())
}

fn flag(option: MemoryOption) -> Given {
    Given {
        option,
        by_flag: true,
    }
}

#[test]
fn an_option_no_row_reads_is_an_error_naming_it_and_the_rows() {
    let e = check(&[flag(Retrieval)], &rows(&[MemoryDesign::NoMemory])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--retrieval changes nothing for --memory no-memory: it sets AriGraph's semantic search (arigraph, arigraph-no-episodic, oracle)"
    );
    // A config key serves every run: one this run does not read is a note.
    let by_key = Given {
        option: Gating,
        by_flag: false,
    };
    let notes = check(&[by_key], &rows(&[MemoryDesign::Oracle, MemoryDesign::Rag])).unwrap();
    assert_eq!(
        notes,
        ["the config key gating is ignored by the rows oracle, rag"]
    );
    // RAG's k is the reference's, fixed: --episodic-k means nothing to it.
    assert!(check(&[flag(EpisodicK)], &rows(&[MemoryDesign::Rag])).is_err());
    assert!(
        check(
            &[flag(EpisodicK)],
            &rows(&[MemoryDesign::ArigraphNoEpisodic])
        )
        .is_err()
    );
}

#[test]
fn rows_that_ignore_an_option_others_read_get_one_note() {
    let notes = check(
        &[flag(Depth), flag(EpisodicK)],
        &rows(&[
            MemoryDesign::Arigraph,
            MemoryDesign::Simulacra,
            MemoryDesign::Summary,
        ]),
    )
    .unwrap();
    assert_eq!(
        notes,
        [
            "--depth is ignored by the rows simulacra, summary",
            "--episodic-k is ignored by the rows simulacra, summary"
        ]
    );
}

#[test]
fn config_keys_are_the_flags_in_snake_case() {
    assert_eq!(OutdatedScope.key(), "outdated_scope");
    assert_eq!(HopScope.key(), "hop_scope");
    assert_eq!(Exclude.key(), "exclude");
    assert_eq!(GoTo.key(), "go_to");
    assert_eq!(Exploration.key(), "exploration");
}

#[test]
fn every_option_is_read_by_arigraph_and_nothing_by_the_history_designs() {
    let none = rows(&[MemoryDesign::Arigraph]);
    let given: Vec<Given> = MemoryOption::ALL
        .iter()
        .filter(|&&o| o != Trials)
        .map(|&o| flag(o))
        .collect();
    // Settings under which each option has something to act on (`--thesis
    // --exclude thesis`: an exclusion that leaves out a kind the memory has).
    let every = MemorySettings {
        thesis: true,
        exclude: vec![VertexKind::Thesis],
        ..MemorySettings::default()
    };
    assert_eq!(
        super::check(&given, &none, &every).unwrap(),
        Vec::<String>::new()
    );
    for d in [
        MemoryDesign::FullHistory,
        MemoryDesign::NoMemory,
        MemoryDesign::Summary,
        MemoryDesign::Rag,
        MemoryDesign::Reflexion,
    ] {
        for &o in &MemoryOption::ALL {
            let trials = d == MemoryDesign::Reflexion && o == Trials;
            assert_eq!(
                check(&[flag(o)], &rows(&[d])).is_ok(),
                trials,
                "{d:?} {o:?}"
            );
        }
    }
    // The oracle writes no triplet by LLM: extraction's options mean nothing to it.
    for o in [OutdatedScope, Gating, Thesis] {
        assert!(check(&[flag(o)], &rows(&[MemoryDesign::Oracle])).is_err());
    }
}

fn variant(option: VariantOption) -> Row {
    crate::rows::Variant {
        design: MemoryDesign::Arigraph,
        exploration: true,
        option,
        profile: None,
    }
    .reading()
}

#[test]
fn a_bench_row_ignores_what_it_sets_itself() {
    let beam = variant(VariantOption::Retrieval(Strategy::Beam));
    let e = check(&[flag(Retrieval)], std::slice::from_ref(&beam)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--retrieval changes nothing for --memory arigraph+beam: the row sets --retrieval beam itself"
    );
    let notes = check(&[flag(Retrieval)], &[beam, Row::of(MemoryDesign::Arigraph)]).unwrap();
    assert_eq!(
        notes,
        ["--retrieval is ignored by the row arigraph+beam: the row sets --retrieval beam itself"]
    );
    let temporal = variant(VariantOption::Temporal);
    assert!(check(&[flag(Retire)], &[temporal]).is_err());
}

#[test]
fn options_the_settings_leave_nothing_to_act_on_are_refused() {
    let arigraph = [Row::of(MemoryDesign::Arigraph)];
    let with = |f: &dyn Fn(&mut MemorySettings)| {
        let mut m = MemorySettings::default();
        f(&mut m);
        m
    };
    let astar = with(&|m| m.retrieval = Strategy::Astar);
    let e = super::check(&[flag(HopScope)], &arigraph, &astar).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--hop-scope changes nothing for --memory arigraph: only the BFS search (--retrieval bfs) reads it, and the row searches with --retrieval astar"
    );
    assert!(super::check(&[flag(Cutoff)], &arigraph, &astar).is_err());
    // The hyper-edge walk reads the cut-off; WaterCircles ranks theses itself.
    let walked = with(&|m| {
        m.retrieval = Strategy::Astar;
        m.thesis = true;
    });
    assert!(super::check(&[flag(Cutoff)], &arigraph, &walked).is_ok());
    let circles = with(&|m| {
        m.retrieval = Strategy::WaterCircles;
        m.thesis = true;
    });
    assert!(super::check(&[flag(Cutoff)], &arigraph, &circles).is_err());
    // --thesis --exclude object: no semantic search to set.
    let objectless = with(&|m| {
        m.thesis = true;
        m.exclude = vec![VertexKind::Object];
    });
    for o in [Retrieval, HopScope, Bridge] {
        let e = super::check(&[flag(o)], &arigraph, &objectless).unwrap_err();
        assert!(e.to_string().contains("has no semantic search"), "{e}");
    }
    for o in [Cutoff, Width] {
        assert!(
            super::check(&[flag(o)], &arigraph, &objectless).is_err(),
            "{o:?}"
        );
    }
    for o in [Depth, EpisodicK] {
        assert!(
            super::check(&[flag(o)], &arigraph, &objectless).is_ok(),
            "{o:?}"
        );
    }
    // ... but WaterCircles still ranks theses and episodes by their entities.
    let circling = MemorySettings {
        retrieval: Strategy::WaterCircles,
        ..objectless.clone()
    };
    assert!(super::check(&[flag(Retrieval)], &arigraph, &circling).is_ok());
    // A walk that crosses no hyper-edge takes no triplet: no cut-off to apply.
    let stuck = with(&|m| {
        m.retrieval = Strategy::Astar;
        m.thesis = true;
        m.exclude = vec![VertexKind::Thesis, VertexKind::Episodic];
    });
    assert!(super::check(&[flag(Cutoff)], &arigraph, &stuck).is_err());
    // --exclude episodic: k has nothing to count.
    let episodeless = with(&|m| m.exclude = vec![VertexKind::Episodic]);
    let e = super::check(&[flag(EpisodicK)], &arigraph, &episodeless).unwrap_err();
    assert!(
        e.to_string()
            .ends_with("--exclude episodic retrieves no episode"),
        "{e}"
    );
    // An --exclude that leaves out nothing the memory has.
    assert!(super::check(&[flag(Exclude)], &arigraph, &with(&|_| {})).is_err());
    let no_episodic = [Row::of(MemoryDesign::ArigraphNoEpisodic)];
    let e = super::check(&[flag(Exclude)], &no_episodic, &episodeless).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--exclude changes nothing for --memory arigraph-no-episodic: it leaves out no kind of vertex the row's memory has"
    );
    assert!(super::check(&[flag(Exclude)], &arigraph, &episodeless).is_ok());
}

#[test]
fn rows_ignoring_for_different_reasons_are_each_named() {
    let rows = [
        Row::of(MemoryDesign::Rag),
        variant(VariantOption::Retrieval(Strategy::Beam)),
    ];
    let e = check(&[flag(Retrieval)], &rows).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--retrieval changes nothing for --memory rag,arigraph+beam: rag: it sets AriGraph's semantic search (arigraph, arigraph-no-episodic, oracle); arigraph+beam: the row sets --retrieval beam itself"
    );
}
