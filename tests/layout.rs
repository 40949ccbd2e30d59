//! The codebase's shape, held by tests: the top-level modules of `src/` import each other
//! in one direction only (no cycle), and no source file outside the test files is longer
//! than 500 lines.
//!
//! Imports are read from the code (`crate::MODULE` outside comments and outside test
//! modules), so a doc link to a module above does not count as an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest a non-test source file may be.
const MAX_LINES: usize = 500;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Test files: the `tests.rs` modules.
fn is_test_file(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "tests.rs")
}

/// The top-level module a file of `src/` belongs to (`memory` for
/// `src/memory/graph.rs`, `cli` for `src/cli.rs`).
fn top_module(src: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(src).expect("under src");
    let first = rel
        .components()
        .next()
        .expect("a component")
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// The top-level modules `text` imports through `crate::NAME`, outside comments and
/// outside an inline test module.
fn imports(text: &str) -> BTreeSet<String> {
    let code = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or_default();
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
            rest = after;
        }
    }
    out
}

/// The import graph of `src/`'s top-level modules, with one file per edge as evidence.
fn graph(src: &Path) -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut g: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for p in files.iter().filter(|p| !is_test_file(p)) {
        let from = top_module(src, p);
        let text = std::fs::read_to_string(p).expect("a source file is UTF-8");
        for to in imports(&text) {
            if to != from {
                g.entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert_with(|| p.clone());
            }
        }
    }
    g
}

/// A cycle through `start`, as the modules on it, if there is one.
fn cycle_through(
    g: &BTreeMap<String, BTreeMap<String, PathBuf>>,
    start: &str,
) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((at, path)) = stack.pop() {
        for next in g.get(&at).into_iter().flat_map(|m| m.keys()) {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut p = path.clone();
                p.push(next.clone());
                stack.push((next.clone(), p));
            }
        }
    }
    None
}

#[test]
fn top_level_modules_import_each_other_in_one_direction() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    assert!(
        g.get("memory").is_some_and(|m| m.contains_key("llm")),
        "the scan reads imports (memory uses llm): {g:?}"
    );
    let mut cycles = Vec::new();
    for m in g.keys() {
        if let Some(c) = cycle_through(&g, m) {
            let evidence: Vec<String> = c
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], g[&w[0]][&w[1]].display()))
                .collect();
            cycles.push(evidence.join(", "));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The scan finds a cycle where there is one, and ignores comments and test modules.
#[test]
fn the_cycle_scan_sees_what_it_should() {
    let seen = imports(
        "use crate::a::X;\n// crate::b in a comment\n  /// [`crate::c`]\nfn f() { crate::d::g(); }\n#[cfg(test)]\nmod tests {\n use crate::e;\n}\n",
    );
    assert_eq!(seen, BTreeSet::from(["a".to_string(), "d".to_string()]));
    let mut g: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        g.entry(a.into())
            .or_default()
            .insert(b.into(), PathBuf::new());
    }
    assert_eq!(
        cycle_through(&g, "x"),
        Some(vec!["x".into(), "y".into(), "z".into(), "x".into()])
    );
    assert_eq!(cycle_through(&g, "w"), None);
}

#[test]
fn no_source_file_is_over_500_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter(|p| !is_test_file(p))
        .filter_map(|p| {
            let n = std::fs::read_to_string(p).ok()?.lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines (split by concern; tests go to a tests.rs of their own): {long:?}"
    );
}
