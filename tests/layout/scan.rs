//! Reads `src/` with a Rust parser (syn): every file's module path, the items it
//! defines and re-exports, the items it uses (grouped, relative and `super::` imports
//! and qualified paths in code, each resolved through re-exports to the file that
//! defines it), and its functions' lengths and argument counts. Test modules
//! (`#[cfg(test)]`) and `tests.rs` files are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// A module path from the crate root (`["memory", "arigraph"]`).
pub type ModPath = Vec<String>;

/// One non-test source file, read.
#[derive(Debug, Default)]
pub struct FileScan {
    /// The file, relative to the repository (`src/memory/graph.rs`).
    pub file: PathBuf,
    /// The module it is.
    pub module: ModPath,
    /// Names of the items it defines (functions, types, traits, constants, macros).
    pub defines: BTreeSet<String>,
    /// Child modules it declares (`mod x;`).
    pub children: BTreeSet<String>,
    /// Its public re-exports: name -> the path it names (absolute).
    pub reexports: BTreeMap<String, ModPath>,
    /// Its glob re-exports (`pub use x::*`), as absolute module paths.
    pub globs: Vec<ModPath>,
    /// Absolute paths it uses (imports and qualified paths in code).
    pub uses: Vec<ModPath>,
    /// Its functions: (qualified name, lines from `fn` to the closing brace, arguments).
    pub functions: Vec<(String, usize, usize)>,
}

/// Every non-test `.rs` file under `dir`, sorted.
pub fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("src is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") && !is_test_file(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Test files (`tests.rs`) and the binary's `main.rs` (it reaches the library as
/// `ariadne::`, never `crate::`).
fn is_test_file(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n == "tests.rs" || n == "main.rs")
}

/// The module a file is (`src/memory/mod.rs` and `src/memory.rs` are `memory`).
pub fn module_of(src: &Path, p: &Path) -> ModPath {
    let rel = p.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// Whether `attrs` hold `#[cfg(test)]` or `#[test]`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg")
                && a.meta
                    .require_list()
                    .is_ok_and(|l| l.tokens.to_string() == "test"))
    })
}

/// Reads one file.
pub fn scan(src: &Path, root: &Path, p: &Path) -> FileScan {
    let text = std::fs::read_to_string(p).expect("a source file is UTF-8");
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut out = FileScan {
        file: p.strip_prefix(root).unwrap_or(p).to_path_buf(),
        module: module_of(src, p),
        ..FileScan::default()
    };
    for item in ast.items.iter().filter(|i| !is_test(item_attrs(i))) {
        read_item(&mut out, item);
    }
    let mut v = CodeVisitor {
        scan: &mut out,
        owner: String::new(),
    };
    for item in ast.items.iter().filter(|i| !is_test(item_attrs(i))) {
        if !matches!(item, syn::Item::Use(_)) {
            v.visit_item(item);
        }
    }
    out
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => &[],
    }
}

/// Records what a top-level item defines, declares or imports.
fn read_item(out: &mut FileScan, item: &syn::Item) {
    let name = match item {
        syn::Item::Fn(i) => Some(i.sig.ident.to_string()),
        syn::Item::Struct(i) => Some(i.ident.to_string()),
        syn::Item::Enum(i) => Some(i.ident.to_string()),
        syn::Item::Union(i) => Some(i.ident.to_string()),
        syn::Item::Trait(i) => Some(i.ident.to_string()),
        syn::Item::Type(i) => Some(i.ident.to_string()),
        syn::Item::Const(i) => Some(i.ident.to_string()),
        syn::Item::Static(i) => Some(i.ident.to_string()),
        syn::Item::Macro(i) => i.ident.as_ref().map(ToString::to_string),
        syn::Item::Mod(m) if m.content.is_none() => {
            out.children.insert(m.ident.to_string());
            None
        }
        syn::Item::Mod(m) => Some(m.ident.to_string()),
        syn::Item::Use(u) => {
            read_use(out, u);
            None
        }
        _ => None,
    };
    if let Some(n) = name {
        out.defines.insert(n);
    }
}

/// Expands a `use` item: re-exports (`pub use`) are recorded as such, other imports as
/// uses.
fn read_use(out: &mut FileScan, u: &syn::ItemUse) {
    let mut leaves = Vec::new();
    flatten(&u.tree, Vec::new(), &mut leaves);
    let public = !matches!(u.vis, syn::Visibility::Inherited);
    for (path, alias) in leaves {
        let Some(abs) = absolute(out, &path) else {
            continue;
        };
        match (public, alias) {
            (true, Some(name)) => {
                out.reexports.insert(name, abs);
            }
            (true, None) => out.globs.push(abs),
            (false, _) => out.uses.push(abs),
        }
    }
}

/// A use tree's leaves: (path, the name it binds; None for a glob).
fn flatten(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let with = |s: String| {
        let mut p = prefix.clone();
        p.push(s);
        p
    };
    match tree {
        syn::UseTree::Path(p) => flatten(&p.tree, with(p.ident.to_string()), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let bound = prefix.last().cloned();
            out.push((prefix.clone(), bound));
        }
        syn::UseTree::Name(n) => out.push((with(n.ident.to_string()), Some(n.ident.to_string()))),
        syn::UseTree::Rename(r) => {
            out.push((with(r.ident.to_string()), Some(r.rename.to_string())))
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix.clone(), out);
            }
        }
    }
}

/// A path as written in `file`, made absolute: `crate::`, `self::`, `super::` and a
/// first segment naming a child module or an item of the file; None for other crates.
pub fn absolute(file: &FileScan, path: &[String]) -> Option<ModPath> {
    let first = path.first()?;
    let mut base = file.module.clone();
    let mut rest = path;
    match first.as_str() {
        "crate" => {
            base.clear();
            rest = &path[1..];
        }
        "self" => rest = &path[1..],
        "super" => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        name if file.children.contains(name) || file.defines.contains(name) => {}
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Walks the code of a file: qualified paths (`crate::x::Y`, `super::f`) and functions.
struct CodeVisitor<'a> {
    scan: &'a mut FileScan,
    /// The type whose impl is being walked, for functions' names.
    owner: String,
}

impl CodeVisitor<'_> {
    fn function(&mut self, name: &syn::Ident, sig: &syn::Signature, body: &syn::Block) {
        let start = sig.fn_token.span().start().line;
        let end = body.brace_token.span.close().end().line;
        let qualified = if self.owner.is_empty() {
            name.to_string()
        } else {
            format!("{}::{name}", self.owner)
        };
        self.scan
            .functions
            .push((qualified, end + 1 - start, sig.inputs.len()));
    }
}

impl<'ast> Visit<'ast> for CodeVisitor<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if is_test(&i.attrs) {
            return;
        }
        let before = std::mem::replace(&mut self.owner, type_name(&i.self_ty));
        syn::visit::visit_item_impl(self, i);
        self.owner = before;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        let before = std::mem::take(&mut self.owner);
        self.function(&f.sig.ident, &f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
        self.owner = before;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.function(&f.sig.ident, &f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.function(&f.sig.ident, &f.sig, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segs.len() > 1
            && (matches!(segs[0].as_str(), "crate" | "super" | "self")
                || self.scan.children.contains(&segs[0]))
            && let Some(abs) = absolute(self.scan, &segs)
        {
            self.scan.uses.push(abs);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}

    /// `pub(in crate::x)` names where an item is visible, not something it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// The last identifier of an impl's type (`Graph` for `impl<'a> Graph<'a>`).
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        _ => String::from("impl"),
    }
}
