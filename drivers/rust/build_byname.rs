//! Generates how the driver builds the crate's types by field name (src/byname.rs's `ByName`),
//! from the crate's own source read with a parser (build_syntax.rs): its generated `api_types`
//! and `session_events` modules (every file each is split into; only the names a public path
//! reaches), and its hand-written public modules (`types.rs`, `lib.rs`, ...). Reached
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

use syn::{Fields, FnArg, Item, Pat, ReturnType, Visibility};

use crate::build_syntax::{self as syntax, Module, Origin, Serde};

/// A public field: its name, its type as Rust source, its attributes.
type Field = (String, String, Attrs);

/// What a field's or a variant's attributes say that the builders need.
#[derive(Clone, Default)]
struct Attrs {
    serde: Serde,
    /// Behind a `#[cfg(…)]`.
    cfg: bool,
}

/// One declaration of a source file.
enum Decl {
    /// A struct with named fields: (field name, type, serde attributes) of its public ones,
    /// whether one is flattened, whether it has private ones.
    Struct { fields: Vec<Field>, flatten: bool, private: bool },
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

/// Request owners whose fields the driver sets by name: (owner, struct, setter).
pub const REQUEST_OWNERS: &[(&str, &str, &str)] = &[
    ("sessionConfig", "SessionConfig", "set_create_field"),
    ("resumeConfig", "ResumeSessionConfig", "set_resume_field"),
    ("clientOptions", "ClientOptions", "set_client_field"),
];

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

/// The declarations of one module of the crate (one file, or the files of the generated
/// `api_types` / `session_events` modules), read by the parser.
struct File {
    /// The path its declarations are named by from the driver; empty for the generated ones.
    prefix: String,
    decls: BTreeMap<String, Decl>,
    /// How each declaration is made and read, from its attributes and the module's impls.
    info: BTreeMap<String, Info>,
    /// Imported name -> the module it comes from (`use` and `pub use`), and glob imports.
    uses: BTreeMap<String, String>,
    globs: Vec<String>,
    /// The module name a `crate::…` path reaches it by ("" for lib.rs).
    module: String,
}

/// What a declaration's attributes and its module's impls say.
#[derive(Default)]
struct Info {
    /// `#[derive(Default)]` or `impl Default for`.
    default: bool,
    /// `#[derive(Deserialize)]` or `impl Deserialize for`.
    deserialize: bool,
    /// `#[derive(Serialize)]` or `impl Serialize for`.
    serialize: bool,
    non_exhaustive: bool,
    /// The parameters (name, type) of its `pub fn new(…) -> Self`, if it has one.
    new: Option<Vec<(String, String)>>,
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

    fn info(&self, at: &(usize, String)) -> &Info {
        static NONE: Info = Info { default: false, deserialize: false, serialize: false, non_exhaustive: false, new: None };
        self.files[at.0].info.get(&at.1).unwrap_or(&NONE)
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
pub fn generate(sdk: &syntax::Sdk, requests: &BTreeSet<String>, driver_src: &str, owners: &[&str], out: &Path) {
    let (api, exported) = generated_file(sdk.api.as_ref());
    let (events, _) = generated_file(sdk.events.as_ref());
    let mut files = vec![api, events];
    // The hand-written public modules: lib.rs, and each `pub mod x;` it declares.
    if let Some(lib) = &sdk.lib {
        files.push(file("github_copilot_sdk".into(), String::new(), &[lib]));
    }
    for (m, f) in sdk.public_modules() {
        if !matches!(m.as_str(), "rpc" | "session_events" | "generated") {
            files.push(file(format!("github_copilot_sdk::{m}"), m, &[&f]));
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
            } else if !BY_HAND.contains(&id.as_str()) && krate.info(&at).deserialize {
                roots.push(at);
            }
        }
    }
    // The `convert` command's types (PROTOCOL.md "Converters"): every struct and data enum of
    // the generated modules a public path reaches that serde both writes and reads, by name, the
    // api types first (a session-event name the api types re-export is the same type).
    let mut converted: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for f in [API, EVENTS] {
        for name in krate.files[f].decls.keys() {
            let at = (f, name.clone());
            let info = krate.info(&at);
            // A unit enum is a string on the wire: no object type of the schemas.
            let object = !matches!(krate.decl(&at), Decl::Units { .. } | Decl::Alias(_));
            if object && info.serialize && info.deserialize && !BY_HAND.contains(&name.as_str()) {
                converted.entry(name.clone()).or_insert(at);
            }
        }
    }
    roots.extend(converted.values().cloned());
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
        if at.0 <= EVENTS || krate.info(at).deserialize {
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
            Decl::Struct { fields, private, .. } => match make(krate.info(at), fields, *private) {
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
                let kept: Vec<Field> =
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
    convert_table(&mut code, &krate, &converted, &status);
    writeln!(code, "/// The impls for the crate's hand-written types, named by their public paths.\npub(crate) mod hand {{\n    #[allow(unused_imports)]\n    use crate::byname::{{fold, set, take, take_or_default, Build, ByName, Skip}};\n    #[allow(unused_imports)]\n    use serde_json::Value;\n{hand}}}").unwrap();
    writeln!(code, "/// How many of the crate's types the driver builds by name.\npub(crate) const BY_NAME_TYPES: usize = {by_name};").unwrap();
    writeln!(code, "/// The types it builds through serde, each with why.\npub(crate) const SERDE_TYPES: &[&str] = &{serde:?};").unwrap();
    std::fs::write(out, code).expect("write the generated by-name builders");
}

/// Writes `convert_table(name, value)`, the `convert` command's outcome for a value of the
/// generated type `name` (src/convert.rs): a round trip where the type is built by name, else
/// why not (a union no name reaches, private fields without a constructor: the harness lists
/// such values as not built); `None` for a name the generated modules do not declare.
fn convert_table(code: &mut String, krate: &Crate, converted: &BTreeMap<String, (usize, String)>, status: &BTreeMap<(usize, String), Status>) {
    let mut n = 0;
    code.push_str("/// The `convert` command's outcome for a value of the generated type `name` (src/convert.rs).\n");
    code.push_str("#[allow(unreachable_code, unused_variables)]\npub(crate) fn convert_table(name: &str, v: &Value) -> Option<Value> {\n    Some(match name {\n");
    for (name, at) in converted {
        let key = krate.key(at.0, &at.1);
        let line = match status.get(at) {
            Some(Status::ByName) if !matches!(krate.decl(at), Decl::Alias(_)) => {
                n += 1;
                format!("crate::convert::roundtrip::<{key}>(v)")
            }
            Some(Status::Serde(why)) => format!("crate::convert::not_by_name({name:?}, {why:?})"),
            _ => format!("crate::convert::not_by_name({name:?}, \"neither its names nor serde build it\")"),
        };
        writeln!(code, "        {name:?} => {line},").unwrap();
    }
    code.push_str("        _ => return None,\n    })\n}\n");
    writeln!(code, "/// How many generated types `convert` round-trips by name, of how many serde writes and reads.\npub(crate) const CONVERT_TYPES: (usize, usize) = ({n}, {});", converted.len()).unwrap();
}

/// The request types of the generated layer that serde can read (build_rpc.rs ranks the calls
/// by them).
pub fn deserializable(sdk: &syntax::Sdk) -> BTreeSet<String> {
    let (api, _) = generated_file(sdk.api.as_ref());
    api.info.into_iter().filter(|(n, i)| i.deserialize && api.decls.contains_key(n)).map(|(n, _)| n).collect()
}

/// The declarations a generated module makes public (the files it is split into read as one),
/// and the session-event names it re-exports (`pub use super::session_events::{…}`).
fn generated_file(m: Option<&Module>) -> (File, BTreeSet<String>) {
    let Some(m) = m else {
        return (file(String::new(), String::new(), &[]), BTreeSet::new());
    };
    let all: Vec<&syn::File> = m.files.iter().map(|f| &f.1).collect();
    let mut f = file(String::new(), String::new(), &all);
    let mut exported = BTreeSet::new();
    let mut visible = BTreeSet::new();
    for (name, origin) in m.public() {
        match origin {
            Origin::File(_) => {
                visible.insert(name);
            }
            Origin::Foreign(path) if path.ends_with("session_events") => {
                exported.insert(name);
            }
            Origin::Foreign(_) => {}
        }
    }
    // A declaration no public path names cannot be named by the driver either.
    f.decls.retain(|n, _| visible.contains(n));
    (f, exported)
}

/// The declarations of `files` (top-level `pub` items), read as one module.
fn file(prefix: String, module: String, files: &[&syn::File]) -> File {
    let items: Vec<&Item> = files.iter().flat_map(|f| f.items.iter()).collect();
    let (uses, globs) = imports(&items);
    // The module's impls, by the last segment of their self type: the traits implemented and
    // the parameters of an inherent `pub fn new(…) -> Self`.
    let mut traits: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut news: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for item in &items {
        let Item::Impl(imp) = item else { continue };
        let Some(ty) = syntax::self_name(&imp.self_ty) else { continue };
        match &imp.trait_ {
            Some((_, path, _)) => {
                if let Some(t) = path.segments.last() {
                    traits.entry(ty).or_default().insert(t.ident.to_string());
                }
            }
            None => {
                for it in &imp.items {
                    if let syn::ImplItem::Fn(f) = it {
                        if let Some(params) = constructor(f, &ty) {
                            news.entry(ty.clone()).or_insert(params);
                        }
                    }
                }
            }
        }
    }
    let mut decls = BTreeMap::new();
    let mut info = BTreeMap::new();
    for item in &items {
        let Some((name, Visibility::Public(_))) = syntax::item_name(item) else { continue };
        let (attrs, decl) = match item {
            Item::Struct(st) => (&st.attrs, struct_decl(st)),
            Item::Enum(en) => (&en.attrs, enum_decl(en)),
            Item::Type(t) => (&t.attrs, Decl::Alias(syntax::type_string(&t.ty))),
            _ => continue,
        };
        let derives = syntax::derives(attrs);
        let has = |t: &str| derives.iter().any(|d| d == t) || traits.get(&name).is_some_and(|s| s.contains(t));
        info.entry(name.clone()).or_insert(Info {
            default: has("Default"),
            deserialize: has("Deserialize"),
            serialize: has("Serialize"),
            non_exhaustive: syntax::has_attr(attrs, "non_exhaustive"),
            new: news.get(&name).cloned(),
        });
        decls.entry(name).or_insert(decl);
    }
    File { prefix, decls, info, uses, globs, module }
}

/// The parameters of `pub fn new(a: A, …) -> Self`, each a plain name.
fn constructor(f: &syn::ImplItemFn, name: &str) -> Option<Vec<(String, String)>> {
    if f.sig.ident != "new" || !matches!(f.vis, Visibility::Public(_)) {
        return None;
    }
    let ReturnType::Type(_, out) = &f.sig.output else { return None };
    let out = syntax::type_string(out);
    if out != "Self" && out != name {
        return None;
    }
    f.sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(i) => Some((i.ident.to_string(), syntax::type_string(&t.ty))),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// The names a module imports (`use a::b::{C, D};`, `pub use a::E;`, nested groups too) and its
/// glob imports.
fn imports(items: &[&Item]) -> (BTreeMap<String, String>, Vec<String>) {
    let mut uses = BTreeMap::new();
    let mut globs = Vec::new();
    for item in items {
        let Item::Use(u) = item else { continue };
        for (path, name) in syntax::use_names(&u.tree) {
            if name == "*" {
                globs.push(path);
            } else {
                uses.insert(name, path);
            }
        }
    }
    (uses, globs)
}

/// How an application makes struct `name` (public fields `fields`) outside the crate: a literal
/// unless it is `#[non_exhaustive]` or has private fields, else its `Default`, else its `new`
/// whose parameters are all fields of plain types. Err: why it cannot.
fn make(info: &Info, fields: &[Field], private: bool) -> Result<Make, String> {
    if fields.iter().any(|f| f.2.cfg) {
        return Err("a struct with fields behind a cfg".into());
    }
    let closed = if private { "private fields" } else { "#[non_exhaustive]" };
    if !private && !info.non_exhaustive {
        return Ok(Make::Literal);
    }
    if info.default {
        return Ok(Make::Default);
    }
    // `pub fn new(a: impl Into<String>, b: T) -> Self` in `impl Name {`.
    let why = || format!("{closed} with neither Default nor a new(…) of its fields");
    let mut params = Vec::new();
    for (n, ty) in info.new.as_ref().ok_or_else(why)? {
        let field = fields.iter().find(|f| &f.0 == n).ok_or_else(why)?;
        let plain = idents(&field.1).is_empty() && field.1.chars().all(|c| c.is_alphanumeric() || "<>_, ".contains(c));
        if !plain || !(*ty == field.1 || *ty == format!("impl Into<{}>", field.1)) {
            return Err(why());
        }
        params.push(n.to_string());
    }
    Ok(Make::New(params))
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

/// A struct's declaration: its public fields, a tuple or unit struct or a generic one opaque.
fn struct_decl(st: &syn::ItemStruct) -> Decl {
    if !st.generics.params.is_empty() {
        return Decl::Opaque("a generic struct".into());
    }
    let Fields::Named(named) = &st.fields else {
        return Decl::Opaque("a tuple or unit struct".into());
    };
    let mut fields = Vec::new();
    let mut private = false;
    for f in &named.named {
        if !matches!(f.vis, Visibility::Public(_)) {
            // A private field: no struct literal outside the crate can set it.
            private = true;
            continue;
        }
        let attrs = Attrs { serde: syntax::serde(&f.attrs), cfg: syntax::has_attr(&f.attrs, "cfg") };
        let name = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
        fields.push((name, syntax::type_string(&f.ty), attrs));
    }
    let flatten = fields.iter().any(|f| f.2.serde.flatten);
    Decl::Struct { fields, flatten, private }
}

/// An enum's declaration: unit variants (and a forward-compatibility one holding the unknown
/// string), an internally tagged one of unit and one-field variants, or opaque.
fn enum_decl(en: &syn::ItemEnum) -> Decl {
    if !en.generics.params.is_empty() {
        return Decl::Opaque("a generic enum".into());
    }
    let container = syntax::serde(&en.attrs);
    let tag = container.tag.clone().filter(|_| container.content.is_none() && !container.untagged);
    let tagged = container.untagged || container.tag.is_some();
    let mut variants = Vec::new();
    let mut others = Vec::new();
    let mut data = false;
    // Variants of a tagged enum: (name, inner type, folded tag values).
    let mut cases: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut shaped = true;
    for v in &en.variants {
        let name = v.ident.to_string();
        let vs = syntax::serde(&v.attrs);
        match &v.fields {
            Fields::Unit => {
                variants.push(name.clone());
                cases.push((name.clone(), String::new(), tag_values(&name, &vs)));
            }
            Fields::Unnamed(u) if u.unnamed.len() == 1 && syntax::type_string(&u.unnamed[0].ty) == "String" => {
                others.push(name.clone());
                shaped = false;
            }
            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                data = true;
                cases.push((name.clone(), syntax::type_string(&u.unnamed[0].ty), tag_values(&name, &vs)));
            }
            _ => {
                data = true;
                shaped = false;
            }
        }
    }
    match tag {
        Some(tag) if shaped => Decl::Tagged { tag, variants: cases },
        _ if tagged => Decl::Opaque("a tagged or untagged union".into()),
        _ if data || others.len() > 1 => Decl::Opaque("an enum with data variants".into()),
        _ => Decl::Units { variants, other: others.pop() },
    }
}

/// The folded tag values that choose variant `name`: its name's, and where that is not the
/// declared one (a `rename`, an `alias` of another word) the declared ones too, as for fields.
fn tag_values(name: &str, attrs: &Serde) -> Vec<String> {
    let mut out = vec![fold(name)];
    for v in attrs.rename.iter().chain(&attrs.aliases) {
        let v = fold(v);
        if !out.contains(&v) {
            out.push(v);
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

fn struct_impl(code: &mut String, key: &str, fields: &[Field], make: &Make) {
    let keys: Vec<String> = fields.iter().map(|f| field_key(f, fields)).collect();
    writeln!(code, "impl ByName for {key} {{\n    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {{").unwrap();
    writeln!(code, "        let m = b.object(v, p)?;\n        b.unknown(m, &{keys:?}, p);").unwrap();
    let given: &[String] = match make {
        Make::Literal => {
            code.push_str("        Some(Self {\n");
            for ((field, _, attrs), key) in fields.iter().zip(&keys) {
                let take = if attrs.serde.default { "take_or_default" } else { "take" };
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
fn field_key(field: &Field, all: &[Field]) -> String {
    let own = fold(&field.0);
    let renamed = field.2.serde.rename.as_deref().map(fold);
    match renamed {
        Some(r) if r != own && !all.iter().any(|f| fold(&f.0) == r) => format!("{own}|{r}"),
        _ => own,
    }
}

/// What the field's `skip_serializing_if` leaves out of the wire.
fn skip_of(attrs: &Attrs) -> &'static str {
    match attrs.serde.skip_if.as_deref() {
        Some("Option::is_none") => "None",
        Some("Vec::is_empty" | "HashMap::is_empty") => "Empty",
        Some(_) => "Other",
        None => "Never",
    }
}
