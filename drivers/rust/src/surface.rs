//! The application's surface (PROTOCOL.md "Surface"), read from the crate source by build.rs:
//! the `surface` command and the `fields` of createSession / resumeSession.

use github_copilot_sdk::{ResumeSessionConfig, SessionConfig};
use serde_json::{json, Map, Value};

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
}

include!(concat!(env!("OUT_DIR"), "/surface_gen.rs"));

pub fn surface() -> Outcome {
    if SURFACE.is_empty() {
        return Err(Failure::Unsupported(format!(
            "{SDK_NAME} {SDK_VERSION}: the crate source was not found at build time, so its declared surface is unknown"
        )));
    }
    let entries: Vec<Value> = SURFACE
        .iter()
        .map(|e| {
            json!({"owner": e.owner, "name": e.name, "type": e.ty, "kind": e.kind, "shape": e.shape,
                   "optional": e.optional, "declaredBy": e.declared_by})
        })
        .collect();
    Ok(json!({ "entries": entries }))
}

fn fields_arg(args: &Value) -> Result<Map<String, Value>, Failure> {
    match args.get("fields") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(fields)) => Ok(fields.clone()),
        Some(_) => Err(Failure::Error { kind: "DriverError".into(), message: "fields must be an object".into() }),
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
                    "{SDK_NAME} {SDK_VERSION}: {owner} has no field {name} of a plain JSON type the driver can set"
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
    set_all(args, "ResumeSessionConfig", |n, v| set_resume_field(config, n, v))
}

/// `connect` takes no `fields` here (client options are built through their `with_*` methods).
pub fn reject_connect_fields(args: &Value) -> Result<(), Failure> {
    if fields_arg(args)?.is_empty() {
        return Ok(());
    }
    Err(Failure::Unsupported("the Rust driver does not set client option fields on connect".into()))
}
