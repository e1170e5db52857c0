//! Held handlers (PROTOCOL.md "Holding a handler"): `hold` arms a gate per (handle, kind), a kind
//! being a runtime-to-SDK method or `tool NAME`; a handler reached under an armed gate reports as
//! usual, then waits until `release` opens it, as an application awaiting something slow does.
//! [`HOLD_GIVE_UP`] bounds the wait should the release never come.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::watch;

const HOLD_GIVE_UP: Duration = Duration::from_secs(30);

static GATES: Mutex<Option<HashMap<String, watch::Sender<bool>>>> = Mutex::new(None);

fn keys(args: &Value) -> Vec<String> {
    let kind = match (
        args.get("method").and_then(Value::as_str),
        args.get("request").and_then(Value::as_str),
    ) {
        (Some(m), _) => m.to_string(),
        (None, Some(r)) => format!("request {r}"),
        (None, None) => format!(
            "tool {}",
            args.get("tool").and_then(Value::as_str).unwrap_or_default()
        ),
    };
    ["session", "client"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|h| format!("{h}\u{0}{kind}"))
        .collect()
}

fn with_gates<T>(f: impl FnOnce(&mut HashMap<String, watch::Sender<bool>>) -> T) -> T {
    let mut gates = GATES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    f(gates.get_or_insert_with(HashMap::new))
}

pub(crate) fn hold(args: &Value) -> Value {
    with_gates(|gates| {
        for k in keys(args) {
            gates.entry(k).or_insert_with(|| watch::channel(false).0);
        }
    });
    json!({})
}

pub(crate) fn release(args: &Value) -> Value {
    with_gates(|gates| {
        for k in keys(args) {
            if let Some(gate) = gates.remove(&k) {
                gate.send_replace(true);
            }
        }
    });
    json!({})
}

/// Waits while a gate is armed for the handle and kind (at once when none is).
pub(crate) async fn held(handle: &str, kind: &str) {
    let gate = with_gates(|gates| gates.get(&format!("{handle}\u{0}{kind}")).map(watch::Sender::subscribe));
    if let Some(mut gate) = gate {
        let _ = tokio::time::timeout(HOLD_GIVE_UP, gate.wait_for(|released| *released)).await;
    }
}

/// Reports `tool.cancelled` when dropped still armed: the SDK dropped the held tool handler's
/// future, which is how it tells the handler that the runtime resolved its call (capability
/// handler.cancel.tool, build_api.rs `sdk_tool_call_async`). `disarm` once the wait ended.
pub(crate) struct ToldOnDrop {
    pub(crate) session: String,
    pub(crate) tool: String,
    pub(crate) reached: std::time::Instant,
    pub(crate) armed: bool,
}

impl Drop for ToldOnDrop {
    fn drop(&mut self) {
        if self.armed {
            crate::emit_event(
                "tool.cancelled",
                json!({
                    "session": self.session,
                    "tool": self.tool,
                    "way": "ToolHandler::call's future dropped",
                    "afterMs": self.reached.elapsed().as_millis() as u64,
                }),
            );
        }
    }
}

/// Whether a gate is armed for the handle and kind.
fn armed(handle: &str, kind: &str) -> bool {
    with_gates(|gates| gates.contains_key(&format!("{handle}\u{0}{kind}")))
}

/// A request event's handler under a `request` gate (PROTOCOL.md "Holding a handler"): reports
/// `request.held`, then waits for the release; should the SDK drop the handler's future meanwhile
/// (how it would tell the handler that the runtime resolved its request, capability
/// handler.cancel.<kind>), `request.cancelled` is reported. At once when no gate is armed.
pub(crate) async fn held_request(handle: &str, request: &'static str, way: &'static str) {
    let kind = format!("request {request}");
    if !armed(handle, &kind) {
        return;
    }
    crate::emit_event("request.held", json!({ "session": handle, "request": request }));
    let mut told = RequestToldOnDrop {
        session: handle.to_string(),
        request,
        way,
        reached: std::time::Instant::now(),
        armed: true,
    };
    held(handle, &kind).await;
    told.armed = false;
}

/// Reports `request.cancelled` when dropped still armed (see [`held_request`]).
struct RequestToldOnDrop {
    session: String,
    request: &'static str,
    way: &'static str,
    reached: std::time::Instant,
    armed: bool,
}

impl Drop for RequestToldOnDrop {
    fn drop(&mut self) {
        if self.armed {
            crate::emit_event(
                "request.cancelled",
                json!({
                    "session": self.session,
                    "request": self.request,
                    "way": self.way,
                    "afterMs": self.reached.elapsed().as_millis() as u64,
                }),
            );
        }
    }
}
