//! Reads the SDK crate's source with a Rust parser (syn), for the build scripts' generators
//! (build_rpc.rs, build_byname.rs): the files of a module and of every `mod x;` it declares
//! (following `#[path]`), the names the module makes public (its own `pub` items and what its
//! `pub use` lines re-export from its child modules), and the serde attributes of items and
//! fields. A parser, not a search of the text: what the generators find does not depend on how
//! rustfmt laid the crate out, and a module split into files (1.0.29-preview.4's generated
//! `api_types` is a facade over nine `api_domain_*.rs` files) is read as one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Item, Lit, Meta, Token, UseTree, Visibility};

/// Parses the file at `path`; None when it cannot be read or parsed (said as a cargo warning:
/// the generators then have less to build from, and the capabilities say so).
pub fn parse(path: &Path) -> Option<syn::File> {
    let text = std::fs::read_to_string(path).ok()?;
    match syn::parse_file(&text) {
        Ok(f) => Some(f),
        Err(e) => {
            println!("cargo:warning=cannot parse {}: {e}", path.display());
            None
        }
    }
}

/// A module read from its files: the module's own file first, then the files of the modules it
/// declares (`mod x;`), recursively.
pub struct Module {
    pub files: Vec<(PathBuf, syn::File)>,
    /// The files of each module by its path from this one (`""`: this one; `"payloads"`,
    /// `"payloads::sdk_api_shared"`): index into `files`.
    pub by_path: BTreeMap<String, usize>,
}

impl Module {
    /// Reads the module whose file is `root` and every module declared in it with `mod x;`.
    pub fn read(root: &Path) -> Option<Module> {
        let mut m = Module { files: Vec::new(), by_path: BTreeMap::new() };
        m.add(root, String::new(), true)?;
        Some(m)
    }

    fn add(&mut self, path: &Path, at: String, owner: bool) -> Option<usize> {
        let file = parse(path)?;
        let i = self.files.len();
        let children: Vec<syn::ItemMod> = file
            .items
            .iter()
            .filter_map(|it| match it {
                Item::Mod(m) if m.content.is_none() && !has_attr(&m.attrs, "cfg") => Some(m.clone()),
                _ => None,
            })
            .collect();
        self.files.push((path.to_path_buf(), file));
        self.by_path.insert(at.clone(), i);
        for c in children {
            let Some(p) = child_path(path, owner, &c) else { continue };
            let name = c.ident.to_string();
            let sub = if at.is_empty() { name } else { format!("{at}::{name}") };
            // A `mod x;` file of its own owns the directory `x/` for its children.
            let owns = c.attrs.iter().any(|a| a.path().is_ident("path")) || p.file_name().is_some_and(|f| f == "mod.rs");
            self.add(&p, sub, owns);
        }
        Some(i)
    }

    /// The names this module makes public: its own `pub struct` / `pub enum` / `pub type`
    /// items and what `pub use child::{…}` / `pub use child::*` re-export from a child module
    /// (recursively), each with where it is declared: a file of this module, or a path that
    /// leaves it (`super::session_events`).
    pub fn public(&self) -> BTreeMap<String, Origin> {
        self.public_of("", 0)
    }

    fn public_of(&self, at: &str, depth: u8) -> BTreeMap<String, Origin> {
        let mut out = BTreeMap::new();
        let Some(&i) = self.by_path.get(at) else { return out };
        if depth > 8 {
            return out;
        }
        let file = &self.files[i].1;
        for item in &file.items {
            if let Some((name, vis)) = item_name(item) {
                if matches!(vis, Visibility::Public(_)) {
                    out.entry(name).or_insert(Origin::File(i));
                }
            }
        }
        let children: BTreeSet<String> = file
            .items
            .iter()
            .filter_map(|it| match it {
                Item::Mod(m) if m.content.is_none() => Some(m.ident.to_string()),
                _ => None,
            })
            .collect();
        // Each child's public names, read once.
        let mut of_child: BTreeMap<String, BTreeMap<String, Origin>> = BTreeMap::new();
        for item in &file.items {
            let Item::Use(u) = item else { continue };
            if !matches!(u.vis, Visibility::Public(_)) {
                continue;
            }
            for (path, name) in use_names(&u.tree) {
                let segs: Vec<&str> = path.split("::").filter(|s| *s != "self").collect();
                match segs.first().filter(|s| segs.len() == 1 && children.contains(**s)) {
                    Some(c) => {
                        let theirs = of_child.entry(c.to_string()).or_insert_with(|| {
                            let sub = if at.is_empty() { c.to_string() } else { format!("{at}::{c}") };
                            self.public_of(&sub, depth + 1)
                        });
                        if name == "*" {
                            for (n, o) in theirs.iter() {
                                out.entry(n.clone()).or_insert(o.clone());
                            }
                        } else if let Some(o) = theirs.get(&name) {
                            out.entry(name).or_insert(o.clone());
                        }
                    }
                    None if name != "*" => {
                        out.entry(name).or_insert(Origin::Foreign(path));
                    }
                    None => {}
                }
            }
        }
        out
    }
}

/// Where a name a module makes public is declared.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Index of the module's file that declares it.
    File(usize),
    /// Re-exported from outside the module, by this path (`super::session_events`).
    Foreign(String),
}

/// Where rustc reads `mod name;` declared in file `parent`: its `#[path]` (relative to the
/// parent's directory), else `name.rs` / `name/mod.rs` in the directory the parent owns (its
/// own for lib.rs, mod.rs and a file read through `#[path]`; `parent/` for any other).
fn child_path(parent: &Path, owner: bool, item: &syn::ItemMod) -> Option<PathBuf> {
    let dir = parent.parent()?;
    if let Some(p) = item.attrs.iter().find_map(|a| match &a.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => lit_str(&nv.value),
        _ => None,
    }) {
        return Some(dir.join(p));
    }
    let base = if owner { dir.to_path_buf() } else { dir.join(parent.file_stem()?) };
    let name = item.ident.to_string();
    [base.join(format!("{name}.rs")), base.join(name).join("mod.rs")].into_iter().find(|p| p.exists())
}

/// The name and visibility of a struct, enum or type alias item.
pub fn item_name(item: &Item) -> Option<(String, &Visibility)> {
    match item {
        Item::Struct(s) => Some((s.ident.to_string(), &s.vis)),
        Item::Enum(e) => Some((e.ident.to_string(), &e.vis)),
        Item::Type(t) => Some((t.ident.to_string(), &t.vis)),
        _ => None,
    }
}

/// The (path, name) pairs a `use` tree imports: `a::b::{C, d::E}` gives ("a::b", "C") and
/// ("a::b::d", "E"); a glob gives ("a::b", "*"). A renaming import (`a as b`) is left out: its
/// name is not the declaration's.
pub fn use_names(tree: &UseTree) -> Vec<(String, String)> {
    fn walk(t: &UseTree, prefix: &str, out: &mut Vec<(String, String)>) {
        let join = |s: &str| if prefix.is_empty() { s.to_string() } else { format!("{prefix}::{s}") };
        match t {
            UseTree::Path(p) => walk(&p.tree, &join(&p.ident.to_string()), out),
            UseTree::Name(n) => out.push((prefix.to_string(), n.ident.to_string())),
            UseTree::Glob(_) => out.push((prefix.to_string(), "*".to_string())),
            UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix, out)),
            UseTree::Rename(_) => {}
        }
    }
    let mut out = Vec::new();
    walk(tree, "", &mut out);
    out
}

/// A type as Rust source, spaced as rustfmt writes it (`Option<Vec<String>>`,
/// `HashMap<String, Value>`, `Arc<dyn Fn(&str) -> bool + Send>`): the generators both write it
/// into generated code and read the names in it.
pub fn type_string(ty: &syn::Type) -> String {
    tokens_string(quote::ToTokens::to_token_stream(ty))
}

/// Token text without the spaces the token printer puts between every two tokens, but the
/// ones rustfmt keeps (after a comma, around `->`, `=` and `+`, between two words).
pub fn tokens_string(ts: proc_macro2::TokenStream) -> String {
    let raw = ts.to_string();
    let mut out = String::new();
    let words: Vec<&str> = raw.split(' ').filter(|w| !w.is_empty()).collect();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            let prev = words[i - 1];
            let word = |s: &str| s.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '\'');
            let ends_word = |s: &str| s.chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_');
            let spaced = prev == "," || prev == "->" || *w == "->" || prev == "=" || *w == "=" || prev == "+" || *w == "+"
                || (ends_word(prev) && word(w)) || (prev.starts_with('\'') && word(w));
            if spaced {
                out.push(' ');
            }
        }
        out.push_str(w);
    }
    out
}

/// Whether an attribute named `name` (`non_exhaustive`, `cfg`, `serde`, …) is present.
pub fn has_attr(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().is_ident(name))
}

/// The traits of `#[derive(…)]`, by their last path segment.
pub fn derives(attrs: &[Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for a in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        if let Ok(list) = a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated) {
            out.extend(list.iter().filter_map(|p| p.segments.last().map(|s| s.ident.to_string())));
        }
    }
    out
}

/// The text of the doc comments (`///`), one line each.
pub fn doc(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) if nv.path.is_ident("doc") => lit_str(&nv.value),
            _ => None,
        })
        .collect()
}

fn lit_str(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// What `#[serde(…)]` attributes say (of a container, a field or a variant).
#[derive(Default, Clone, Debug, PartialEq)]
pub struct Serde {
    /// `rename = "x"`, or the serialize name of `rename(serialize = "x", …)`.
    pub rename: Option<String>,
    /// `alias = "x"` and the deserialize name of `rename(…, deserialize = "x")`.
    pub aliases: Vec<String>,
    /// `skip_serializing_if = "Path::f"`.
    pub skip_if: Option<String>,
    /// `default` or `default = "f"`.
    pub default: bool,
    pub flatten: bool,
    /// `tag = "t"`, `content = "c"`, `untagged` (containers).
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    /// `rename_all = "camelCase"` (containers).
    pub rename_all: Option<String>,
    /// `transparent` (containers).
    pub transparent: bool,
    /// `skip`, `skip_deserializing`, `other` (fields and variants).
    pub skip: bool,
    pub skip_deserializing: bool,
    pub other: bool,
}

/// Reads the `#[serde(…)]` attributes; a part it does not know is skipped.
pub fn serde(attrs: &[Attribute]) -> Serde {
    let mut s = Serde::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let Ok(list) = a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else { continue };
        for m in list {
            let key = m.path().get_ident().map(|i| i.to_string()).unwrap_or_default();
            match m {
                Meta::Path(_) => match key.as_str() {
                    "default" => s.default = true,
                    "flatten" => s.flatten = true,
                    "untagged" => s.untagged = true,
                    "transparent" => s.transparent = true,
                    "skip" => s.skip = true,
                    "skip_deserializing" => s.skip_deserializing = true,
                    "other" => s.other = true,
                    _ => {}
                },
                Meta::NameValue(nv) => {
                    let v = lit_str(&nv.value);
                    match key.as_str() {
                        "rename" => s.rename = v,
                        "alias" => s.aliases.extend(v),
                        "skip_serializing_if" => s.skip_if = v,
                        "default" => s.default = true,
                        "tag" => s.tag = v,
                        "content" => s.content = v,
                        "rename_all" => s.rename_all = v,
                        _ => {}
                    }
                }
                Meta::List(l) if key == "rename" => {
                    if let Ok(parts) = l.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) {
                        for p in parts {
                            if let Meta::NameValue(nv) = p {
                                match (nv.path.get_ident().map(|i| i.to_string()).as_deref(), lit_str(&nv.value)) {
                                    (Some("serialize"), Some(v)) => s.rename = Some(v),
                                    (Some("deserialize"), Some(v)) => s.aliases.push(v),
                                    _ => {}
                                }
                            }
                        }
                    }
                }
                Meta::List(_) => {}
            }
        }
    }
    s
}

/// The last segment of an impl's self type (`Foo` of `impl Foo`, `impl<'a> a::Foo<'a>`).
pub fn self_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The SDK crate's source as the generators read it: the generated `api_types` and
/// `session_events` modules (each with every file it is split into), the generated `rpc.rs`, and
/// `lib.rs`.
pub struct Sdk {
    /// The crate's `src/` folder.
    pub src: PathBuf,
    pub api: Option<Module>,
    pub events: Option<Module>,
    pub rpc: Option<syn::File>,
    pub lib: Option<syn::File>,
}

impl Sdk {
    /// Reads the crate whose sources are in `src` (None: no source; every part empty). The
    /// generated modules are where `generated/mod.rs` declares them (`#[path = "api_facade.rs"]
    /// pub mod api_types;` in 1.0.29-preview.4), else `generated/<name>.rs`.
    pub fn read(src: Option<&Path>) -> Sdk {
        let Some(src) = src else {
            return Sdk { src: PathBuf::new(), api: None, events: None, rpc: None, lib: None };
        };
        let gen = src.join("generated");
        let mod_rs = gen.join("mod.rs");
        let decls = parse(&mod_rs).map(|f| f.items).unwrap_or_default();
        let file_of = |name: &str| -> PathBuf {
            decls
                .iter()
                .find_map(|it| match it {
                    Item::Mod(m) if m.ident == name && m.content.is_none() => child_path(&mod_rs, true, m),
                    _ => None,
                })
                .unwrap_or_else(|| gen.join(format!("{name}.rs")))
        };
        Sdk {
            src: src.to_path_buf(),
            api: Module::read(&file_of("api_types")),
            events: Module::read(&file_of("session_events")),
            rpc: parse(&file_of("rpc")),
            lib: parse(&src.join("lib.rs")),
        }
    }

    /// The hand-written public modules `lib.rs` declares (`pub mod x;`): (name, parsed file).
    pub fn public_modules(&self) -> Vec<(String, syn::File)> {
        let lib_rs = self.src.join("lib.rs");
        let Some(lib) = &self.lib else { return Vec::new() };
        lib.items
            .iter()
            .filter_map(|it| match it {
                Item::Mod(m) if m.content.is_none() && matches!(m.vis, Visibility::Public(_)) => {
                    let f = child_path(&lib_rs, true, m).and_then(|p| parse(&p))?;
                    Some((m.ident.to_string(), f))
                }
                _ => None,
            })
            .collect()
    }
}
