//! Writes `$OUT_DIR/surface_gen.rs` (PROTOCOL.md "Surface": every field of the SDK's configuration
//! structs as declared, a setter per field, a builder per definition struct) and
//! `$OUT_DIR/request_gen.rs` (the request context under the start request's wire names), from the
//! crate's declarations read with the parser (build_api.rs).

use crate::build_api::{Api, Member, TypeDecl, COMMAND_NEW};
use crate::build_byname::REQUEST_OWNERS;
use crate::build_syntax as syntax;

/// Owner (PROTOCOL.md "Surface") and the structs that declare it.
const SURFACE_OWNERS: &[(&str, &[&str])] = &[
    ("sessionConfig", &["SessionConfig"]),
    ("resumeConfig", &["ResumeSessionConfig"]),
    ("clientOptions", &["ClientOptions"]),
    ("tool", &["Tool"]),
    ("customAgent", &["CustomAgentConfig"]),
    (
        "mcpServer",
        &["McpStdioServerConfig", "McpHttpServerConfig"],
    ),
    ("command", &["CommandDefinition"]),
    ("provider", &["ProviderConfig"]),
    ("systemMessage", &["SystemMessageConfig"]),
];

// The lookups below search the whole crate source (megabytes) for one declaration each, and the

/// Definition structs without `Default` that the driver still builds from an object: (struct, what
/// the crate must declare for the constructor, the driver's expression for a blank one).
const BLANK_DEFS: &[(&str, crate::build_api::Need, &str)] =
    &[("CommandDefinition", COMMAND_NEW, "crate::callbacks::blank_command_definition()")];

/// The public fields of the struct `name` as (field, type) with its file, hand-written files
/// before generated ones (the generated wire types reuse some names). A field behind a
/// `#[cfg(...)]` is left out (it may not exist in this build).
fn struct_decl(api: &Api, name: &str) -> Option<(String, Vec<(String, String)>)> {
    let (file, members) = api.struct_fields(name)?;
    Some((file, members.into_iter().filter(|m| !m.cfg).map(|m| (m.name, m.ty)).collect()))
}

/// The shape of a Rust field type for the harness's value generator, whether it is optional,
/// and whether a JSON value of that shape deserializes straight into it (a setter is generated).
fn rust_shape(ty: &str) -> (&'static str, bool, bool) {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let (inner, optional) = match t.strip_prefix("Option<").and_then(|r| r.strip_suffix('>')) {
        Some(inner) => (inner.to_string(), true),
        None => (t.clone(), false),
    };
    let plain = |s: &'static str| (s, optional, true);
    match inner.as_str() {
        "String" | "PathBuf" => plain("string"),
        "bool" => plain("boolean"),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            plain("integer")
        }
        "f32" | "f64" => plain("number"),
        // OsString: a process argument or variable (ClientOptions.prefix_args), set from a string.
        "Vec<String>" | "Vec<PathBuf>" | "Vec<OsString>" => plain("string[]"),
        _ if inner.contains("dyn") || inner.contains("Fn(") => ("handler", optional, false),
        // Pairs of strings (ClientOptions.env's variables): a map of strings, in JSON.
        _ if generic_args(&inner, "Vec").is_some_and(|a| {
            a.len() == 1 && tuple_args(a[0]).is_some_and(|t| t.len() == 2 && t.iter().all(|x| STRINGS.contains(x)))
        }) =>
        {
            ("map", optional, false)
        }
        // A map of strings or scalars (or of any JSON Value, or of structs whose members `fields`
        // lists): what the harness generates maps of (a map of booleans gets booleans, serde sets
        // it); a map of containers has no generator.
        _ if inner.starts_with("HashMap<")
            || inner.starts_with("IndexMap<")
            || inner.starts_with("BTreeMap<") =>
        {
            let head = inner.split('<').next().unwrap_or("");
            let args = generic_args(&inner, head).unwrap_or_default();
            let value = args.last().copied().unwrap_or("");
            if value.contains('<') {
                ("other", optional, false)
            } else {
                ("map", optional, false)
            }
        }
        _ if inner.starts_with("Vec<") => ("array", optional, false),
        _ => ("other", optional, false),
    }
}

/// The string types a JSON string converts to (conv).
const STRINGS: &[&str] = &["String", "PathBuf", "OsString"];

/// A list of types split at its top-level commas (none inside `<…>` or `(…)`).
fn split_top(inner: &str) -> Vec<&str> {
    let (mut depth, mut last, mut out) = (0, 0, Vec::new());
    for (i, ch) in inner.char_indices() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&inner[last..i]);
                last = i + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[last..]);
    out
}

/// The element types of a tuple type `(A, B, …)`, split at top-level commas.
fn tuple_args(ty: &str) -> Option<Vec<&str>> {
    let inner = ty.strip_prefix('(')?.strip_suffix(')')?;
    Some(split_top(inner))
}


/// A field type with each `pub type` alias of the crate it names replaced by what the alias
/// stands for (`GitHubTelemetryCallback` is an `Arc<dyn Fn(…)>`: a handler).
fn expand_aliases(api: &Api, ty: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.is_empty() {
            return;
        }
        let last = word.rsplit("::").next().unwrap_or(word).to_string();
        match api.alias(&last) {
            Some(a) if !a.contains(&last) => out.push_str(&expand_aliases(api, a)),
            _ => out.push_str(word),
        }
        word.clear();
    };
    for ch in ty.chars() {
        if ch.is_alphanumeric() || ch == '_' || ch == ':' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A definition struct the driver can build from an object keyed by its Rust field names: its
/// path in the crate's public API, and its fields.
struct Def {
    name: String,
    path: String,
    fields: Vec<(String, String)>,
    /// The expression of a blank one: its `Default`, or the driver's (BLANK_DEFS).
    blank: String,
    /// The members its `new(…)` takes, in order, when it has no Default (SessionFsConfig): a
    /// value must give them; the blank one is built from them.
    ctor: Vec<(String, String)>,
}

/// An enum whose every variant wraps one definition struct (`McpServerConfig::Stdio(…)`): a value
/// is built as the first variant whose struct takes every key given.
struct Wrap {
    name: String,
    path: String,
    variants: Vec<(String, String)>,
}


/// The public path of a type declared in `src/<file>`: the crate root for lib.rs, else the module
/// the file is, when lib.rs declares it `pub mod` or re-exports the name from it with `pub use`;
/// None for a private module.
fn public_path(api: &Api, file: &str, name: &str) -> Option<String> {
    if file == "lib.rs" {
        return Some(format!("github_copilot_sdk::{name}"));
    }
    let module = file.strip_suffix(".rs")?;
    if module.contains('/') {
        return None;
    }
    let lib = api.lib()?;
    let public = |v: &syn::Visibility| matches!(v, syn::Visibility::Public(_));
    for item in lib {
        match item {
            syn::Item::Mod(m) if m.ident == module && m.content.is_none() && public(&m.vis) => {
                return Some(format!("github_copilot_sdk::{module}::{name}"));
            }
            syn::Item::Use(u) if public(&u.vis) => {
                let from = |p: &str| p == module || p.starts_with(&format!("{module}::"));
                if syntax::use_names(&u.tree).iter().any(|(p, n)| n == name && from(p.trim_start_matches("self::"))) {
                    return Some(format!("github_copilot_sdk::{name}"));
                }
            }
            _ => {}
        }
    }
    None
}

/// A unit-only enum serde does not derive (`ClientMode`, `SessionFsConventions`): the driver
/// builds one from a JSON string. Its values are what the crate's own conversion writes for each
/// variant, read from its `impl`: a `match self` arm `Self::V => "…"` (an `as_str`), or
/// `Self::V => Wire::W` naming a variant of a serde enum (an `into_wire`), whose serde name is
/// taken; without one, the variant names.
struct UnitEnum {
    name: String,
    path: Option<String>,
    /// (variant, value)
    variants: Vec<(String, String)>,
}


fn unit_enum(api: &Api, name: &str) -> Option<UnitEnum> {
    let d = api.type_decl(name)?;
    let file = &api.files[d.file];
    if file.contains("generated") || !d.is_enum() || d.derives("Deserialize") {
        return None;
    }
    let variants: Vec<String> = d.unit_variants()?.into_iter().map(|(v, _, _)| v).collect();
    if variants.is_empty() {
        return None;
    }
    let written = |v: &str| -> Option<String> {
        let rhs = api.inherent(name).find_map(|b| match_arm(&b.item, name, v))?;
        match rhs {
            Arm::Str(lit) => Some(lit),
            Arm::Path(path) => {
                let (variant, ty) = (path.last()?, path.get(path.len().checked_sub(2)?)?);
                let wire = api.type_decl(ty)?;
                if !wire.derives("Deserialize") {
                    return None;
                }
                enum_variants(wire).into_iter().find(|(w, _)| w == variant).map(|(_, n)| n)
            }
        }
    };
    let values: Vec<Option<String>> = variants.iter().map(|v| written(v)).collect();
    let variants = if values.iter().all(Option::is_some) {
        variants.into_iter().zip(values.into_iter().flatten()).collect()
    } else {
        variants.into_iter().map(|v| (v.clone(), v)).collect()
    };
    Some(UnitEnum { name: name.to_string(), path: public_path(api, file, name), variants })
}

/// What a `match` arm of an impl's code gives for the variant: `Self::V => "…"` (or `Name::V`),
/// or `Self::V => Wire::W`, ended by a comma or the end of the block.
enum Arm {
    Str(String),
    Path(Vec<String>),
}

/// Tokens of an impl, groups opened inline, each group's end marked.
#[derive(PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// A literal's source text (`"posix"`).
    Lit(String),
    End,
}

fn flatten(ts: proc_macro2::TokenStream, out: &mut Vec<Tok>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Group(g) => {
                flatten(g.stream(), out);
                out.push(Tok::End);
            }
            proc_macro2::TokenTree::Ident(i) => out.push(Tok::Ident(i.to_string())),
            proc_macro2::TokenTree::Punct(p) => out.push(Tok::Punct(p.as_char())),
            proc_macro2::TokenTree::Literal(l) => out.push(Tok::Lit(l.to_string())),
        }
    }
}

fn match_arm(imp: &syn::ItemImpl, name: &str, variant: &str) -> Option<Arm> {
    let mut toks = Vec::new();
    for item in &imp.items {
        flatten(quote::ToTokens::to_token_stream(item), &mut toks);
    }
    let is = |t: &Tok, s: &str| matches!(t, Tok::Ident(i) if i == s);
    let colons = |t: &[Tok]| t.len() >= 2 && t[0] == Tok::Punct(':') && t[1] == Tok::Punct(':');
    for i in 0..toks.len() {
        let t = &toks[i..];
        if t.len() < 7 || !(is(&t[0], "Self") || is(&t[0], name)) || !colons(&t[1..]) || !is(&t[3], variant) {
            continue;
        }
        if t[4] != Tok::Punct('=') || t[5] != Tok::Punct('>') {
            continue;
        }
        let ends = |k: usize| t.get(k).is_none_or(|x| *x == Tok::Punct(',') || *x == Tok::End);
        match &t[6] {
            Tok::Lit(l) => {
                let lit = syn::parse_str::<syn::LitStr>(l).ok()?;
                if ends(7) {
                    return Some(Arm::Str(lit.value()));
                }
            }
            Tok::Ident(first) => {
                let mut path = vec![first.clone()];
                let mut k = 7;
                while colons(&t[k.min(t.len())..]) {
                    let Some(Tok::Ident(next)) = t.get(k + 2) else { break };
                    path.push(next.clone());
                    k += 3;
                }
                if path.len() >= 2 && ends(k) {
                    return Some(Arm::Path(path));
                }
            }
            _ => {}
        }
    }
    None
}

/// A struct serde does not derive whose `Default` the driver starts from, setting each public
/// field given (`ClientInfo`, `TelemetryConfig`; `#[non_exhaustive]` forbids a struct literal
/// outside the crate, field assignment is allowed): a definition built as a definition owner's
/// is, keyed by its Rust field names.

fn plain_struct(api: &Api, name: &str) -> Option<Def> {
    let (file, fields) = struct_decl(api, name)?;
    let d = api.type_decl(name)?;
    if d.is_enum() || d.derives("Deserialize") || fields.is_empty() {
        return None;
    }
    if fields.iter().any(|(_, t)| rust_shape(&expand_aliases(api, t)).0 == "handler") {
        return None;
    }
    let default = api.implements("Default", name);
    let path = public_path(api, &file, name)?;
    let ctor = if default { Vec::new() } else { constructor(api, name, &fields)? };
    Some(Def { name: name.to_string(), blank: format!("<{path}>::default()"), path, fields, ctor })
}

/// The members `pub fn new(…) -> Self` of `impl <name>` takes, when each parameter is named after
/// a member and takes it as declared or as `impl Into<…>` of it (SessionFsConfig::new).

fn constructor(api: &Api, name: &str, fields: &[(String, String)]) -> Option<Vec<(String, String)>> {
    let new = api.inherent(name).find_map(|b| {
        b.item.items.iter().find_map(|it| match it {
            syn::ImplItem::Fn(f)
                if f.sig.ident == "new"
                    && matches!(f.vis, syn::Visibility::Public(_))
                    && matches!(&f.sig.output, syn::ReturnType::Type(_, t) if syntax::type_string(t) == "Self") =>
            {
                Some(f.sig.clone())
            }
            _ => None,
        })
    })?;
    let mut out = Vec::new();
    for p in &new.inputs {
        let syn::FnArg::Typed(p) = p else { return None };
        let syn::Pat::Ident(n) = &*p.pat else { return None };
        let (n, t) = (n.ident.to_string(), syntax::type_string(&p.ty));
        let (_, ty) = fields.iter().find(|(f, _)| *f == n)?;
        let into = t.strip_prefix("impl Into<").and_then(|r| r.strip_suffix('>'));
        if t != *ty && into != Some(ty.as_str()) {
            return None;
        }
        out.push((n, ty.clone()));
    }
    Some(out)
}

/// `pub enum <name> {` variants of the form `Variant(Struct),`, when every variant has that form.

fn wrapper_enums(api: &Api, defs: &[Def]) -> Vec<Wrap> {
    let mut out = Vec::new();
    for d in api.decls().filter(|d| d.is_enum() && !api.files[d.file].contains("generated")) {
        let syn::Item::Enum(e) = &d.item else { continue };
        let mut variants = Vec::new();
        for (v, ty, _) in d.variants() {
            match ty {
                Some(t) if defs.iter().any(|d| d.name == t) => variants.push((v, t)),
                _ => {
                    variants.clear();
                    break;
                }
            }
        }
        let name = e.ident.to_string();
        if !variants.is_empty() {
            if let Some(p) = public_path(api, &api.files[d.file], &name) {
                out.push(Wrap { name, path: p, variants });
            }
        }
    }
    out
}

/// The generic arguments of `<head><…>`, split at top-level commas.
fn generic_args<'a>(ty: &'a str, head: &str) -> Option<Vec<&'a str>> {
    let inner = ty
        .strip_prefix(head)?
        .strip_prefix('<')?
        .strip_suffix('>')?;
    Some(split_top(inner))
}

/// A Rust expression of type `Result<ty, String>` building `ty` from `v` (a Value), when `ty`
/// holds a definition or a wrapper enum; None when it holds neither (serde deserializes it).
fn conv(ty: &str, v: &str, defs: &[Def], wraps: &[Wrap], enums: &[UnitEnum]) -> Option<String> {
    let ty: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let last = ty.rsplit("::").next().unwrap_or(&ty).to_string();
    if defs.iter().any(|d| d.name == last) {
        return Some(format!("build_def_{last}({v})"));
    }
    if wraps.iter().any(|w| w.name == last) {
        return Some(format!("build_wrap_{last}({v})"));
    }
    if enums.iter().any(|e| e.name == last && e.path.is_some()) {
        return Some(format!("build_enum_{last}({v})"));
    }
    if last == "OsString" {
        return Some(string_conv(&last, v));
    }
    if let Some(a) = generic_args(&ty, "Option") {
        return Some(format!("({}).map(Some)", conv(a[0], v, defs, wraps, enums)?));
    }
    if let Some(a) = generic_args(&ty, "Vec") {
        // Pairs of strings (an environment): from an object's entries, in its order.
        if let Some(t) = tuple_args(a[0]).filter(|t| t.len() == 2 && t.iter().all(|x| STRINGS.contains(x))) {
            let (k, x) = (string_conv(t[0], "Value::String(k)"), string_conv(t[1], "v"));
            return Some(format!(
                "match {v} {{ Value::Object(o) => o.into_iter().map(|(k, v)| Ok((({k})?, ({x})?))).collect::<Result<Vec<_>, String>>(), _ => Err(\"expected an object\".to_string()) }}"
            ));
        }
        let x = conv(a[0], "v", defs, wraps, enums)?;
        return Some(format!(
            "match {v} {{ Value::Array(a) => a.into_iter().map(|v| {x}).collect::<Result<Vec<_>, String>>(), _ => Err(\"expected a list\".to_string()) }}"
        ));
    }
    for (head, map) in [
        ("HashMap", "std::collections::HashMap"),
        ("IndexMap", "github_copilot_sdk::IndexMap"),
        ("BTreeMap", "std::collections::BTreeMap"),
    ] {
        if let Some(a) = generic_args(&ty, head) {
            if a.len() != 2 || a[0] != "String" {
                return None;
            }
            let x = conv(a[1], "v", defs, wraps, enums)?;
            return Some(format!(
                "match {v} {{ Value::Object(o) => o.into_iter().map(|(k, v)| ({x}).map(|x| (k, x))).collect::<Result<{map}<String, _>, String>>(), _ => Err(\"expected an object\".to_string()) }}"
            ));
        }
    }
    None
}

/// A Rust expression of type `Result<ty, String>` building one of the STRINGS types from `v`.
fn string_conv(ty: &str, v: &str) -> String {
    let path = match ty {
        "OsString" => "std::ffi::OsString",
        "PathBuf" => "std::path::PathBuf",
        _ => "String",
    };
    format!("match {v} {{ Value::String(s) => Ok({path}::from(s)), _ => Err(\"expected a string\".to_string()) }}")
}

/// One match arm setting field `field` of type `ty` on `c` from `v`: through the definition
/// builders when the type holds definitions, else serde when the type is Deserialize (chosen per
/// concrete type by autoref specialization, surface.rs), else None.
fn setter_arm(field: &str, ty: &str, defs: &[Def], wraps: &[Wrap], enums: &[UnitEnum]) -> String {
    match conv(ty, "v", defs, wraps, enums) {
        Some(x) => format!("        {field:?} => Some(({x}).map(|x| c.{field} = x)),\n"),
        None => format!(
            "        {field:?} => (&&&&crate::want::want_of(&c.{field})).from_json(v).map(|r| r.map(|x| c.{field} = x)),\n"
        ),
    }
}



/// `$OUT_DIR/surface_gen.rs`: the `SURFACE` inventory, the config structs' setters and handler
/// setters, and the builders of the definition structs, plain structs, unit enums and wrapper
/// enums they hold.
pub fn surface_gen(api: &Api) -> String {
    let mut entries = String::new();
    let request = REQUEST_OWNERS;
    let mut decls: Vec<(&str, String, String, Vec<(String, String)>)> = Vec::new(); // owner, struct, file, fields
    // Types that are definitions (or enums of them): a field holding one is generated from the
    // definition owner's own entries, not from `fields`.
    let mut skip: Vec<String> = SURFACE_OWNERS.iter().flat_map(|(_, names)| names.iter().map(|n| n.to_string())).collect();
    for e in api.decls().filter(|d| d.is_enum()) {
        let syn::Item::Enum(item) = &e.item else { continue };
        let name = item.ident.to_string();
        let Some(d) = api.type_decl(&name) else { continue };
        if d.variants().iter().any(|(_, ty, _)| ty.as_ref().is_some_and(|t| skip.contains(t))) {
            skip.push(name);
        }
    }
    for (owner, names) in SURFACE_OWNERS {
        let mut seen = std::collections::HashSet::new();
        for name in *names {
            let Some((path, fields)) = struct_decl(api, name) else {
                continue;
            };
            for (field, ty) in &fields {
                if !seen.insert(field.clone()) {
                    continue;
                }
                // An owner of several structs (stdio and HTTP MCP servers): a member only some of
                // them declare is not required of the owner.
                let partial = names.iter().any(|other| {
                    struct_decl(api, other)
                        .is_some_and(|(_, fs)| !fs.iter().any(|(f, _)| f == field))
                });
                entries.push_str("    ");
                entries.push_str(&entry_literal(
                    api,
                    owner,
                    field,
                    ty,
                    partial,
                    &format!("{name} (src/{path})"),
                    0,
                    &skip,
                ));
            }
            decls.push((owner, name.to_string(), path, fields));
        }
    }
    let mut defs = Vec::new();
    for (owner, name, file, fields) in &decls {
        if request.iter().any(|(o, _, _)| o == owner) {
            continue;
        }
        let Some(path) = public_path(api, file, name) else {
            continue;
        };
        let blank = if api.type_decl(name).is_some_and(|d| d.derives("Default")) {
            format!("<{path}>::default()")
        } else if let Some((_, _, blank)) = BLANK_DEFS.iter().find(|(n, need, _)| n == name && api.has(need)) {
            blank.to_string()
        } else {
            continue;
        };
        defs.push(Def {
            name: name.clone(),
            path,
            fields: fields.clone(),
            blank,
            ctor: Vec::new(),
        });
    }
    // Types serde does not derive that the declared fields hold (two levels down, as `fields`):
    // plain structs built from their Default, unit enums from their values.
    let mut enums: Vec<UnitEnum> = Vec::new();
    let mut todo: Vec<(String, usize)> = decls
        .iter()
        .flat_map(|d| d.3.iter().map(|(_, t)| (held_type(t), 0)))
        .collect();
    while let Some((held, depth)) = todo.pop() {
        if skip.contains(&held) || defs.iter().any(|d| d.name == held) || enums.iter().any(|e| e.name == held) {
            continue;
        }
        if let Some(u) = unit_enum(api, &held) {
            enums.push(u);
        } else if let Some(d) = plain_struct(api, &held) {
            if depth < 2 {
                todo.extend(d.fields.iter().map(|(_, t)| (held_type(t), depth + 1)));
            }
            defs.push(d);
        }
    }
    // A struct built through its constructor: the blank one takes the members it requires out of
    // the object given (the constructor's parameters must each convert from JSON).
    let blanks: Vec<Option<String>> = defs
        .iter()
        .map(|d| {
            if d.ctor.is_empty() {
                return Some(d.blank.clone());
            }
            let args = d
                .ctor
                .iter()
                .map(|(f, ty)| {
                    let x = conv(ty, "v", &defs, &[], &enums)
                        .or_else(|| STRINGS.contains(&ty.as_str()).then(|| string_conv(ty, "v")))?;
                    let name = &d.name;
                    Some(format!(
                        "{{ let Some(v) = o.remove({f:?}) else {{ return Err(\"{name}.{f} is required\".to_string()) }}; ({x}).map_err(|e| format!(\"{name}.{f}: {{e}}\"))? }}"
                    ))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(format!("<{}>::new({})", d.path, args.join(", ")))
        })
        .collect();
    let mut blanks = blanks.into_iter();
    defs.retain_mut(|d| match blanks.next().flatten() {
        Some(b) => {
            d.blank = b;
            true
        }
        None => false,
    });
    let wraps = wrapper_enums(api, &defs);
    let mut out = format!("/// Generated by build.rs from the SDK's source.\npub const SURFACE: &[SurfaceEntry] = &[\n{entries}];\n");
    let arms = |fields: &[(String, String)]| -> String {
        fields
            .iter()
            .filter(|(_, ty)| rust_shape(&expand_aliases(api, ty)).0 != "handler")
            .map(|(f, ty)| setter_arm(f, ty, &defs, &wraps, &enums))
            .collect()
    };
    for (owner, ty, fname) in request {
        let fields = decls
            .iter()
            .find(|(o, n, _, _)| o == owner && n == ty)
            .map(|d| d.3.clone());
        let body = fields.as_deref().map(arms).unwrap_or_default();
        let ty_path = format!("github_copilot_sdk::{ty}");
        out.push_str(&format!(
            "/// Sets a declared {ty} field by name; None when the driver cannot set it.\n#[allow(unused_variables, unreachable_code)]\npub fn {fname}(c: &mut {ty_path}, name: &str, v: Value) -> Option<Result<(), String>> {{\n    #[allow(unused_imports)]\n    use crate::surface::{{Named, Not, Plain, Strict}};\n    match name {{\n{body}        _ => None,\n    }}\n}}\n"
        ));
        // The fields of the setter above that only serde sets (no by-name builder for their
        // type), for hello's driver.builtBy tally: the same autoref choice, without a value.
        let ways: String = fields
            .iter()
            .flatten()
            .filter(|(_, t)| rust_shape(&expand_aliases(api, t)).0 != "handler")
            .filter(|(_, t)| conv(t, "v", &defs, &wraps, &enums).is_none())
            .map(|(f, _)| {
                format!("    if (&&&&crate::want::want_field(|c: &{ty_path}| &c.{f})).way() == \"serde\" {{\n        out.push(\"{ty}.{f}\");\n    }}\n")
            })
            .collect();
        out.push_str(&format!(
            "/// The {ty} fields `{fname}` sets through serde.\n#[allow(unused_mut)]\npub fn {fname}_by_serde() -> Vec<&'static str> {{\n    #[allow(unused_imports)]\n    use crate::surface::{{Named, Not, Plain, Strict}};\n    let mut out = Vec::new();\n{ways}    out\n}}\n"
        ));
    }
    // surfaceHandlers: a callback that does nothing per handler field, where src/callbacks.rs has
    // one of the field's type (autoref specialization, as for the setters).
    for (owner, ty, fname) in request {
        let fields = decls
            .iter()
            .find(|(o, n, _, _)| o == owner && n == ty)
            .map(|d| d.3.clone())
            .unwrap_or_default();
        let body: String = fields
            .iter()
            .filter(|(_, t)| rust_shape(&expand_aliases(api, t)).0 == "handler")
            .map(|(f, _)| {
                format!("        {f:?} => (&&crate::want::want_of(&c.{f})).fill(&mut c.{f}, by),\n")
            })
            .collect();
        let fname = fname.replace("_field", "_handler");
        out.push_str(&format!(
            "/// Registers a callback that does nothing (reporting its calls as `by`) on a declared {ty} handler field: Some(false) when the field keeps the driver's own, None when the driver has no callback of its type.\n#[allow(unused_variables, unreachable_code, dead_code)]\npub fn {fname}(c: &mut github_copilot_sdk::{ty}, name: &str, by: crate::callbacks::Nothing) -> Option<bool> {{\n    use crate::callbacks::{{Neither, Optional, Required}};\n    match name {{\n{body}        _ => None,\n    }}\n}}\n"
        ));
    }
    for d in &defs {
        let (name, path, blank) = (&d.name, &d.path, &d.blank);
        out.push_str(&format!(
            "/// Builds a {name} from an object keyed by its Rust field names, each set alone (a key it lacks is an error).\n#[allow(non_snake_case, dead_code, unused_variables, unused_mut)]\npub fn build_def_{name}(v: Value) -> Result<{path}, String> {{\n    use crate::surface::{{Not, Plain, Strict}};\n    let Value::Object(mut o) = v else {{ return Err(\"expected an object\".to_string()) }};\n    let mut c = {blank};\n    for (name, v) in o {{\n        let set: Option<Result<(), String>> = match name.as_str() {{\n{}            _ => None,\n        }};\n        match set {{\n            Some(Ok(())) => {{}}\n            Some(Err(e)) => return Err(format!(\"{name}.{{name}}: {{e}}\")),\n            None => return Err(format!(\"{name} has no field {{name}} the driver can set\")),\n        }}\n    }}\n    Ok(c)\n}}\n",
            arms(&d.fields).replace("        \"", "            \"")
        ));
    }
    for e in &enums {
        let Some(path) = &e.path else { continue };
        let name = &e.name;
        let arms: String = e
            .variants
            .iter()
            .map(|(v, value)| format!("        Some({value:?}) => Ok({path}::{v}),\n"))
            .collect();
        let values = e.variants.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(", ");
        out.push_str(&format!(
            "/// Builds a {name} from its value (build_surface.rs unit_enum).\n#[allow(non_snake_case, dead_code)]\npub fn build_enum_{name}(v: Value) -> Result<{path}, String> {{\n    match v.as_str() {{\n{arms}        _ => Err(format!(\"expected one of {values}, got {{v}}\")),\n    }}\n}}\n"
        ));
    }
    for w in &wraps {
        let (name, path) = (&w.name, &w.path);
        let mut tries = String::new();
        let mut seen = std::collections::HashSet::new();
        for (variant, s) in &w.variants {
            if seen.insert(s.clone()) {
                tries.push_str(&format!(
                    "    match build_def_{s}(v.clone()) {{ Ok(x) => return Ok({path}::{variant}(x)), Err(e) => errors.push(format!(\"{variant}: {{e}}\")) }}\n"
                ));
            }
        }
        out.push_str(&format!(
            "/// Builds a {name} as its first variant whose struct takes every key given.\n#[allow(non_snake_case, dead_code)]\npub fn build_wrap_{name}(v: Value) -> Result<{path}, String> {{\n    let mut errors: Vec<String> = Vec::new();\n{tries}    Err(format!(\"no variant of {name} holds it ({{}})\", errors.join(\"; \")))\n}}\n"
        ));
    }
    out
}


/// The serde names of a unit-only enum's variants (a `#[serde(other)]` catch-all left out), or
/// None for an enum with data or one serde does not derive.
fn enum_values(d: &TypeDecl) -> Option<Vec<String>> {
    if !d.is_enum() || !d.derives("Deserialize") || d.serde().untagged {
        return None;
    }
    let out: Vec<String> = d
        .unit_variants()?
        .into_iter()
        .filter(|(_, _, s)| !(s.other || s.skip || s.skip_deserializing))
        .map(|(_, n, _)| n)
        .collect();
    (!out.is_empty()).then_some(out)
}

/// Whether a struct is a tuple struct of one `String` (`pub struct SessionId(String);`).
fn string_newtype(d: &TypeDecl) -> bool {
    matches!(&d.item, syn::Item::Struct(s) if matches!(&s.fields, syn::Fields::Unnamed(u) if u.unnamed.len() == 1 && syntax::type_string(&u.unnamed[0].ty) == "String"))
}

/// The type a field's value is made of, past Option, Box, Vec and a map's values.
fn held_type(ty: &str) -> String {
    let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    for head in ["Option", "Box", "Vec", "Arc"] {
        if let Some(a) = generic_args(&t, head) {
            return held_type(a[0]);
        }
    }
    for head in ["HashMap", "IndexMap", "BTreeMap"] {
        if let Some(a) = generic_args(&t, head) {
            return held_type(a.last().copied().unwrap_or(""));
        }
    }
    t.rsplit("::").next().unwrap_or(&t).to_string()
}

/// The literal of a `SurfaceEntry` for a member: its shape refined from the crate's declaration
/// of the type it holds (a serde enum's values; a `#[serde(transparent)]` string newtype is a
/// string; a serde struct's members as `fields`, under their serde names, two levels down).
/// `skip` holds definition types, whose members are owners of their own.
fn entry_literal(
    api: &Api,
    owner: &str,
    name: &str,
    ty: &str,
    optional_attr: bool,
    declared_by: &str,
    depth: usize,
    skip: &[String],
) -> String {
    let (mut shape, optional, _) = rust_shape(&expand_aliases(api, ty));
    let optional = optional || optional_attr;
    let mut values: Vec<String> = Vec::new();
    let mut fields = String::new();
    let held = held_type(ty);
    let direct = {
        let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        let t = generic_args(&t, "Option")
            .map(|a| a[0].to_string())
            .unwrap_or(t);
        t.rsplit("::").next().unwrap_or(&t) == held
    };
    if matches!(shape, "other" | "array" | "map") && !skip.contains(&held) {
        if let Some(d) = api.type_decl(&held) {
            if let Some(vs) = enum_values(d) {
                if direct {
                    shape = "enum";
                    values = vs;
                }
            } else if let Some(u) = unit_enum(api, &held).filter(|_| direct) {
                shape = "enum";
                values = u.variants.into_iter().map(|(_, v)| v).collect();
            } else if d.serde().transparent && string_newtype(d) && direct {
                shape = "string";
            } else if !d.is_enum() && d.derives("Deserialize") && !d.serde().untagged && depth < 2 {
                let rule = d.serde().rename_all;
                let members = d.members();
                if !members.iter().any(|m| m.serde.flatten) {
                    for Member { name: f, ty: t, serde: a, cfg } in members {
                        if a.skip || a.skip_deserializing || cfg {
                            continue;
                        }
                        let n = a.rename.clone().unwrap_or_else(|| crate::build_api::serde_case(&f, rule.as_deref()));
                        let has_default = a.default || a.skip_if.is_some();
                        fields.push_str(&entry_literal(
                            api,
                            owner,
                            &n,
                            &t,
                            has_default,
                            &format!("{held} (field {f})"),
                            depth + 1,
                            skip,
                        ));
                    }
                    if shape == "other" && direct {
                        shape = "object";
                    }
                }
            } else if let Some(def) = plain_struct(api, &held).filter(|_| depth < 2) {
                // Built from its Default (every member may be left out) or its constructor (the
                // members it takes are required).
                for (f, t) in &def.fields {
                    fields.push_str(&entry_literal(
                        api,
                        owner,
                        f,
                        t,
                        !def.ctor.iter().any(|(c, _)| c == f),
                        &format!("{held} (field {f})"),
                        depth + 1,
                        skip,
                    ));
                }
                if shape == "other" && direct {
                    shape = "object";
                }
            }
        }
    }
    let kind = if shape == "handler" {
        "handler"
    } else {
        "field"
    };
    let values: String = values.iter().map(|v| format!("{v:?}, ")).collect();
    format!(
        "SurfaceEntry {{ owner: {owner:?}, name: {name:?}, ty: {ty:?}, kind: {kind:?}, shape: {shape:?}, optional: {optional}, declared_by: {declared_by:?}, values: &[{values}], fields: &[{fields}] }},\n"
    )
}


/// Where the request handler's types live (src/requests.rs imports them from there too).
const REQUEST_MOD: &str = "github_copilot_sdk::copilot_request_handler";

/// `$OUT_DIR/request_gen.rs`: `context_head(ctx)`, the request context the application's handler
/// is handed, as the start request's wire keys. Each field of `CopilotRequestContext` that the
/// crate's generated start request (`LlmInferenceHttpRequestStartRequest`, which the SDK builds
/// the context from) also declares is reported under that struct's serde name: a `String` as is,
/// an `Option<String>` when set, and a unit enum of the crate's own (the transport) as the wire
/// value of the start request's enum variant of the same name (compared case-insensitively). The
/// other fields (`HeaderMap`, `CancellationToken`) are not scalars; the URL and headers are
/// reported from the HTTP request object instead. No field is named here.
pub fn request_gen(api: &Api) -> String {
    let Some((_, ctx)) = struct_decl(api, "CopilotRequestContext") else {
        return "// this crate has no CopilotRequestContext\n".to_string();
    };
    let wire = api.type_decl("LlmInferenceHttpRequestStartRequest");
    let rule = wire.and_then(|d| d.serde().rename_all);
    let wire_members = wire.map(|d| d.members()).unwrap_or_default();
    let mut body = String::new();
    let mut left = Vec::new();
    for (field, ty) in &ctx {
        let Some(Member { ty: wire_ty, serde: attrs, .. }) = wire_members.iter().find(|m| m.name == *field) else {
            left.push(format!("{field} (not in the start request)"));
            continue;
        };
        let key = attrs.rename.clone().unwrap_or_else(|| crate::build_api::serde_case(field, rule.as_deref()));
        let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        match t.as_str() {
            "String" => body.push_str(&format!(
                "    head.insert({key:?}.to_string(), Value::String(ctx.{field}.clone()));\n"
            )),
            "Option<String>" => body.push_str(&format!(
                "    if let Some(v) = &ctx.{field} {{\n        head.insert({key:?}.to_string(), Value::String(v.clone()));\n    }}\n"
            )),
            _ => {
                let arms = api.type_decl(&t)
                    .filter(|d| d.is_enum())
                    .zip(api.type_decl(&held_type(wire_ty)).filter(|d| d.is_enum()))
                    .map(|(ours, theirs)| {
                        let values = enum_variants(theirs);
                        enum_variants(ours)
                            .into_iter()
                            .filter_map(|(v, _)| {
                                let (_, value) = values.iter().find(|(w, _)| w.eq_ignore_ascii_case(&v))?;
                                Some(format!(
                                    "        {REQUEST_MOD}::{t}::{v} => {{\n            head.insert({key:?}.to_string(), Value::String({value:?}.to_string()));\n        }}\n"
                                ))
                            })
                            .collect::<String>()
                    })
                    .unwrap_or_default();
                if arms.is_empty() {
                    left.push(format!("{field}: {t}"));
                    continue;
                }
                body.push_str(&format!(
                    "    #[allow(unreachable_patterns)]\n    match ctx.{field} {{\n{arms}        _ => {{}}\n    }}\n"
                ));
            }
        }
    }
    format!(
        "/// The request context's scalar fields under the start request's wire names (build_surface.rs \
         request_gen; not reported: {}).\nfn context_head(ctx: &{REQUEST_MOD}::CopilotRequestContext) -> Map<String, Value> {{\n    let mut head = Map::new();\n{body}    head\n}}\n",
        left.join(", ")
    )
}


/// A unit enum's unit variants as (variant, serde name under its rename / rename_all), in order.
fn enum_variants(d: &TypeDecl) -> Vec<(String, String)> {
    let rule = d.serde().rename_all;
    d.variants()
        .into_iter()
        .filter(|(_, ty, _)| ty.as_deref() == Some(""))
        .map(|(v, _, attrs)| {
            let name = syntax::serde(attrs).rename.unwrap_or_else(|| crate::build_api::serde_case(&v, rule.as_deref()));
            (v, name)
        })
        .collect()
}

