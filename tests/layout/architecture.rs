//! `docs/architecture.md` read as data: its layer table (which top-level module sits in
//! which layer) and its tree of `src/` (which module each entry names, and the text
//! that describes it), so that the tests can hold the document and the code to each
//! other.

use std::collections::BTreeMap;

use crate::scan::ModPath;

/// The document, from the repository.
pub fn read() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md");
    std::fs::read_to_string(path).expect("docs/architecture.md is readable")
}

/// Top-level module -> its layer, from the table under `## Layers` (rows
/// `| N | `a`, `b` | ... |`; the modules are the backticked names of the second cell).
pub fn layers(doc: &str) -> BTreeMap<String, usize> {
    let section = doc
        .split("\n## Layers")
        .nth(1)
        .expect("docs/architecture.md has a `## Layers` section");
    let section = section.split("\n## ").next().unwrap_or_default();
    let mut out = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(n), Some(modules)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(layer) = n.parse::<usize>() else {
            continue;
        };
        for name in modules.split('`').skip(1).step_by(2) {
            let before = out.insert(name.to_string(), layer);
            assert!(before.is_none(), "`{name}` is in two layers");
        }
    }
    out
}

/// One entry of the tree: the module it names and the text that describes it (its
/// line and the wrapped lines under it).
pub struct Entry {
    /// The module (`["memory", "arigraph"]` for `arigraph/` under `memory/`).
    pub module: ModPath,
    /// The entry's description.
    pub text: String,
    /// What it names on disk (`src/view/assets` for a folder of other files).
    pub disk: String,
}

/// The entries of the tree under `src/` in the document's first code block. An entry is
/// a line indented by an even number of spaces (at most 12) whose first word ends in
/// `.rs` or `/`; deeper lines continue the description above them.
pub fn tree(doc: &str) -> Vec<Entry> {
    let block = doc.split("```").nth(1).expect("a code block with the tree");
    let mut out: Vec<Entry> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut in_src = false;
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        let word = line.split_whitespace().next().unwrap_or_default();
        if indent == 0 {
            in_src = word == "src/";
            continue;
        }
        if !in_src {
            continue;
        }
        let is_entry =
            indent % 2 == 0 && indent <= 12 && (word.ends_with(".rs") || word.ends_with('/'));
        if !is_entry {
            if let Some(last) = out.last_mut() {
                last.text.push(' ');
                last.text.push_str(line.trim());
            }
            continue;
        }
        let depth = indent / 2 - 1;
        path.truncate(depth);
        let name = word
            .trim_end_matches('/')
            .trim_end_matches(".rs")
            .to_string();
        path.push(name);
        let mut module: ModPath = match path.as_slice() {
            [only] if only == "lib" || only == "main" => Vec::new(),
            p => p.to_vec(),
        };
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        out.push(Entry {
            disk: format!(
                "src/{}{}",
                path.join("/"),
                if word.ends_with('/') { "" } else { ".rs" }
            ),
            module,
            text: line.trim_start()[word.len()..].trim().to_string(),
        });
    }
    out
}
