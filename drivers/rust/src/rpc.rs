//! The generic `rpc` / `rpcBatch` commands (PROTOCOL.md, "Generated RPC layer"): a schema method
//! is called through the crate's own typed wrapper (`client.rpc()…` / `session.rpc()…`), found
//! in a dispatch table that build_rpc.rs generates from the crate's `src/generated/rpc.rs`.
//!
//! The params are built into the wrapper's request type by field name (src/byname.rs, from
//! impls build_byname.rs writes from the crate's source), as an application writes a struct
//! literal, never deserialised: what the type cannot carry as given is found while building and
//! is `unrepresentable` (a key the struct has no field for, a value of another JSON type, an
//! explicit null under `skip_serializing_if = "Option::is_none"`). The crate sends exactly
//! `serde_json::to_value(params)`, so a wrong `rename` in it shows on the wire.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use crate::byname::{Build, NoBuilder};
use crate::{driver_error, sdk_failure, str_arg, Failure, Outcome, State, SDK_NAME, SDK_VERSION};

/// The typed result re-serialised, and the params pointers the request could not carry.
pub(crate) type Called = Result<(Value, Vec<String>), Failure>;

/// The request type `$t` built from params by field name (src/byname.rs), and the params
/// pointers it cannot carry as given: a key no field is named for, a value of another JSON type,
/// a value the field's `skip_serializing_if` leaves out. Never through serde's Deserialize: a
/// wrong `rename` in the crate would be undone on the way in and out, and the application's
/// value go out under the wrong key unseen.
macro_rules! typed {
    ($t:ty, $params:expr) => {{
        let mut b = Build::default();
        let r = crate::byname::by_name_of!($t, $params, &mut b);
        built::<$t>(r, b)
    }};
}

include!(concat!(env!("OUT_DIR"), "/rpc_dispatch.rs"));

/// The request built (`typed!`), or why not: a request type the generator wrote no builder for
/// is unsupported, named (never a compile error: src/byname.rs `by_name_of!`).
fn built<T>(r: Result<Option<T>, NoBuilder>, b: Build) -> Result<(T, Vec<String>), Failure> {
    match r {
        Err(e) => Err(Failure::Unsupported(e.to_string())),
        Ok(None) => Err(Failure::Error {
            kind: "byname".into(),
            message: format!("params do not build into {}: {:?}", std::any::type_name::<T>(), b.lost),
        }),
        Ok(Some(req)) => Ok((req, b.all_lost())),
    }
}

/// A wrapper without a request type sends `{}`: every given key is lost.
fn untyped(params: &Value) -> Vec<String> {
    let mut lost_at = Vec::new();
    lost(params, Some(&json!({})), String::new(), &mut lost_at);
    lost_at.sort();
    lost_at
}

fn finish<T: Serialize>(
    result: Result<T, github_copilot_sdk::Error>,
    lost_at: Vec<String>,
) -> Called {
    let value = result.map_err(sdk_failure)?;
    let value = serde_json::to_value(&value).map_err(|e| Failure::Error {
        kind: "serde_json::Error".into(),
        message: format!("the typed result does not serialise: {e}"),
    })?;
    Ok((value, lost_at))
}

/// JSON pointers into `given` whose value `held` does not carry as given. Keys the type adds
/// are not params pointers (the harness sees them on the wire).
fn lost(given: &Value, held: Option<&Value>, ptr: String, out: &mut Vec<String>) {
    let Some(held) = held else {
        out.push(ptr);
        return;
    };
    match (given, held) {
        (Value::Object(g), Value::Object(h)) => {
            for (k, v) in g {
                let p = format!("{ptr}/{}", k.replace('~', "~0").replace('/', "~1"));
                lost(v, h.get(k), p, out);
            }
        }
        (Value::Array(g), Value::Array(h)) if g.len() == h.len() => {
            for (i, (gv, hv)) in g.iter().zip(h).enumerate() {
                lost(gv, Some(hv), format!("{ptr}/{i}"), out);
            }
        }
        (Value::Number(g), Value::Number(h)) => {
            // Integers compare exactly; a float on either side compares by value (1 and 1.0).
            let integers = !g.is_f64() && !h.is_f64();
            let same = g == h || (!integers && g.as_f64() == h.as_f64());
            if !same {
                out.push(ptr);
            }
        }
        (g, h) if g == h => {}
        _ => out.push(ptr),
    }
}

async fn call(state: &Arc<State>, args: &Value) -> Called {
    let method = str_arg(args, "method")?;
    let empty = json!({});
    let params = match args.get("params") {
        None | Some(Value::Null) => &empty,
        Some(p) => p,
    };
    let called = match (args.get("client"), args.get("session")) {
        (Some(_), None) => {
            let client = state.client(str_arg(args, "client")?)?;
            let name = method.strip_prefix("server.").unwrap_or(method);
            call_client(&client, name, params).await
        }
        (None, Some(_)) => {
            let session = state.session(str_arg(args, "session")?)?;
            call_session(&session, method, params).await
        }
        _ => return Err(driver_error("rpc needs exactly one of client and session")),
    };
    called.unwrap_or_else(|| {
        Err(Failure::Unsupported(format!(
            "{SDK_NAME} {SDK_VERSION}: {method} is not in this SDK's generated layer"
        )))
    })
}

pub(crate) async fn rpc(state: &Arc<State>, args: &Value) -> Outcome {
    let (result, lost_at) = crate::cancel_after(args, call(state, args)).await?;
    Ok(json!({ "result": result, "unrepresentable": lost_at }))
}

pub(crate) async fn rpc_batch(state: &Arc<State>, args: &Value) -> Outcome {
    let calls = args
        .get("calls")
        .and_then(Value::as_array)
        .ok_or_else(|| driver_error("rpcBatch needs calls"))?;
    let mut outcomes = Vec::with_capacity(calls.len());
    for c in calls {
        outcomes.push(match call(state, c).await {
            Ok((result, lost_at)) => {
                json!({ "outcome": "ok", "result": result, "unrepresentable": lost_at })
            }
            Err(Failure::Error { kind, message }) => {
                json!({ "outcome": "error", "error": { "type": kind, "message": message } })
            }
            Err(Failure::Unsupported(reason)) => {
                json!({ "outcome": "unsupported", "reason": reason })
            }
            Err(Failure::Cancelled { kind, message, .. }) => {
                json!({ "outcome": "error", "error": { "type": kind, "message": message, "cancelled": true } })
            }
            Err(Failure::Sdk {
                kind,
                message,
                code,
                data,
            }) => {
                json!({ "outcome": "error", "error": { "type": kind, "message": message, "code": code, "data": data } })
            }
        });
    }
    Ok(json!({ "outcomes": outcomes }))
}

/// `rpc.generated` and its note.
pub(crate) fn capabilities() -> (bool, String) {
    (
        !CLIENT_METHODS.is_empty() && !SESSION_METHODS.is_empty(),
        format!(
            "{SDK_NAME} {SDK_VERSION}: {} client and {} session wire methods with a public generated call \
             (dispatch generated by build.rs from the crate's src/generated/rpc.rs); params built into the \
             request type by field name (build_byname.rs), never deserialised with serde; results \
             serialised with serde; an explicit null in an Option field is skipped \
             (skip_serializing_if) and reported unrepresentable",
            CLIENT_METHODS.len(),
            SESSION_METHODS.len()
        ),
    )
}

/// The event's data as the application's typed API holds it: `{type, data}` decoded into the
/// crate's `SessionEventData` (adjacently tagged by type) and serialised back with serde, so a
/// field the typed data does not know is absent. Where the crate has no typed data for the event
/// (an unknown type, data its struct rejects) the application has only the `Value`, sent as is.
pub(crate) fn event_data(event_type: &str, data: &Value) -> Value {
    #[cfg(sdk_typed_events)]
    {
        use crate::compat::generated::session_events::SessionEventData;
        let tagged = json!({ "type": event_type, "data": data });
        if let Ok(typed) = serde_json::from_value::<SessionEventData>(tagged) {
            if let Some(d) = serde_json::to_value(&typed)
                .ok()
                .and_then(|v| v.get("data").cloned())
            {
                return d;
            }
        }
    }
    let _ = event_type;
    data.clone()
}
