use super::read_embeddings;
use crate::llm::http::Body;

/// Huge components (1e20: their squares overflow f32) still give a unit vector.
#[test]
fn huge_embeddings_normalize_to_unit_length() {
    let v = read_embeddings(
        &Body::decode(br#"{"data":[{"embedding":[3e20,4e20]}]}"#),
        1,
        None,
    )
    .unwrap();
    assert!(
        (v[0][0] - 0.6).abs() < 1e-6 && (v[0][1] - 0.8).abs() < 1e-6,
        "{v:?}"
    );
    // Beyond f32's range (1e40 would cast to infinity) and below it (1e-50 would
    // cast to zero): read in f64 and scaled first, the direction is kept.
    for body in [
        &br#"{"data":[{"embedding":[3e40,4e40]}]}"#[..],
        &br#"{"data":[{"embedding":[3e-50,4e-50]}]}"#[..],
    ] {
        let v = read_embeddings(&Body::decode(body), 1, None).unwrap();
        assert!(
            (v[0][0] - 0.6).abs() < 1e-6 && (v[0][1] - 0.8).abs() < 1e-6,
            "{v:?}"
        );
    }
}

#[test]
fn embeddings_are_checked_whole() {
    let ok = br#"{"data":[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,0]}]}"#;
    let v = read_embeddings(&Body::decode(ok), 2, None).unwrap();
    assert_eq!(v, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    let cases: &[(&[u8], &str)] = &[
        (
            br#"{"data":[{"index":0,"embedding":[[1,2]]}]}"#,
            "array of arrays",
        ),
        (
            br#"{"data":[{"index":0,"embedding":[1,null]}]}"#,
            "not a number",
        ),
        (
            br#"{"data":[{"index":1,"embedding":[1,2]}]}"#,
            "outside 0..1",
        ),
        (br#"{"data":[{"index":0,"embedding":[0,0]}]}"#, "all zero"),
        (br#"{"data":[]}"#, "asked for 1 embeddings, got 0"),
        (
            br#"{"data":[{"index":0,"embedding":[1,2,3]}]}"#,
            "dimension 3",
        ),
    ];
    for (body, want) in cases {
        let e = read_embeddings(&Body::decode(body), 1, Some(2)).unwrap_err();
        assert!(e.contains(want), "{e} should contain {want}");
    }
    let dup = br#"{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}"#;
    assert!(
        read_embeddings(&Body::decode(dup), 2, None)
            .unwrap_err()
            .contains("twice")
    );
}
