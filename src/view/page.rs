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

/// The page's markup; `@@NAME@@` marks where the parts go.
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

/// Escape text for an HTML element or attribute.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

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
    let license = format!(
        "/*! Cytoscape.js, vendored (see vendor/README.md).\n{}*/\n",
        CYTOSCAPE_LICENSE.replace("*/", "* /")
    );
    let mut html = String::with_capacity(
        TEMPLATE.len() + STYLE.len() + json.len() + CYTOSCAPE_JS.len() + 64 * 1024,
    );
    let mut rest = TEMPLATE;
    while let Some(start) = rest.find("@@") {
        html.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("@@") else {
            html.push_str(&rest[start..]);
            rest = "";
            break;
        };
        match &after[..end] {
            "TITLE" => html.push_str(&escape_html(&title)),
            "STYLE" => html.push_str(STYLE),
            "DATA" => html.push_str(&json),
            "LIBRARY" => {
                html.push_str(&license);
                html.push_str(CYTOSCAPE_JS);
            }
            "SCRIPT" => {
                for s in SCRIPTS {
                    html.push_str(s);
                    html.push('\n');
                }
            }
            other => {
                html.push_str("@@");
                html.push_str(other);
                html.push_str("@@");
            }
        }
        rest = &after[end + 2..];
    }
    html.push_str(rest);
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
    fn html_escaping() {
        assert_eq!(
            escape_html(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_library_and_scripts_cannot_close_their_element() {
        for s in SCRIPTS.iter().chain([&CYTOSCAPE_JS]) {
            assert!(!s.to_ascii_lowercase().contains("</script"));
        }
        for part in [
            "@@TITLE@@",
            "@@STYLE@@",
            "@@DATA@@",
            "@@LIBRARY@@",
            "@@SCRIPT@@",
        ] {
            assert!(TEMPLATE.contains(part), "{part}");
        }
    }
}
