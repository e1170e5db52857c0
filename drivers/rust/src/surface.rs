//! The application's surface (PROTOCOL.md "Surface"), read from the crate source by build.rs:
//! the `surface` command and the `fields` of createSession / resumeSession.

use github_copilot_sdk::{ClientOptions, ResumeSessionConfig, SessionConfig};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::byname::{ByName, Refused};
use crate::callbacks::Nothing;
use crate::want::Want;
use crate::{Failure, Outcome, SDK_NAME, SDK_VERSION};

/// One declared field (see build.rs `surface_gen`).
pub struct SurfaceEntry {
    pub owner: &'static str,
    pub name: &'static str,
    pub ty: &'static str,
    pub kind: &'static str,
    pub shape: &'static str,
    pub optional: bool,
    pub declared_by: &'static str,
    /// An enum's serde values.
    pub values: &'static [&'static str],
    /// The members of the object the field holds, by their serde names (PROTOCOL.md "Surface").
    pub fields: &'static [SurfaceEntry],
}

fn entry_json(e: &SurfaceEntry) -> Value {
    let mut v = json!({"owner": e.owner, "name": e.name, "type": e.ty, "kind": e.kind, "shape": e.shape,
                       "optional": e.optional, "declaredBy": e.declared_by});
    if !e.values.is_empty() {
        v["values"] = json!(e.values);
    }
    if !e.fields.is_empty() {
        v["fields"] = Value::Array(e.fields.iter().map(entry_json).collect());
    }
    v
}

include!(concat!(env!("OUT_DIR"), "/surface_gen.rs"));

// How a field is set from JSON is chosen per field type (autoref specialization on
// crate::want::Want): the generated setters call `(&&&&want_of(&c.field)).from_json(v)`, which
// resolves to `Named` when the type has a by-name builder (src/byname.rs, generated from the
// crate's source), to `Strict` when it is only Deserialize and Serialize, to `Plain` when it is
// only Deserialize, and to `Not` otherwise, so the driver sets every field it can without naming
// its type. `way()` says which, for hello's `driver.builtBy` tally of the fields serde sets.

pub trait Named<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>>;
    fn way(&self) -> &'static str {
        "by name"
    }
}

/// The value built as an application writes it; a key the type has no field for, or a value of
/// another JSON type than the field's, is refused (a key its encoding leaves out when empty or
/// null is set: the wire shows it).
impl<T: ByName> Named<T> for &&&Want<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>> {
        Some(crate::byname::build::<T>(&v).map_err(|r| match r {
            Refused::Unknown(keys) => format!(
                "the type has no member {} (no field is named for it)",
                dotted(&keys[0])
            ),
            Refused::Mistyped(at) if at[0].is_empty() => format!("{v} is not a value of the field's type"),
            Refused::Mistyped(at) => format!("{} is not a value of its field's type", dotted(&at[0])),
        }))
    }
}

/// `a.0.b` for the JSON pointer `/a/0/b`.
fn dotted(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

// Strict and Plain: which of them a release's fields need depends on its types.
#[allow(dead_code)]
pub trait Strict<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>>;
    fn way(&self) -> &'static str {
        "serde"
    }
}

/// serde ignores a key the type lacks, which would look like the SDK dropping it; the value is
/// serialized back and a key given with a value that did not come back is refused (a key the
/// type's own serialization leaves out when empty, false or null is the probe's to judge).
/// serde for a type without a by-name builder (one the crate's source does not declare).
impl<T: DeserializeOwned + Serialize> Strict<T> for &&Want<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>> {
        let x: T = match serde_json::from_value(v.clone()) {
            Ok(x) => x,
            Err(e) => return Some(Err(e.to_string())),
        };
        let back = match serde_json::to_value(&x) {
            Ok(b) => b,
            Err(e) => return Some(Err(e.to_string())),
        };
        Some(match dropped(&v, &back) {
            Some(key) => Err(format!(
                "the type has no member {key} (serde would drop it)"
            )),
            None => Ok(x),
        })
    }
}

#[allow(dead_code)]
pub trait Plain<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>>;
    fn way(&self) -> &'static str {
        "serde"
    }
}

impl<T: DeserializeOwned> Plain<T> for &Want<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>> {
        Some(serde_json::from_value(v).map_err(|e| e.to_string()))
    }
}

pub trait Not<T> {
    fn from_json(&self, v: Value) -> Option<Result<T, String>>;
    fn way(&self) -> &'static str {
        "none"
    }
}

impl<T> Not<T> for Want<T> {
    fn from_json(&self, _: Value) -> Option<Result<T, String>> {
        None
    }
}

fn empty(v: &Value) -> bool {
    match v {
        Value::Null | Value::Bool(false) => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// The first key of `given` (a path) whose non-empty value is missing from `back`.
fn dropped(given: &Value, back: &Value) -> Option<String> {
    match (given, back) {
        (Value::Object(g), Value::Object(b)) => g.iter().find_map(|(k, gv)| match b.get(k) {
            None if empty(gv) => None,
            None => Some(k.clone()),
            Some(bv) => dropped(gv, bv).map(|p| format!("{k}.{p}")),
        }),
        (Value::Array(g), Value::Array(b)) => g
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (gv, bv))| dropped(gv, bv).map(|p| format!("{i}.{p}"))),
        _ => None,
    }
}

pub fn surface() -> Outcome {
    if SURFACE.is_empty() {
        return Err(Failure::Unsupported(format!(
            "{SDK_NAME} {SDK_VERSION}: the crate source was not found at build time, so its declared surface is unknown"
        )));
    }
    let entries: Vec<Value> = SURFACE.iter().map(entry_json).collect();
    Ok(json!({ "entries": entries }))
}

fn fields_arg(args: &Value) -> Result<Map<String, Value>, Failure> {
    match args.get("fields") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(fields)) => Ok(fields.clone()),
        Some(_) => Err(Failure::Error {
            kind: "DriverError".into(),
            message: "fields must be an object".into(),
        }),
    }
}

fn set_all(
    args: &Value,
    owner: &str,
    mut set: impl FnMut(&str, Value) -> Option<Result<(), String>>,
) -> Result<(), Failure> {
    for (name, value) in fields_arg(args)? {
        match set(&name, value) {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                return Err(Failure::Unsupported(format!("{SDK_NAME} {SDK_VERSION}: {owner}.{name} cannot hold the value: {e}")))
            }
            None => {
                return Err(Failure::Unsupported(format!(
                    "{SDK_NAME} {SDK_VERSION}: {owner} has no field {name} the driver can set from JSON (no serde Deserialize, no definition builder)"
                )))
            }
        }
    }
    Ok(())
}

pub fn apply_create_fields(config: &mut SessionConfig, args: &Value) -> Result<(), Failure> {
    set_all(args, "SessionConfig", |n, v| set_create_field(config, n, v))
}

pub fn apply_resume_fields(config: &mut ResumeSessionConfig, args: &Value) -> Result<(), Failure> {
    set_all(args, "ResumeSessionConfig", |n, v| {
        set_resume_field(config, n, v)
    })
}

/// The client option fields of `connect`, set on the options the driver built for the transport.
pub fn apply_client_fields(options: &mut ClientOptions, args: &Value) -> Result<(), Failure> {
    set_all(args, "ClientOptions", |n, v| {
        set_client_field(options, n, v)
    })
}

fn handlers_arg(args: &Value) -> Result<Vec<String>, Failure> {
    let driver = |m: &str| Failure::Error {
        kind: "DriverError".into(),
        message: m.into(),
    };
    match args.get("surfaceHandlers") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| {
                n.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| driver("surfaceHandlers must be names"))
            })
            .collect(),
        Some(_) => Err(driver("surfaceHandlers must be a list")),
    }
}

/// `surfaceHandlers` (PROTOCOL.md "Surface"): for each named handler entry of `owner`, a callback
/// of the field's type that does nothing and reports its calls as that name of the session
/// `session` (src/callbacks.rs); a field the driver set already keeps the driver's own, and its
/// name is returned (`kept`).
fn register_all(
    args: &Value,
    owner: &str,
    ty: &str,
    session: &str,
    mut register: impl FnMut(&str, Nothing) -> Option<bool>,
) -> Result<Vec<String>, Failure> {
    let mut kept = Vec::new();
    for name in handlers_arg(args)? {
        let declared = SURFACE
            .iter()
            .any(|e| e.owner == owner && e.name == name && e.kind == "handler");
        if !declared {
            return Err(Failure::Unsupported(format!(
                "{SDK_NAME} {SDK_VERSION}: {ty} declares no handler {name}"
            )));
        }
        match register(&name, Nothing::reporting(session, &name)) {
            Some(true) => {}
            Some(false) => kept.push(name),
            None => {
                let decl = SURFACE
                    .iter()
                    .find(|e| e.owner == owner && e.name == name)
                    .map(|e| e.ty)
                    .unwrap_or("?");
                return Err(Failure::Unsupported(format!(
                    "{SDK_NAME} {SDK_VERSION}: the Rust driver has no callback of the type of {ty}.{name} ({decl})"
                )));
            }
        }
    }
    Ok(kept)
}

pub fn apply_create_handlers(
    config: &mut SessionConfig,
    session: &str,
    args: &Value,
) -> Result<Vec<String>, Failure> {
    register_all(args, "sessionConfig", "SessionConfig", session, |n, by| {
        set_create_handler(config, n, by)
    })
}

pub fn apply_resume_handlers(
    config: &mut ResumeSessionConfig,
    session: &str,
    args: &Value,
) -> Result<Vec<String>, Failure> {
    register_all(args, "resumeConfig", "ResumeSessionConfig", session, |n, by| {
        set_resume_handler(config, n, by)
    })
}
