//! The codebase's shape, held by tests, from `src/` read with a Rust parser
//! (`layout/scan.rs`): no import cycle between files, the top-level modules importing
//! each other in one direction only, no function over 80 lines or with more than 6
//! arguments, no file over 500 lines; and `docs/architecture.md` held to the code: each
//! top-level module imports only its own layer and the layers below (the document's
//! table), and its tree names every file and no file that is gone.
//!
//! An import is any item a file uses (grouped, relative, `super::` and glob imports,
//! qualified paths in code), resolved through re-exports to the file that defines it; a
//! `pub use` that only re-exports is not an import of the file that writes it. Test
//! modules and `tests.rs` files are left out.

#[path = "layout/architecture.rs"]
mod architecture;
#[path = "layout/scan.rs"]
mod scan;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use scan::{FileScan, ModPath};

/// The longest a non-test source file may be.
const MAX_LINES: usize = 500;
/// The longest a non-test function may be, from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;
/// The most arguments a non-test function may take (`self` counted).
const MAX_ARGUMENTS: usize = 6;

/// Every non-test file of the crate, by module.
struct Crate {
    files: BTreeMap<ModPath, FileScan>,
}

impl Crate {
    fn read() -> Crate {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let src = root.join("src");
        let files = scan::sources(&src)
            .iter()
            .map(|p| {
                let f = scan::scan(&src, root, p);
                (f.module.clone(), f)
            })
            .collect();
        Crate { files }
    }

    /// The file that defines what `path` names, following re-exports; the deepest
    /// module on the path when the name is not found there.
    fn resolve(&self, path: &[String], depth: usize) -> Option<&FileScan> {
        let k = (0..=path.len())
            .rev()
            .find(|&k| self.files.contains_key(&path[..k]))?;
        let file = &self.files[&path[..k]];
        let Some(name) = path.get(k) else {
            return Some(file);
        };
        if file.defines.contains(name) || depth > 8 {
            return Some(file);
        }
        let rest = &path[k + 1..];
        if let Some(target) = file.reexports.get(name) {
            let full: Vec<String> = target.iter().chain(rest).cloned().collect();
            return self.resolve(&full, depth + 1).or(Some(file));
        }
        for glob in &file.globs {
            let full: Vec<String> = glob.iter().chain(&path[k..]).cloned().collect();
            if let Some(found) = self.resolve(&full, depth + 1)
                && found.defines.contains(name)
            {
                return Some(found);
            }
        }
        Some(file)
    }

    /// File -> the files it imports.
    fn file_graph(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        self.evidence()
            .into_iter()
            .map(|(f, t)| (f, t.into_keys().collect()))
            .collect()
    }

    /// File -> each file it imports, with one path it uses there (`crate::x::Y`).
    fn evidence(&self) -> BTreeMap<PathBuf, BTreeMap<PathBuf, String>> {
        let mut g: BTreeMap<PathBuf, BTreeMap<PathBuf, String>> = BTreeMap::new();
        for f in self.files.values() {
            let targets = g.entry(f.file.clone()).or_default();
            for used in &f.uses {
                if let Some(t) = self.resolve(used, 0)
                    && t.file != f.file
                {
                    targets
                        .entry(t.file.clone())
                        .or_insert_with(|| format!("crate::{}", used.join("::")));
                }
            }
        }
        g
    }
}

/// The top-level module of a file (`memory` for `src/memory/graph.rs`, `lib` for
/// `src/lib.rs`).
fn top(file: &Path) -> String {
    let mut c = file.components().skip(1);
    let first = c
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    first
        .unwrap_or_default()
        .trim_end_matches(".rs")
        .to_string()
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn cycles<N: Ord + Clone>(g: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on: BTreeSet<N>,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(g: &BTreeMap<N, BTreeSet<N>>, v: &N, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        for w in g.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(g, w, s);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(&w);
                let done = &w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v) {
            visit(g, v, &mut s);
        }
    }
    s.out
}

#[test]
fn no_import_cycle_between_files() {
    let c = Crate::read();
    let g = c.file_graph();
    let evidence = c.evidence();
    let memory = PathBuf::from("src/memory/mod.rs");
    assert!(
        g.values().any(|t| t.contains(&memory)) && g.len() > 100,
        "the scan reads the crate and resolves imports: {} files",
        g.len()
    );
    let found: Vec<String> = cycles(&g)
        .iter()
        .map(|c| {
            c.iter()
                .flat_map(|a| c.iter().map(move |b| (a, b)))
                .filter_map(|(a, b)| {
                    let used = evidence[a].get(b)?;
                    Some(format!("  {} uses {used}", a.display()))
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles between files (move what both sides use into a file of its own):\n{}",
        found.join("\n\n")
    );
}

#[test]
fn top_level_modules_import_each_other_in_one_direction() {
    let g = Crate::read().file_graph();
    let mut tops: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in &g {
        let t = tops.entry(top(from)).or_default();
        t.extend(targets.iter().map(|p| top(p)).filter(|m| *m != top(from)));
    }
    assert!(
        tops["memory"].contains("llm"),
        "the scan reads imports: {tops:?}"
    );
    let found = cycles(&tops);
    assert!(found.is_empty(), "top-level import cycles: {found:?}");
}

/// The module path of a file: `src/memory/strategies/beam.rs` is `memory::strategies::beam`,
/// a `mod.rs` its folder's module.
fn module_of(file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .components()
        .skip(1)
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// Sibling modules (two children of one module, a file or a folder each) import each other
/// in one direction only: `memory::thesis` and `memory::strategies` may not both use the
/// other, whichever of their files the uses sit in. A module's own `mod.rs` and its
/// children are parent and child, not siblings.
fn sibling_cycles(g: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<String>> {
    let mut siblings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in g {
        let a = module_of(from);
        for to in targets {
            let b = module_of(to);
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            if common == 0 || common >= a.len() || common >= b.len() {
                continue;
            }
            let name = |m: &[String]| m[..=common].join("::");
            siblings.entry(name(&a)).or_default().insert(name(&b));
        }
    }
    cycles(&siblings)
}

#[test]
fn sibling_modules_import_each_other_in_one_direction() {
    let g = Crate::read().file_graph();
    let found = sibling_cycles(&g);
    assert!(
        found.is_empty(),
        "modules that import each other (move what both use into a module of its own): {found:?}"
    );
    // The check can fail: two sibling folders whose files use each other.
    let mut circle: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    circle.insert(
        "src/memory/thesis.rs".into(),
        ["src/memory/strategies/traversal.rs".into()].into(),
    );
    circle.insert(
        "src/memory/strategies/water_circles.rs".into(),
        ["src/memory/thesis.rs".into()].into(),
    );
    circle.insert(
        "src/memory/mod.rs".into(),
        ["src/memory/thesis.rs".into()].into(),
    );
    assert_eq!(
        sibling_cycles(&circle),
        [vec![
            "memory::strategies".to_string(),
            "memory::thesis".to_string()
        ]]
    );
}

/// The names by which code asks which memory design it has.
const DESIGN_NAMES: [&str; 4] = [
    "MemoryDesign",
    "memory::baselines",
    "memory::arigraph",
    "judge::oracle",
];

/// The design names `text` uses.
fn names_a_design(text: &str) -> Vec<&'static str> {
    DESIGN_NAMES
        .into_iter()
        .filter(|n| text.contains(n))
        .collect()
}

/// The agent never asks which memory it has: what a design puts in working memory is
/// the design's (`MemoryModule::layout`, `MemoryModule::past`).
#[test]
fn the_agent_never_names_a_memory_design() {
    let sources = sources_under("src/agent");
    let read = sources.len();
    let mut found = Vec::new();
    for (path, text) in &sources {
        for n in names_a_design(text) {
            found.push(format!("{} names {n}", path.display()));
        }
    }
    assert!(read > 10, "only {read} files of src/agent read");
    assert!(
        found.is_empty(),
        "the agent asks which memory it has:\n{}",
        found.join("\n")
    );
    assert_eq!(
        names_a_design("if self.memory.design() == crate::memory::MemoryDesign::FullHistory {"),
        ["MemoryDesign"]
    );
}

/// The sources under `dir`, tests files left out.
fn sources_under(dir: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source folder").flatten() {
            let path = entry.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if path.is_dir() {
                stack.push(path);
            } else if name.is_some_and(|n| n.ends_with(".rs") && !n.ends_with("tests.rs")) {
                let text = std::fs::read_to_string(&path).expect("source");
                out.push((path, text));
            }
        }
    }
    out
}

/// An operation (`src/ops`) prints nothing: it returns what happened and the command
/// says it.
#[test]
fn operations_print_nothing() {
    let sources = sources_under("src/ops");
    assert!(sources.len() > 5, "src/ops read");
    let printing: Vec<String> = sources
        .iter()
        .filter(|(_, text)| {
            ["println!(", "eprintln!(", "print!(", "eprint!("]
                .iter()
                .any(|m| text.contains(m))
        })
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(printing.is_empty(), "operations that print: {printing:?}");
}

/// Text is cut in one place, `src/text.rs` (characters, never bytes).
#[test]
fn text_is_cut_only_by_text_rs() {
    let sources = sources_under("src");
    assert!(sources.len() > 100, "src read");
    let cutting: Vec<String> = sources
        .iter()
        .filter(|(path, text)| !path.ends_with("src/text.rs") && text.contains(".chars().take("))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(
        cutting.is_empty(),
        "cut text with text::first_chars, clip or with_ellipsis: {cutting:?}"
    );
}

#[test]
fn functions_are_short_and_take_few_arguments() {
    let c = Crate::read();
    let mut over = Vec::new();
    let mut seen = 0;
    for f in c.files.values() {
        for (name, lines, args) in &f.functions {
            seen += 1;
            if *lines > MAX_FUNCTION_LINES || *args > MAX_ARGUMENTS {
                over.push(format!(
                    "{}::{name}: {lines} lines, {args} arguments",
                    f.file.display()
                ));
            }
        }
    }
    assert!(seen > 1000, "the scan reads the functions: {seen}");
    assert!(
        over.is_empty(),
        "over {MAX_FUNCTION_LINES} lines or {MAX_ARGUMENTS} arguments (cut by concern, or group the arguments in a type):\n{over:#?}"
    );
}

#[test]
fn no_lint_allowance_for_long_argument_lists() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: Vec<String> = scan::sources(&src)
        .iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("too_many_arguments")))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        allowed.is_empty(),
        "allow(clippy::too_many_arguments) in {allowed:?}"
    );
}

/// The scan sees grouped, relative and `super::` imports, leaves test code out, and the
/// cycle search finds a cycle where there is one.
#[test]
fn the_scan_sees_what_it_should() {
    let c = Crate::read();
    let agent = &c.files[&vec!["agent".to_string()]];
    assert!(!agent.uses.is_empty() && !agent.functions.is_empty());
    let mut g: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")] {
        g.entry(a).or_default().insert(b);
    }
    assert_eq!(cycles(&g), vec![vec!["x", "y", "z"]]);
}

#[test]
fn no_source_file_is_over_500_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let long: Vec<String> = scan::sources(&src)
        .iter()
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

#[test]
fn top_level_modules_import_only_their_layer_and_those_below() {
    let c = Crate::read();
    let layers = architecture::layers(&architecture::read());
    let tops: BTreeSet<String> = c
        .files
        .values()
        .map(|f| top(&f.file))
        .filter(|t| t != "lib")
        .collect();
    let listed: BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(
        tops, listed,
        "docs/architecture.md's layer table must list every top-level module once"
    );
    let mut upward = Vec::new();
    for (from, targets) in c.evidence() {
        let (a, la) = (top(&from), layers.get(&top(&from)).copied().unwrap_or(0));
        for (to, used) in targets {
            let b = top(&to);
            if let Some(&lb) = layers.get(&b)
                && lb > la
            {
                upward.push(format!(
                    "{} (`{a}`, layer {la}) uses {used} (`{b}`, layer {lb})",
                    from.display()
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run up the layers of docs/architecture.md:\n{}",
        upward.join("\n")
    );
}

#[test]
fn architecture_md_names_every_file_and_none_that_is_gone() {
    let c = Crate::read();
    let entries = architecture::tree(&architecture::read());
    assert!(
        entries.len() > 50,
        "the tree is read: {} entries",
        entries.len()
    );
    let modules: BTreeSet<&ModPath> = c.files.keys().collect();
    let gone: Vec<String> = entries
        .iter()
        .filter(|e| {
            let on_disk = Path::new(env!("CARGO_MANIFEST_DIR")).join(&e.disk);
            !modules.contains(&e.module) && !on_disk.exists()
        })
        .map(|e| e.disk.clone())
        .collect();
    assert!(
        gone.is_empty(),
        "docs/architecture.md names modules that do not exist: {gone:?}"
    );
    let named: BTreeMap<&ModPath, &str> = entries
        .iter()
        .map(|e| (&e.module, e.text.as_str()))
        .collect();
    let declared = |m: &ModPath| {
        let (last, parent) = m.split_last().expect("not the root");
        c.files
            .get(parent)
            .is_some_and(|p| p.children.contains(last))
    };
    let missing: Vec<String> = c
        .files
        .values()
        .filter(|f| !f.module.is_empty() && declared(&f.module))
        .filter(|f| {
            let (last, parent) = f.module.split_last().expect("not the root");
            !named.contains_key(&f.module)
                && !named.get(&parent.to_vec()).is_some_and(|text| {
                    text.split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                        .any(|w| w == last)
                })
        })
        .map(|f| f.file.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files docs/architecture.md does not name (an entry of their own, or their name in their folder's entry): {missing:?}"
    );
}
