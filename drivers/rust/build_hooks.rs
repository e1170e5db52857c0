//! Generates `$OUT_DIR/hooks_gen.rs` (src/handlers.rs, hooks.invoke): the crate's hooks read from
//! its own `hooks.rs` with the parser (build_syntax.rs), so no hook type or field is listed by
//! hand (PROTOCOL.md "Runtime→SDK methods", hookInputs):
//! - `HOOK_INPUTS`: per hook type (each `HookEvent` variant `V { input: I, .. }`, named `v` in
//!   lowerCamelCase as the runtime's hookType), the members of `I` as declared: the field's
//!   name, the key serde reads it from (its `rename`, else the struct's `rename_all`), its type
//!   and shape, `Option` as optional.
//! - `read_hook(&HookEvent)`: the hook type, the input read field by field under those keys (each
//!   field's value by serde_json::to_value of the field's std type: never the SDK's own
//!   serialisation of the struct, which it does not derive), and the context's session id.
//! - `hook_output(type, &Value)`: the output the application returns, the variant's output struct
//!   built from its `Default` with each field set by its key from the harness's JSON (a key no
//!   field takes, or a value the field's type cannot hold, named as a pointer it lost).
//!
//! A crate without `hooks.rs` or `HookEvent` gets the same functions answering nothing.

use std::fmt::Write as _;
use std::path::Path;

use syn::{Fields, Item};

use crate::build_syntax;

/// A field type the generated code reads and builds with serde_json alone: the std and
/// serde_json types (an SDK type would need the SDK's own serde, which an input does not derive).
fn plain(ty: &str) -> bool {
    let ty = ty.replace(' ', "");
    matches!(
        ty.as_str(),
        "String" | "bool" | "f64" | "f32" | "i64" | "i32" | "u64" | "u32" | "usize" | "PathBuf" | "Value" | "serde_json::Value" | "Vec<String>" | "Vec<Value>"
    ) || ty.starts_with("HashMap<String,") || ty.starts_with("IndexMap<String,") || ty.starts_with("Map<String,")
}

/// `Option<T>` -> Some("T").
fn option_of(ty: &str) -> Option<String> {
    let t = ty.replace(' ', "");
    t.strip_prefix("Option<").and_then(|r| r.strip_suffix('>')).map(str::to_string)
}

fn shape(ty: &str) -> &'static str {
    let t = ty.replace(' ', "");
    match t.as_str() {
        "String" | "PathBuf" => "string",
        "Value" | "serde_json::Value" => "any",
        "bool" => "boolean",
        "f64" | "f32" => "number",
        "i64" | "i32" | "u64" | "u32" | "usize" => "integer",
        "Vec<String>" => "string[]",
        _ if t.starts_with("Vec<") => "array",
        _ if t.starts_with("HashMap<") || t.starts_with("IndexMap<") || t.starts_with("Map<") => "map",
        _ => "any",
    }
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_lowercase().chain(c).collect()).unwrap_or_default()
}

/// The container's `rename_all = "camelCase"`.
fn renames_camel(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("serde")).any(|a| {
        let t = quote::ToTokens::to_token_stream(a).to_string();
        t.contains("rename_all") && t.contains("\"camelCase\"")
    })
}

/// A struct's public fields: (name, type, wire key).
fn fields(item: &syn::ItemStruct) -> Vec<(String, String, String)> {
    let camel_all = renames_camel(&item.attrs);
    let Fields::Named(named) = &item.fields else { return Vec::new() };
    named
        .named
        .iter()
        .filter(|f| matches!(f.vis, syn::Visibility::Public(_)))
        .filter_map(|f| {
            let name = f.ident.as_ref()?.to_string();
            let s = build_syntax::serde(&f.attrs);
            // The key serde reads the field from: a deserialize name, else its rename.
            let wire = s.aliases.first().cloned().or(s.rename).unwrap_or_else(|| if camel_all { camel(&name) } else { name.clone() });
            Some((name, build_syntax::type_string(&f.ty), wire))
        })
        .collect()
}

fn json_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

pub fn generate(src: Option<&Path>, out: &Path) {
    let file = src.and_then(|d| build_syntax::parse(&d.join("hooks.rs")));
    let mut structs = std::collections::BTreeMap::new();
    let mut events: Vec<(String, String)> = Vec::new(); // variant, input struct
    let mut outputs: Vec<(String, String)> = Vec::new(); // variant, output struct
    for item in file.iter().flat_map(|f| f.items.iter()) {
        match item {
            Item::Struct(s) => {
                structs.insert(s.ident.to_string(), s.clone());
            }
            Item::Enum(e) if e.ident == "HookEvent" => {
                for v in &e.variants {
                    if let Fields::Named(n) = &v.fields {
                        if let Some(f) = n.named.iter().find(|f| f.ident.as_ref().is_some_and(|i| i == "input")) {
                            events.push((v.ident.to_string(), build_syntax::type_string(&f.ty)));
                        }
                    }
                }
            }
            Item::Enum(e) if e.ident == "HookOutput" => {
                for v in &e.variants {
                    if let Fields::Unnamed(u) = &v.fields {
                        if let Some(f) = u.unnamed.first() {
                            outputs.push((v.ident.to_string(), build_syntax::type_string(&f.ty)));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    let mut decl = String::from("{");
    let mut read = String::new();
    for (variant, input) in &events {
        let Some(s) = structs.get(input) else { continue };
        let hook = lower_first(variant);
        let declared_by = format!("github_copilot_sdk::hooks::{input} (hooks.rs)");
        let mut members = Vec::new();
        let mut body = String::new();
        for (name, ty, wire) in fields(s) {
            let (inner, optional) = match option_of(&ty) {
                Some(t) => (t, true),
                None => (ty.clone(), false),
            };
            if !plain(&inner) {
                // Not read with serde_json alone: left out of the declaration, said at build time.
                println!("cargo:warning={input}.{name}: {ty} is not a plain type; the hook input member is not declared");
                continue;
            }
            members.push(format!(
                "{{\"name\":{},\"wire\":{},\"type\":{},\"kind\":\"field\",\"shape\":\"{}\",\"optional\":{optional},\"declaredBy\":{}}}",
                json_str(&name),
                json_str(&wire),
                json_str(&ty),
                shape(&inner),
                json_str(&declared_by)
            ));
            if optional {
                let _ = writeln!(body, "            if let Some(v) = &input.{name} {{ m.insert({}.into(), serde_json::to_value(v).unwrap_or(Value::Null)); }}", json_str(&wire));
            } else {
                let _ = writeln!(body, "            m.insert({}.into(), serde_json::to_value(&input.{name}).unwrap_or(Value::Null));", json_str(&wire));
            }
        }
        if decl.len() > 1 {
            decl.push(',');
        }
        let _ = write!(decl, "{}:{{\"declaredBy\":{},\"members\":[{}]}}", json_str(&hook), json_str(&declared_by), members.join(","));
        let _ = writeln!(
            read,
            "        HookEvent::{variant} {{ input, ctx }} => {{\n            let mut m = Map::new();\n{body}            Some((\"{hook}\", Value::Object(m), ctx.session_id.to_string()))\n        }}"
        );
    }
    decl.push('}');

    let mut build = String::new();
    for (variant, output) in &outputs {
        let Some(s) = structs.get(output) else { continue };
        if !build_syntax::derives(&s.attrs).iter().any(|d| d == "Default") {
            continue;
        }
        let hook = lower_first(variant);
        let mut arms = String::new();
        for (name, ty, _) in fields(s) {
            // The key the SDK writes the field under: its rename, else the struct's rename_all.
            let camel_all = renames_camel(&s.attrs);
            let f = s.fields.iter().find(|f| f.ident.as_ref().is_some_and(|i| *i == name)).unwrap();
            let key = build_syntax::serde(&f.attrs).rename.unwrap_or_else(|| if camel_all { camel(&name) } else { name.clone() });
            let set = match option_of(&ty) {
                Some(inner) if plain(&inner) => format!(
                    "if v.is_null() {{ lost.push(at(k)) }} else {{ match serde_json::from_value::<{inner}>(v.clone()) {{ Ok(x) => o.{name} = Some(x), Err(_) => lost.push(at(k)) }} }}"
                ),
                None if plain(&ty) => format!("match serde_json::from_value::<{ty}>(v.clone()) {{ Ok(x) => o.{name} = x, Err(_) => lost.push(at(k)) }}"),
                _ => "lost.push(at(k))".to_string(),
            };
            let _ = writeln!(arms, "                    {} => {set},", json_str(&key));
        }
        let _ = writeln!(
            build,
            "        \"{hook}\" => {{\n            let mut o = {output}::default();\n            for (k, v) in obj {{\n                match k.as_str() {{\n{arms}                    _ => lost.push(at(k)),\n                }}\n            }}\n            (HookOutput::{variant}(o), lost)\n        }}"
        );
    }

    let have = !events.is_empty();
    let mut code = String::new();
    let _ = writeln!(code, "// Generated by build_hooks.rs from the crate's hooks.rs: do not edit.");
    let _ = writeln!(code, "/// Each hook type's input as the crate declares it (PROTOCOL.md hookInputs).");
    let _ = writeln!(code, "pub const HOOK_INPUTS: &str = r#\"{decl}\"#;");
    let _ = writeln!(code, "/// Whether the crate declares hook events with typed inputs.");
    let _ = writeln!(code, "pub const HOOK_EVENTS: bool = {have};");
    if !have {
        // The same functions answering nothing, so the driver builds against any crate.
        let _ = writeln!(
            code,
            "pub fn read_hook(_: &github_copilot_sdk::hooks::HookEvent) -> Option<(&'static str, Value, String)> {{ None }}\npub fn hook_output(_: &str, _: &Value) -> (github_copilot_sdk::hooks::HookOutput, Vec<String>) {{ (github_copilot_sdk::hooks::HookOutput::None, Vec::new()) }}"
        );
    } else {
        let _ = writeln!(
            code,
            "#[allow(unreachable_patterns, unused_imports)]\npub fn read_hook(event: &github_copilot_sdk::hooks::HookEvent) -> Option<(&'static str, Value, String)> {{\n    use github_copilot_sdk::hooks::HookEvent;\n    use serde_json::Map;\n    match event {{\n{read}        _ => None,\n    }}\n}}"
        );
        let _ = writeln!(
            code,
            "#[allow(unused_imports, unused_mut)]\npub fn hook_output(hook: &str, out: &Value) -> (github_copilot_sdk::hooks::HookOutput, Vec<String>) {{\n    use github_copilot_sdk::hooks::*;\n    let at = |k: &str| format!(\"/output/{{}}\", k.replace('~', \"~0\").replace('/', \"~1\"));\n    let mut lost = Vec::new();\n    let obj = match out {{\n        Value::Null => return (HookOutput::None, lost),\n        Value::Object(o) => o,\n        _ => return (HookOutput::None, vec![\"/output\".into()]),\n    }};\n    match hook {{\n{build}        _ => (HookOutput::None, if obj.is_empty() {{ lost }} else {{ vec![\"/output\".into()] }}),\n    }}\n}}"
        );
    }
    std::fs::write(out, code).expect("writing hooks_gen.rs");
}
