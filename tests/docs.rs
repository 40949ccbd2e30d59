//! The documentation's links resolve: every relative link of `README.md`,
//! `CHANGELOG.md`, `docs/*.md` and `games/README.md` names a file of the repository, and
//! every `#anchor` a heading of its target (GitHub's heading ids).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents whose links are checked.
fn documents() -> Vec<PathBuf> {
    let mut out = vec![
        root().join("README.md"),
        root().join("CHANGELOG.md"),
        root().join("games/README.md"),
    ];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// GitHub's id of a heading: lowercase, punctuation but `-` and `_` dropped, spaces
/// as `-`.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The links (destinations) and heading ids of a Markdown text.
fn links_and_anchors(text: &str) -> (Vec<String>, HashSet<String>) {
    let mut links = Vec::new();
    let mut anchors = HashSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string());
            }
            Event::Start(Tag::Heading { level, .. }) if level != HeadingLevel::H6 => {
                heading = Some(String::new());
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    anchors.insert(slug(&h));
                }
            }
            _ => {}
        }
    }
    (links, anchors)
}

fn anchors_of(path: &Path) -> HashSet<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    links_and_anchors(&text).1
}

/// The broken relative links of `doc` (whose text is `text`) and how many were checked.
fn broken_links(doc: &Path, text: &str) -> (Vec<String>, usize) {
    let mut broken = Vec::new();
    let mut checked = 0;
    let (links, own) = links_and_anchors(text);
    let dir = doc.parent().expect("a folder");
    for link in links {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        checked += 1;
        let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
        let target = if file.is_empty() {
            doc.to_path_buf()
        } else {
            dir.join(file)
        };
        if !file.is_empty() && !target.exists() {
            broken.push(format!("{}: {link} (no such file)", doc.display()));
            continue;
        }
        if !anchor.is_empty() {
            let anchors = if file.is_empty() {
                own.clone()
            } else {
                anchors_of(&target)
            };
            if !anchors.contains(anchor) {
                broken.push(format!("{}: {link} (no such heading)", doc.display()));
            }
        }
    }
    (broken, checked)
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("document");
        let (b, n) = broken_links(&doc, &text);
        broken.extend(b);
        checked += n;
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 20, "only {checked} links checked");
}

/// The check can fail: a link to a missing file, one to a missing heading of another
/// document and one to a missing heading of its own are found; good ones are not.
#[test]
fn broken_links_are_found() {
    let doc = root().join("README.md");
    let text = "# Memory designs (`--memory`)\n\n[a](nowhere.md) [b](docs/agent.md#no-such) \
                [c](#no-such) [d](#memory-designs---memory) [e](docs/agent.md#what-the-agent-does)";
    let (broken, checked) = broken_links(&doc, text);
    assert_eq!(checked, 5);
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(broken[0].contains("nowhere.md (no such file)"));
    assert!(broken[1].contains("docs/agent.md#no-such (no such heading)"));
    assert!(broken[2].contains("#no-such (no such heading)"));
}
