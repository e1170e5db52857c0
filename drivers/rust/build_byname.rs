//! Generates how the driver builds the crate's types by field name (src/byname.rs's `ByName`),
//! from the crate's own source: its generated `src/generated/api_types.rs` and
//! `session_events.rs`, and its hand-written public modules (`types.rs`, `lib.rs`, ...). Reached
//! are the structs of the dispatch table's request types (build_rpc.rs), the types the driver's
//! source names that serde can read (handler and tool results), and the field types of the
//! config structs the driver sets field by field (`SessionConfig`, `ClientOptions`, ...). A
//! struct is built as an application writes it: a struct literal, or for a `#[non_exhaustive]`
//! one its `Default` (or its `new` whose parameters are named as fields) and then its public
//! fields assigned; each field taken from the params by the Rust naming convention (the key's
//! letters and digits, case ignored, against the field's name) and only where no name matches by
//! a `rename` that is another word (`provider_type` for `type`: see `field_key`). A unit enum is a
//! match of the string against the variants' names; a tagged one of its tag. Never through serde's
//! `Deserialize`: a wrong `rename` in the crate is undone by a value that goes in and comes out
//! through the same serde mapping, and shows only when the value is built the way an
//! application writes it. What no name reaches (an untagged union, a struct with a flattened
//! field, a `#[non_exhaustive]` one or one with private fields that has neither `Default` nor such
//! a `new`, a type outside the crate's declarations) is built with serde,
//! that value alone, and tallied with the reason (the driver's `driver.builtBy` note); a type
//! serde cannot read either gets no builder (the field that holds it says so where it is set).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

/// One declaration of a source file.
enum Decl {
    /// A struct with named fields: (field name, type, serde attributes) of its public ones,
    /// whether one is flattened, whether it has private ones.
    Struct { fields: Vec<(String, String, String)>, flatten: bool, private: bool },
    /// An enum whose variants are unit variants, but for at most a forward-compatibility variant
    /// holding the unknown string: (variant, fold of its name).
    Units { variants: Vec<String>, other: Option<String> },
    /// An internally tagged enum (`#[serde(tag = "…")]`) of unit and one-field variants: the tag
    /// key, and each variant with its type (empty for a unit one) and the folded tag values that
    /// choose it.
    Tagged { tag: String, variants: Vec<(String, String, Vec<String>)> },
    /// Anything else the files declare (a data enum, a tuple struct): built by serde.
    Opaque(String),
    /// `pub type Name = Type;`
    Alias(String),
}

/// Rust's and the standard library's names that are not declarations of the crate, and the
/// crate's re-export of `indexmap::IndexMap`: src/byname.rs builds them.
const PLAIN: &[&str] = &[
    "Option", "Vec", "HashMap", "BTreeMap", "IndexMap", "String", "PathBuf", "Value", "Box", "bool",
    "serde_json", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "usize",
    "isize", "std", "collections", "path", "indexmap",
];

/// Types of the crate whose only public constructor src/byname.rs calls by hand.
const BY_HAND: &[&str] = &["SessionId", "RequestId"];

/// Where a file's declarations are: the generated api types (which the generated module of
/// src/byname.rs imports), the generated session events, or a hand-written public module.
const API: usize = 0;
const EVENTS: usize = 1;

/// One parsed source file.
struct File {
    /// The path its declarations are named by from the driver; empty for the generated ones.
    prefix: String,
    text: String,
    decls: BTreeMap<String, Decl>,
    /// Imported name -> the module it comes from (`use` and `pub use`), and glob imports.
    uses: BTreeMap<String, String>,
    globs: Vec<String>,
    /// The module name a `crate::…` path reaches it by ("" for lib.rs).
    module: String,
}

/// How a struct of the crate is made outside it.
enum Make {
    Literal,
    /// `Default::default()`, then each public field assigned.
    Default,
    /// `new` with these fields as its parameters, in order, then the others assigned.
    New(Vec<String>),
}

impl Make {
    /// Whether field `name` is assigned after the value is made (left at its value when its
    /// type cannot be built), rather than given to a literal or a constructor.
    fn assigns(&self, name: &str) -> bool {
        match self {
            Make::Literal => false,
            Make::Default => true,
            Make::New(params) => !params.iter().any(|p| p == name),
        }
    }
}

/// How one declaration is built.
enum Status {
    ByName,
    Serde(String),
    /// Neither by name nor by serde: no builder.
    Nothing,
}

struct Crate {
    files: Vec<File>,
    /// The session-event names the api types re-export (`pub use super::session_events::{…}`).
    exported: BTreeSet<String>,
}

impl Crate {
    /// The declaration `name` means in file `f`: (file, name), following imports.
    fn resolve(&self, f: usize, name: &str, depth: u8) -> Option<(usize, String)> {
        if depth > 6 {
            return None;
        }
        let file = &self.files[f];
        if file.decls.contains_key(name) {
            return Some((f, name.to_string()));
        }
        if f == API && self.exported.contains(name) {
            return self.resolve(EVENTS, name, depth + 1);
        }
        if f <= EVENTS {
            return None;
        }
        if let Some(m) = file.uses.get(name) {
            return self.module(m).and_then(|g| self.resolve(g, name, depth + 1));
        }
        file.globs
            .iter()
            .filter_map(|m| self.module(m))
            .find_map(|g| self.resolve(g, name, depth + 1))
    }

    /// The file a `use` path names, if it is one of the parsed ones.
    fn module(&self, path: &str) -> Option<usize> {
        let p = path.trim_start_matches("crate::").trim_start_matches("self::").trim_start_matches("super::");
        match p {
            "generated::api_types" | "rpc" | "generated::rpc" => Some(API),
            "generated::session_events" | "session_events" | "generated" => Some(EVENTS),
            _ => self.files.iter().position(|f| !f.module.is_empty() && f.module == p),
        }
    }

    /// The path of the impl header: bare for what the generated module imports.
    fn key(&self, f: usize, name: &str) -> String {
        match f {
            API => name.to_string(),
            EVENTS if self.exported.contains(name) => name.to_string(),
            EVENTS => format!("crate::compat::generated::session_events::{name}"),
            _ => format!("{}::{name}", self.files[f].prefix),
        }
    }

    fn decl(&self, at: &(usize, String)) -> &Decl {
        &self.files[at.0].decls[&at.1]
    }

    /// The declarations a declaration's fields (or an alias's target) name, and the names that
    /// are none of the crate's.
    fn parts(&self, at: &(usize, String)) -> (Vec<(usize, String)>, Vec<String>) {
        let types: Vec<String> = match self.decl(at) {
            Decl::Struct { fields, .. } => fields.iter().map(|f| f.1.clone()).collect(),
            Decl::Alias(t) => vec![t.clone()],
            Decl::Tagged { variants, .. } => variants.iter().map(|v| v.1.clone()).collect(),
            _ => vec![],
        };
        let (mut found, mut outside) = (Vec::new(), Vec::new());
        for t in &types {
            let (f, o) = self.type_parts(at.0, t);
            found.extend(f);
            outside.extend(o);
        }
        (found, outside)
    }

    /// The declarations type `ty` of file `f` names, and the names that are none of the crate's.
    fn type_parts(&self, f: usize, ty: &str) -> (Vec<(usize, String)>, Vec<String>) {
        let (mut found, mut outside) = (Vec::new(), Vec::new());
        for (module, id) in paths(ty) {
            if BY_HAND.contains(&id.as_str()) {
                continue;
            }
            // A qualified name (`crate::generated::api_types::X`) is looked up in its module.
            let r = match module {
                Some(m) => self.module(&m).and_then(|g| self.resolve(g, &id, 0)),
                None => self.resolve(f, &id, 0),
            };
            match r {
                Some(r) => found.push(r),
                None => outside.push(id),
            }
        }
        (found, outside)
    }
}

/// Writes `out` with a `ByName` impl for every type reachable from the roots. Without the
/// sources, an empty file (the dispatch table is empty too). `owners`: the config structs the
/// driver sets field by field, whose fields' types are roots.
pub fn generate(generated: Option<&Path>, requests: &BTreeSet<String>, driver_src: &str, owners: &[&str], out: &Path) {
    let read = |d: Option<&Path>, f: &str| {
        d.and_then(|d| std::fs::read_to_string(d.join(f)).ok())
            .unwrap_or_default()
    };
    let api = read(generated, "api_types.rs");
    let events = read(generated, "session_events.rs");
    let exported = reexports(&api);
    let src = generated.and_then(Path::parent);
    let mut files = vec![file(String::new(), String::new(), api), file(String::new(), String::new(), events)];
    // The hand-written public modules: lib.rs, and each `pub mod x;` it declares as `x.rs`.
    let lib = read(src, "lib.rs");
    let mut modules = vec![String::new()];
    modules.extend(lib.lines().filter_map(|l| {
        l.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';')).map(str::to_string)
    }));
    for m in modules {
        let (prefix, text) = if m.is_empty() {
            ("github_copilot_sdk".to_string(), lib.clone())
        } else {
            (format!("github_copilot_sdk::{m}"), read(src, &format!("{m}.rs")))
        };
        if !text.is_empty() && !matches!(m.as_str(), "rpc" | "session_events" | "generated") {
            files.push(file(prefix, m, text));
        }
    }
    let krate = Crate { files, exported };
    let lib_file = krate.files.iter().position(|f| f.prefix == "github_copilot_sdk");

    // The roots: the dispatch table's request types; the types the driver's own source names
    // that serde can read (the handler and tool results it builds), generated and at the crate
    // root; and the fields of the config structs it sets one by one.
    let mut roots: Vec<(usize, String)> = Vec::new();
    for r in requests {
        if krate.files[API].decls.contains_key(r) {
            roots.push((API, r.clone()));
        }
    }
    let mut named: BTreeSet<String> = idents(driver_src).into_iter().collect();
    named.extend(owners.iter().map(|o| o.to_string()));
    for id in &named {
        for at in [krate.resolve(API, id, 0), lib_file.and_then(|f| krate.resolve(f, id, 0))].into_iter().flatten() {
            if owners.contains(&id.as_str()) {
                roots.extend(krate.parts(&at).0);
            } else if !BY_HAND.contains(&id.as_str()) && deserializable(&krate.files[at.0].text, &at.1) {
                roots.push(at);
            }
        }
    }
    let mut reached: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut queue: VecDeque<(usize, String)> = roots.into_iter().collect();
    while let Some(at) = queue.pop_front() {
        if !reached.insert(at.clone()) {
            continue;
        }
        queue.extend(krate.parts(&at).0.into_iter().filter(|p| !reached.contains(p)));
    }

    // Each declaration's status, optimistic first, then lowered until no buildable struct holds
    // a type the driver cannot build.
    let fallback = |at: &(usize, String), why: String| -> Status {
        if at.0 <= EVENTS || deserializable(&krate.files[at.0].text, &at.1) {
            Status::Serde(why)
        } else {
            let _ = why; // no builder, so nothing to tally: the field that holds it says so
            Status::Nothing
        }
    };
    let outside = |at: &(usize, String)| if at.0 <= EVENTS { "the generated files" } else { "the crate's declarations" };
    let mut status: BTreeMap<(usize, String), Status> = BTreeMap::new();
    let mut makes: BTreeMap<(usize, String), Make> = BTreeMap::new();
    // The public fields a struct made by `Default` or `new` leaves at their value, as the
    // application would: those whose type is none the driver builds (a callback).
    let mut left: BTreeMap<(usize, String), BTreeSet<String>> = BTreeMap::new();
    for at in &reached {
        let s = match krate.decl(at) {
            Decl::Alias(_) => Status::ByName,
            Decl::Struct { flatten: true, .. } => fallback(at, "a struct with a flattened field".into()),
            Decl::Struct { fields, private, .. } => match make(&krate.files[at.0].text, &at.1, fields, *private) {
                Err(why) => fallback(at, why),
                Ok(m) => {
                    let mut out = None;
                    for (name, ty, _) in fields {
                        if let Some(id) = krate.type_parts(at.0, ty).1.first() {
                            if m.assigns(name) {
                                left.entry(at.clone()).or_default().insert(name.clone());
                            } else {
                                out = Some(fallback(at, format!("it holds {id}, a type outside {}", outside(at))));
                            }
                        }
                    }
                    makes.insert(at.clone(), m);
                    out.unwrap_or(Status::ByName)
                }
            },
            Decl::Units { .. } => Status::ByName,
            Decl::Tagged { .. } => match krate.parts(at).1.first() {
                Some(id) => fallback(at, format!("a tagged union holding {id}, a type outside {}", outside(at))),
                None => Status::ByName,
            },
            Decl::Opaque(why) => fallback(at, why.clone()),
        };
        status.insert(at.clone(), s);
    }
    loop {
        let mut lower = Vec::new();
        let mut leave = Vec::new();
        for (at, s) in &status {
            if !matches!(s, Status::ByName) {
                continue;
            }
            let types: Vec<(String, String)> = match krate.decl(at) {
                Decl::Struct { fields, .. } => fields.iter().map(|f| (f.0.clone(), f.1.clone())).collect(),
                Decl::Alias(t) => vec![(String::new(), t.clone())],
                Decl::Tagged { variants, .. } => variants.iter().map(|v| (String::new(), v.1.clone())).collect(),
                _ => vec![],
            };
            for (name, ty) in types {
                if left.get(at).is_some_and(|l| l.contains(&name)) {
                    continue;
                }
                let parts = krate.type_parts(at.0, &ty).0;
                if let Some(p) = parts.iter().find(|p| matches!(status.get(*p), Some(Status::Nothing))) {
                    if makes.get(at).is_some_and(|m| m.assigns(&name)) {
                        leave.push((at.clone(), name));
                    } else {
                        lower.push((at.clone(), format!("it holds {}, which neither its names nor serde build", p.1)));
                    }
                }
            }
        }
        if lower.is_empty() && leave.is_empty() {
            break;
        }
        for (at, name) in leave {
            left.entry(at).or_default().insert(name);
        }
        for (at, why) in lower {
            let s = match krate.decl(&at) {
                Decl::Alias(_) => Status::Nothing,
                _ => fallback(&at, why),
            };
            status.insert(at, s);
        }
    }

    let mut code = String::from(
        "// @generated by build_byname.rs from the SDK's source; do not edit.\n",
    );
    let mut hand = String::new();
    let mut by_name = 0;
    let mut serde: Vec<String> = Vec::new();
    for (at, s) in &status {
        let key = krate.key(at.0, &at.1);
        let out = if at.0 <= EVENTS { &mut code } else { &mut hand };
        match (krate.decl(at), s) {
            (Decl::Alias(_), _) | (_, Status::Nothing) => {}
            (Decl::Struct { fields, .. }, Status::ByName) => {
                let kept: Vec<(String, String, String)> =
                    fields.iter().filter(|f| !left.get(at).is_some_and(|l| l.contains(&f.0))).cloned().collect();
                struct_impl(out, &key, &kept, &makes[at]);
                by_name += 1;
            }
            (Decl::Tagged { tag, variants }, Status::ByName) => {
                tagged_impl(out, &key, tag, variants);
                by_name += 1;
            }
            (Decl::Units { variants, other }, Status::ByName) => {
                units_impl(out, &key, variants, other.as_deref());
                by_name += 1;
            }
            (_, Status::Serde(why)) => {
                // A hand-written type by its module, beside a generated one of the same name.
                let label = match krate.files[at.0].module.as_str() {
                    m if at.0 > EVENTS && !m.is_empty() => format!("{m}::{}", at.1),
                    _ => at.1.clone(),
                };
                serde.push(serde_impl(out, &key, &label, why))
            }
            (_, Status::ByName) => {}
        }
    }
    writeln!(code, "/// The impls for the crate's hand-written types, named by their public paths.\npub(crate) mod hand {{\n    #[allow(unused_imports)]\n    use crate::byname::{{fold, set, take, take_or_default, Build, ByName, Skip}};\n    #[allow(unused_imports)]\n    use serde_json::Value;\n{hand}}}").unwrap();
    writeln!(code, "/// How many of the crate's types the driver builds by name.\npub(crate) const BY_NAME_TYPES: usize = {by_name};").unwrap();
    writeln!(code, "/// The types it builds through serde, each with why.\npub(crate) const SERDE_TYPES: &[&str] = &{serde:?};").unwrap();
    std::fs::write(out, code).expect("write the generated by-name builders");
}

fn file(prefix: String, module: String, text: String) -> File {
    let (uses, globs) = imports(&text);
    File { prefix, decls: parse(&text), text, uses, globs, module }
}

/// The names a file imports (`use a::b::{C, D};`, `pub use a::E;`) and its glob imports.
fn imports(text: &str) -> (BTreeMap<String, String>, Vec<String>) {
    let mut uses = BTreeMap::new();
    let mut globs = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("pub use ").or_else(|| line.strip_prefix("use ")) else {
            continue;
        };
        let mut stmt = rest.to_string();
        while !stmt.contains(';') {
            match lines.next() {
                Some(l) => stmt.push_str(l.trim()),
                None => break,
            }
        }
        // A renaming import (`a as b`) is not followed: its name is not the declaration's.
        let stmt: String = stmt
            .split(';')
            .next()
            .unwrap_or_default()
            .split(',')
            .filter(|n| !n.contains(" as "))
            .collect::<Vec<_>>()
            .join(",")
            .replace(' ', "");
        let (prefix, names) = match stmt.split_once("::{") {
            Some((p, n)) => (p.to_string(), n.trim_end_matches('}').to_string()),
            None => match stmt.rsplit_once("::") {
                Some((p, n)) => (p.to_string(), n.to_string()),
                None => continue,
            },
        };
        if names.contains('{') {
            continue; // nested groups: not followed
        }
        for n in names.split(',').filter(|n| !n.is_empty()) {
            let (p, n) = match n.rsplit_once("::") {
                Some((sub, n)) => (format!("{prefix}::{sub}"), n),
                None => (prefix.clone(), n),
            };
            if n == "*" {
                globs.push(p);
            } else {
                uses.insert(n.to_string(), p);
            }
        }
    }
    (uses, globs)
}

/// How an application makes struct `name` (public fields `fields`) outside the crate, from
/// `text`, its file: a literal unless it is `#[non_exhaustive]` or has private fields, else its
/// `Default`, else its `new` whose parameters are all fields of plain types. Err: why it cannot.
fn make(text: &str, name: &str, fields: &[(String, String, String)], private: bool) -> Result<Make, String> {
    if fields.iter().any(|f| f.2.contains("#[cfg")) {
        return Err("a struct with fields behind a cfg".into());
    }
    let container = container_attrs(text, name);
    let closed = if private { "private fields" } else { "#[non_exhaustive]" };
    if !private && !container.contains("non_exhaustive") {
        return Ok(Make::Literal);
    }
    let default = container.contains("Default") || text.contains(&format!("impl Default for {name} {{"));
    if default {
        return Ok(Make::Default);
    }
    // `pub fn new(a: impl Into<String>, b: T) -> Self` in `impl Name {`.
    let why = || format!("{closed} with neither Default nor a new(…) of its fields");
    let start = text.find(&format!("\nimpl {name} {{\n")).ok_or_else(why)?;
    let body = &text[start..];
    let body = &body[..body[1..].find("\n}").map_or(body.len(), |e| e + 1)];
    let at = body.find("    pub fn new(").ok_or_else(why)?;
    let sig = &body[at + "    pub fn new(".len()..];
    let sig = &sig[..sig.find(") -> Self").ok_or_else(why)?];
    let mut params = Vec::new();
    for p in sig.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (n, ty) = p.split_once(':').ok_or_else(why)?;
        let (n, ty) = (n.trim(), ty.trim());
        let field = fields.iter().find(|f| f.0 == n).ok_or_else(why)?;
        let plain = idents(&field.1).is_empty() && field.1.chars().all(|c| c.is_alphanumeric() || "<>_, ".contains(c));
        if !plain || !(ty == field.1 || ty == format!("impl Into<{}>", field.1)) {
            return Err(why());
        }
        params.push(n.to_string());
    }
    Ok(Make::New(params))
}

/// The attribute lines right above `pub struct name` / `pub enum name`.
fn container_attrs(text: &str, name: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(i) = lines.iter().position(|l| {
        [format!("pub struct {name} "), format!("pub enum {name} "), format!("pub struct {name}("), format!("pub struct {name};")]
            .iter()
            .any(|h| l.starts_with(h.as_str()))
    }) else {
        return String::new();
    };
    let mut out = String::new();
    for l in lines[..i].iter().rev() {
        if l.starts_with('#') || l.starts_with("///") {
            out.push_str(l);
        } else {
            break;
        }
    }
    out
}

/// Whether serde can read declaration `name` of `text`: a derive with Deserialize, or an impl.
fn deserializable(text: &str, name: &str) -> bool {
    container_attrs(text, name).contains("Deserialize")
        || text.contains(&format!("Deserialize<'de> for {name} {{"))
}

/// The letters and digits of a name, lower-cased: how a wire key is matched to a Rust name.
pub fn fold(s: &str) -> String {
    s.trim_start_matches("r#")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn idents(ty: &str) -> Vec<String> {
    ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .filter(|w| !PLAIN.contains(w))
        .map(str::to_string)
        .collect()
}

/// The type names of a type, each with the module it is qualified by (`a::b::Name`), if any.
fn paths(ty: &str) -> Vec<(Option<String>, String)> {
    ty.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter_map(|w| {
            let (module, name) = match w.rsplit_once("::") {
                Some((m, n)) => (Some(m.to_string()), n),
                None => (None, w),
            };
            let plain = PLAIN.contains(&name) || module.as_deref().is_some_and(|m| PLAIN.contains(&m.split("::").next().unwrap_or_default()));
            (name.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && !plain).then(|| (module, name.to_string()))
        })
        .collect()
}

fn reexports(api: &str) -> BTreeSet<String> {
    let Some(start) = api.find("pub use super::session_events::{") else {
        return BTreeSet::new();
    };
    let rest = &api[start..];
    let body = &rest[rest.find('{').unwrap() + 1..rest.find('}').unwrap_or(rest.len())];
    body.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// The top-level declarations of one generated file, by name.
fn parse(text: &str) -> BTreeMap<String, Decl> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = BTreeMap::new();
    let mut attrs = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("#[") {
            attrs.push_str(line);
            i += 1;
            continue;
        }
        if line.starts_with("///") || line.trim().is_empty() {
            i += 1;
            continue;
        }
        let container = std::mem::take(&mut attrs);
        if let Some(rest) = line.strip_prefix("pub type ") {
            let (name, ty) = rest.split_once('=').unwrap_or((rest, ""));
            let name = name.trim().to_string();
            out.insert(name, Decl::Alias(ty.trim().trim_end_matches(';').to_string()));
        } else if let Some(rest) = line.strip_prefix("pub struct ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if rest[name.len()..].starts_with('<') {
                out.insert(name, Decl::Opaque("a generic struct".into()));
            } else if !rest.trim_end().ends_with('{') {
                out.insert(name, Decl::Opaque("a tuple or unit struct".into()));
            } else {
                let (mut fields, end) = struct_body(&lines, i + 1);
                let private = fields.iter().any(|f| f.2 == "private");
                fields.retain(|f| f.2 != "private");
                let flatten = fields.iter().any(|f| f.2.contains("flatten"));
                let decl = Decl::Struct { fields, flatten, private };
                out.insert(name, decl);
                i = end;
            }
        } else if let Some(rest) = line.strip_prefix("pub enum ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !rest.trim_end().ends_with('{') {
                out.insert(name, Decl::Opaque("an enum on one line".into()));
                i += 1;
                continue;
            }
            let (decl, end) = enum_body(&lines, i + 1, &container);
            let generic = rest[name.len()..].starts_with('<');
            out.insert(name, if generic { Decl::Opaque("a generic enum".into()) } else { decl });
            i = end;
        }
        i += 1;
    }
    out
}

/// The fields of a struct body starting at line `i`, and the line of its closing brace.
fn struct_body(lines: &[&str], mut i: usize) -> (Vec<(String, String, String)>, usize) {
    let mut fields = Vec::new();
    let mut attrs = String::new();
    while i < lines.len() && !lines[i].starts_with('}') {
        let l = lines[i].trim();
        if l.starts_with("#[") {
            attrs.push_str(l);
        } else if let Some(rest) = l.strip_prefix("pub ") {
            // A field's type may span lines up to its comma.
            let mut decl = rest.to_string();
            while !decl.trim_end().ends_with(',') && i + 1 < lines.len() && !lines[i + 1].starts_with('}') {
                i += 1;
                decl.push_str(lines[i].trim());
            }
            if let Some((name, ty)) = decl.split_once(':') {
                let ty = ty.trim().trim_end_matches(',').to_string();
                fields.push((name.trim().to_string(), ty, std::mem::take(&mut attrs)));
            }
        } else if !l.starts_with("//") && l.contains(':') {
            // A private field: no struct literal outside the crate can set it.
            fields.push((String::new(), String::new(), "private".into()));
            attrs.clear();
        }
        i += 1;
    }
    (fields, i)
}

/// An enum body starting at line `i` (container attributes `attrs`), and its closing line.
fn enum_body(lines: &[&str], mut i: usize, attrs: &str) -> (Decl, usize) {
    let tag = attrs
        .split("tag = \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .filter(|_| !attrs.contains("content = ") && !attrs.contains("untagged"));
    let tagged = attrs.contains("untagged") || attrs.contains("tag =");
    let mut variants = Vec::new();
    let mut others = Vec::new();
    let mut data = false;
    // Variants of a tagged enum: (name, inner type, folded tag values).
    let mut cases: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut shaped = true;
    let mut vattrs = String::new();
    while i < lines.len() && !lines[i].starts_with('}') {
        let l = lines[i];
        let t = l.trim();
        if l.starts_with("    #") && !l.starts_with("     ") {
            vattrs.push_str(t);
        } else if l.starts_with("    ") && !l.starts_with("     ") && !t.starts_with('#') && !t.starts_with("//") && !t.is_empty() {
            let name: String = t.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let rest = t[name.len()..].trim();
            let inner = rest.strip_prefix('(').and_then(|r| r.strip_suffix("),")).filter(|x| !x.contains(','));
            if rest == "," || rest.is_empty() {
                variants.push(name.clone());
                cases.push((name.clone(), String::new(), tag_values(&name, &vattrs)));
            } else if rest == "(String)," {
                others.push(name.clone());
                shaped = false;
            } else {
                data = true;
                match inner {
                    Some(x) => cases.push((name.clone(), x.trim().to_string(), tag_values(&name, &vattrs))),
                    None => shaped = false,
                }
            }
            vattrs.clear();
        }
        i += 1;
    }
    let decl = match tag {
        Some(tag) if shaped => Decl::Tagged { tag: tag.to_string(), variants: cases },
        _ if tagged => Decl::Opaque("a tagged or untagged union".into()),
        _ if data || others.len() > 1 => Decl::Opaque("an enum with data variants".into()),
        _ => Decl::Units { variants, other: others.pop() },
    };
    (decl, i)
}

/// The folded tag values that choose variant `name`: its name's, and where that is not the
/// declared one (a `rename`, an `alias` of another word) the declared ones too, as for fields.
fn tag_values(name: &str, attrs: &str) -> Vec<String> {
    let mut out = vec![fold(name)];
    for k in ["rename = \"", "alias = \""] {
        for part in attrs.split(k).skip(1) {
            let v = fold(part.split('"').next().unwrap_or_default());
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

fn tagged_impl(code: &mut String, key: &str, tag: &str, variants: &[(String, String, Vec<String>)]) {
    writeln!(code, "impl ByName for {key} {{\n    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {{").unwrap();
    writeln!(code, "        let (tag, rest) = b.tagged(v, p, {tag:?})?;\n        Some(match tag.as_str() {{").unwrap();
    for (name, inner, values) in variants {
        let pat = values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(" | ");
        if inner.is_empty() {
            writeln!(code, "            {pat} => Self::{name},").unwrap();
        } else {
            writeln!(code, "            {pat} => Self::{name}(ByName::by_name(&rest, p, b)?),").unwrap();
        }
    }
    writeln!(code, "            _ => return b.lose(&format!(\"{{p}}/{tag}\")),").unwrap();
    code.push_str("        })\n    }\n}\n");
}

fn struct_impl(code: &mut String, key: &str, fields: &[(String, String, String)], make: &Make) {
    let keys: Vec<String> = fields.iter().map(|f| field_key(f, fields)).collect();
    writeln!(code, "impl ByName for {key} {{\n    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {{").unwrap();
    writeln!(code, "        let m = b.object(v, p)?;\n        b.unknown(m, &{keys:?}, p);").unwrap();
    let given: &[String] = match make {
        Make::Literal => {
            code.push_str("        Some(Self {\n");
            for ((field, _, attrs), key) in fields.iter().zip(&keys) {
                let take = if serde_default(attrs) { "take_or_default" } else { "take" };
                writeln!(code, "            {field}: {take}(m, {key:?}, p, b, Skip::{})?,", skip_of(attrs)).unwrap();
            }
            code.push_str("        })\n    }\n}\n");
            return;
        }
        Make::Default => {
            code.push_str("        let mut o = Self::default();\n");
            &[]
        }
        Make::New(params) => {
            let args: Vec<String> = params
                .iter()
                .map(|n| {
                    let (_, ty, attrs) = fields.iter().find(|f| &f.0 == n).expect("a parameter named as a field");
                    format!("take::<{ty}>(m, {:?}, p, b, Skip::{})?", fold(n), skip_of(attrs))
                })
                .collect();
            writeln!(code, "        let mut o = Self::new({});", args.join(", ")).unwrap();
            params
        }
    };
    // The fields not given to the constructor: assigned when the key is there.
    for ((field, _, attrs), key) in fields.iter().zip(&keys) {
        if !given.contains(field) {
            writeln!(code, "        set(&mut o.{field}, m, {key:?}, p, b, Skip::{});", skip_of(attrs)).unwrap();
        }
    }
    code.push_str("        Some(o)\n    }\n}\n");
}

fn units_impl(code: &mut String, key: &str, variants: &[String], other: Option<&str>) {
    writeln!(code, "impl ByName for {key} {{\n    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {{").unwrap();
    writeln!(code, "        let s = b.string(v, p)?;\n        Some(match fold(s).as_str() {{").unwrap();
    for v in variants {
        writeln!(code, "            {:?} => Self::{v},", fold(v)).unwrap();
    }
    match other {
        // The forward-compatibility variant keeps a value no variant is named for, verbatim.
        Some(o) => writeln!(code, "            _ => Self::{o}(s.to_string()),").unwrap(),
        None => writeln!(code, "            _ => return b.lose(p),").unwrap(),
    }
    code.push_str("        })\n    }\n}\n");
}

fn serde_impl(code: &mut String, key: &str, name: &str, why: &str) -> String {
    writeln!(
        code,
        "impl ByName for {key} {{\n    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {{\n        \
         b.serde(v, p)\n    }}\n}}"
    )
    .unwrap();
    format!("{name}: {why}")
}

/// The folded wire keys a field is taken from: its name's, and where its `rename` is another
/// word (`provider_type` for `type`, a keyword; `working_directory` for `cwd`) that one too, the
/// name the crate documents for it, as an alternative (`providertype|type`). A key is matched to
/// the name first, so a misspelt rename of a field named as its key is never read and the value
/// goes on the wire under the misspelling (TestMutatedRustCrateWireNameShows).
fn field_key(field: &(String, String, String), all: &[(String, String, String)]) -> String {
    let own = fold(&field.0);
    let renamed = field.2.split("rename = \"").nth(1).and_then(|r| r.split('"').next()).map(fold);
    match renamed {
        Some(r) if r != own && !all.iter().any(|f| fold(&f.0) == r) => format!("{own}|{r}"),
        _ => own,
    }
}

/// What the field's `skip_serializing_if` leaves out of the wire.
fn skip_of(attrs: &str) -> &'static str {
    match () {
        _ if attrs.contains("skip_serializing_if = \"Option::is_none\"") => "None",
        _ if attrs.contains("skip_serializing_if = \"Vec::is_empty\"") => "Empty",
        _ if attrs.contains("skip_serializing_if = \"HashMap::is_empty\"") => "Empty",
        _ if attrs.contains("skip_serializing_if") => "Other",
        _ => "Never",
    }
}

fn serde_default(attrs: &str) -> bool {
    attrs.contains("serde(default") || attrs.contains(", default") || attrs.contains("default)")
}
