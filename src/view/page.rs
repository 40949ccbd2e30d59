//! The HTML page: one file with the style, the data, the vendored graph library and the
//! page's own script inline, so it opens from disk with no server and no network.
//!
//! The graph library is Cytoscape.js (npm `cytoscape`, pinned and vendored under
//! `vendor/cytoscape/` with its license; `vendor/README.md` says how it was obtained).

use anyhow::Result;

use super::data::PageData;

/// The vendored Cytoscape.js, minified.
pub const CYTOSCAPE_JS: &str = include_str!("../../vendor/cytoscape/cytoscape.min.js");

/// Cytoscape.js's license, copied into the page beside the library.
const CYTOSCAPE_LICENSE: &str = include_str!("../../vendor/cytoscape/LICENSE");

/// The page's markup, a minijinja template: the title is escaped as HTML, the style,
/// data, library and script are inserted as they are (`| safe`).
const TEMPLATE: &str = include_str!("assets/page.html");

/// The page's style.
const STYLE: &str = include_str!("assets/view.css");

/// The page's own script, in load order.
const SCRIPTS: [&str; 4] = [
    include_str!("assets/main.js"),
    include_str!("assets/graph.js"),
    include_str!("assets/panel.js"),
    include_str!("assets/charts.js"),
];

/// JSON that can sit inside a `<script>` element: every `<` is written `\u003c` (only
/// strings can hold one), so no text of the run can close the element.
pub fn script_json(data: &PageData) -> Result<String> {
    Ok(serde_json::to_string(data)?.replace('<', "\\u003c"))
}

/// The whole page.
///
/// # Errors
/// Serialization errors.
pub fn render(data: &PageData) -> Result<String> {
    let title = format!(
        "{} · {} · {}",
        data.run.game, data.run.design, data.run.run_id
    );
    let json = script_json(data)?;
    fill(&title, &json)
}

/// The page of `title` (escaped as HTML) around the run's `json` (see [`script_json`]).
fn fill(title: &str, json: &str) -> Result<String> {
    let license = format!(
        "/*! Cytoscape.js, vendored (see vendor/README.md).\n{}*/\n",
        CYTOSCAPE_LICENSE.replace("*/", "* /")
    );
    let script: String = SCRIPTS.iter().map(|s| format!("{s}\n")).collect();
    let mut env = minijinja::Environment::new();
    env.set_keep_trailing_newline(true);
    env.add_template("page.html", TEMPLATE)?;
    let html = env.get_template("page.html")?.render(minijinja::context! {
        title => title,
        style => STYLE,
        data => json,
        library => format!("{license}{CYTOSCAPE_JS}"),
        script => script,
    })?;
    Ok(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vendored_library_is_the_pinned_release() {
        use sha2::{Digest, Sha256};
        // vendor/README.md: npm cytoscape 3.35.0, dist/cytoscape.min.js.
        assert_eq!(
            hex::encode(Sha256::digest(CYTOSCAPE_JS.as_bytes())),
            "71fa9ebec21a7ca2c40cff6aacc30d1f6464e363662ad4b2c197e1adc770cd94"
        );
        assert!(CYTOSCAPE_LICENSE.contains("Permission is hereby granted"));
    }

    #[test]
    fn the_title_is_escaped_and_the_parts_are_whole() {
        let html = fill("<b>'run' & \"game\"</b>", r#"{"a": "\u003c/script>"}"#).unwrap();
        assert!(
            html.contains(
                "<title>&lt;b&gt;&#x27;run&#x27; &amp; &quot;game&quot;&lt;&#x2f;b&gt;</title>"
            ),
            "{}",
            &html[..400]
        );
        assert!(html.contains(r#"{"a": "\u003c/script>"}"#));
        assert!(html.contains(CYTOSCAPE_JS) && html.contains(STYLE));
        assert!(SCRIPTS.iter().all(|s| html.contains(s)));
    }

    #[test]
    fn the_library_and_scripts_cannot_close_their_element() {
        for s in SCRIPTS.iter().chain([&CYTOSCAPE_JS]) {
            assert!(!s.to_ascii_lowercase().contains("</script"));
        }
        for part in [
            "{{ title }}",
            "{{ style | safe }}",
            "{{ data | safe }}",
            "{{ library | safe }}",
            "{{ script | safe }}",
        ] {
            assert!(TEMPLATE.contains(part), "{part}");
        }
    }
}
