use super::*;

#[test]
fn every_kind_has_one_row() {
    for (i, r) in TABLE.iter().enumerate() {
        assert_eq!(
            TABLE.iter().filter(|o| o.kind == r.kind).count(),
            1,
            "{:?}",
            r.kind
        );
        assert!(std::ptr::eq(r.kind.row(), &TABLE[i]));
        // A kind that ends the run for the user to fix names what to change.
        if r.retried != Retried::WithinBudget && r.exit == 2 && r.kind != Kind::Refused {
            assert!(
                !r.kind.fix("chat", "http://h/v1").is_empty(),
                "{:?}",
                r.kind
            );
        }
    }
}

#[test]
fn the_table_in_docs_reliability_md_is_the_code_s() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reliability.md"))
        .expect("docs/reliability.md");
    let table = markdown();
    assert!(
        doc.contains(&table),
        "docs/reliability.md must hold the retry table as the code has it:\n{table}"
    );
}

#[test]
fn statuses_are_classified_as_a_user_reads_them() {
    let v1 = "http://127.0.0.1:8080/v1";
    let json = br#"{"error": {"message": "x"}}"#;
    let html = b"<html><title>Error</title></html>";
    let cases: &[(u16, &[u8], &str, Kind)] = &[
        (429, b"slow down", v1, Kind::RateLimited),
        (500, json, v1, Kind::ServerError),
        (500, b"", v1, Kind::ServerError),
        (503, json, v1, Kind::ServerError),
        (502, b"Bad Gateway", v1, Kind::Gateway),
        (504, html, v1, Kind::Gateway),
        (500, html, v1, Kind::ServerPage),
        (500, b"Internal Server Error", v1, Kind::ServerPage),
        (501, html, v1, Kind::NotImplemented),
        (400, json, v1, Kind::BadRequest),
        (401, b"nope", v1, Kind::Unauthorized),
        (403, json, v1, Kind::Forbidden),
        (
            404,
            br#"{"error": "model \"x\" not found, try pulling it first"}"#,
            v1,
            Kind::UnknownModel,
        ),
        (
            404,
            br#"{"error": {"message": "Invalid URL (POST /v1/x/chat/completions)"}}"#,
            v1,
            Kind::NotFoundPage,
        ),
        (
            404,
            b"<html><title>Not Found</title>model</html>",
            v1,
            Kind::NotFoundPage,
        ),
        (408, b"", v1, Kind::RateLimited),
        (302, b"", v1, Kind::Redirect),
        (307, html, v1, Kind::Redirect),
        (404, b"", "http://127.0.0.1:8080", Kind::NoV1),
        (404, html, v1, Kind::NotFoundPage),
        (405, b"", v1, Kind::MethodNotAllowed),
        (422, json, v1, Kind::ClientError),
    ];
    for (status, body, base, kind) in cases {
        assert_eq!(Kind::of_status(*status, body, base), *kind, "{status}");
    }
}

#[test]
fn success_bodies_that_are_no_answer_are_told_apart() {
    assert_eq!(Kind::of_success(b"<!DOCTYPE html>"), Some(Kind::HtmlAnswer));
    assert_eq!(Kind::of_success(b"hello"), Some(Kind::TextAnswer));
    assert_eq!(Kind::of_success(b"  "), Some(Kind::CutAnswer));
    assert_eq!(
        Kind::of_success(br#"{"choices": [{"message": {"content": "{\"a"#),
        Some(Kind::CutAnswer)
    );
    // JSON, JSON-like text that does not parse, events and bytes that are not UTF-8
    // are answers to judge.
    assert_eq!(Kind::of_success(br#"{"choices": []}"#), None);
    assert_eq!(Kind::of_success(br#"{"choices": [}"#), None);
    assert_eq!(Kind::of_success(b"data: {}\n\ndata: [DONE]\n"), None);
    assert_eq!(Kind::of_success(b"{\"a\": \"\xff\"}"), None);
}

#[test]
fn the_v1_hint_is_given_only_when_the_path_lacks_it() {
    assert!(has_v1("http://h:1/v1"));
    assert!(has_v1("https://h/openai/v1/"));
    assert!(has_v1("https://h/v1beta/openai"));
    assert!(!has_v1("http://h:1"));
    assert!(!has_v1("http://v1.example.com/api"));
    assert!(
        Kind::NotImplemented
            .fix("chat", "http://h:1")
            .contains("http://h:1/v1")
    );
    assert!(
        !Kind::NotImplemented
            .fix("chat", "http://h:1/v1")
            .contains("/v1")
    );
    assert!(
        Kind::UnknownModel
            .fix("chat", "x")
            .contains("--model / ARIADNE_MODEL")
    );
    assert!(
        Kind::UnknownModel
            .fix("embedding", "x")
            .contains("--embed-model")
    );
    assert!(
        Kind::Unauthorized
            .fix("chat", "x")
            .contains("OPENAI_API_KEY")
    );
    assert!(
        Kind::NoV1
            .fix("chat", "http://h")
            .contains("try http://h/v1 (--base-url / OPENAI_BASE_URL)")
    );
    let embed = Kind::HtmlAnswer.fix("embedding", "http://h/v1");
    assert!(
        embed.contains("--embed-base-url / ARIADNE_EMBED_BASE_URL")
            && !embed.contains(" OPENAI_BASE_URL"),
        "{embed}"
    );
}

#[test]
fn html_titles_are_read() {
    assert_eq!(
        html_title("<html><head><TITLE>Error response</TITLE>").as_deref(),
        Some("Error response")
    );
    assert_eq!(html_title("<html></html>"), None);
}

/// Every kind, in the table's order; the match below stops the build when a kind is
/// added without being listed here.
const KINDS: [Kind; 20] = [
    Kind::RateLimited,
    Kind::ServerError,
    Kind::Gateway,
    Kind::ServerPage,
    Kind::NotImplemented,
    Kind::BadRequest,
    Kind::Unauthorized,
    Kind::Forbidden,
    Kind::NoV1,
    Kind::UnknownModel,
    Kind::NotFoundPage,
    Kind::MethodNotAllowed,
    Kind::Redirect,
    Kind::ClientError,
    Kind::HtmlAnswer,
    Kind::TextAnswer,
    Kind::CutAnswer,
    Kind::TimedOut,
    Kind::Dropped,
    Kind::Refused,
];

fn listed(kind: Kind) -> bool {
    match kind {
        Kind::RateLimited
        | Kind::ServerError
        | Kind::Gateway
        | Kind::ServerPage
        | Kind::NotImplemented
        | Kind::BadRequest
        | Kind::Unauthorized
        | Kind::Forbidden
        | Kind::NoV1
        | Kind::UnknownModel
        | Kind::NotFoundPage
        | Kind::MethodNotAllowed
        | Kind::Redirect
        | Kind::ClientError
        | Kind::HtmlAnswer
        | Kind::TextAnswer
        | Kind::CutAnswer
        | Kind::TimedOut
        | Kind::Dropped
        | Kind::Refused => KINDS.contains(&kind),
    }
}

#[test]
fn every_kind_is_a_row_of_the_table() {
    assert_eq!(TABLE.len(), KINDS.len());
    for (row, kind) in TABLE.iter().zip(KINDS) {
        assert!(listed(kind));
        assert_eq!(row.kind, kind);
        assert!(std::ptr::eq(kind.row(), row));
    }
}
