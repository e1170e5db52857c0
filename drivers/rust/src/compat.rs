//! The paths that differ between releases of the crate, each picked by a cfg build.rs sets from
//! the crate's own source (so one driver builds against every published 1.x release):
//! - `sdk_error_kind` (1.0.0-beta.9 on): `Error` is a struct with `kind() -> ErrorKind` and
//!   `Error::with_message`, and `subscription::RecvError::kind() -> RecvErrorKind`. Before, `Error`
//!   and `RecvError` are plain enums (`Error::Session(SessionError::AgentError(String))`,
//!   `RecvError::Lagged(Lagged)`).
//! - `sdk_facades` (1.0.0-beta.12 on): the generated layer is re-exported as
//!   `github_copilot_sdk::rpc` / `session_events`; before, it is only `generated::rpc` /
//!   `generated::session_events` (same types, public too).

use github_copilot_sdk::subscription::RecvError;
use github_copilot_sdk::Error;

/// The crate's generated layer, wherever this release exports it.
pub(crate) mod generated {
    #[cfg(not(sdk_facades))]
    pub(crate) use github_copilot_sdk::generated::session_events;
    #[cfg(sdk_facades)]
    pub(crate) use github_copilot_sdk::{rpc, session_events};
    /// What the later `rpc` facade re-exports: the wrappers and their request/result types.
    #[cfg(not(sdk_facades))]
    #[allow(unused_imports)]
    pub(crate) mod rpc {
        pub(crate) use github_copilot_sdk::generated::api_types::*;
        pub(crate) use github_copilot_sdk::generated::rpc::*;
    }
}

/// `Error::<variant>` (e.g. `Error::Rpc`, `Error::Session`): the head of the error kind's Debug
/// form, or of the error enum's own Debug form in releases without `ErrorKind`.
pub(crate) fn error_type(error: &Error) -> String {
    #[cfg(sdk_error_kind)]
    let kind = format!("{:?}", error.kind());
    #[cfg(not(sdk_error_kind))]
    let kind = format!("{error:?}");
    let head = kind
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    format!("Error::{head}")
}

/// The JSON-RPC `code` and `data` of an error, as an application reads them: `Error::rpc_code()`
/// and `Error::rpc_data()` (1.0.27 on), or a match on `Error::Rpc { code, .. }` in releases before
/// `ErrorKind`, whose variant has no data; `null` where the error has none.
pub(crate) fn rpc_fields(error: &Error) -> (serde_json::Value, serde_json::Value) {
    use serde_json::Value;
    #[cfg(sdk_error_kind)]
    let code = error.rpc_code().map_or(Value::Null, Value::from);
    #[cfg(not(sdk_error_kind))]
    let code = match error {
        Error::Rpc { code, .. } => Value::from(*code),
        _ => Value::Null,
    };
    #[cfg(sdk_rpc_data)]
    let data = error.rpc_data().cloned().unwrap_or(Value::Null);
    #[cfg(not(sdk_rpc_data))]
    let data = Value::Null;
    (code, data)
}

/// The error a failing tool handler returns: the session's agent error with the message.
pub(crate) fn agent_error(message: String) -> Error {
    #[cfg(sdk_error_kind)]
    {
        use github_copilot_sdk::{ErrorKind, SessionErrorKind};
        Error::with_message(ErrorKind::Session(SessionErrorKind::AgentError), message)
    }
    #[cfg(not(sdk_error_kind))]
    {
        Error::Session(github_copilot_sdk::SessionError::AgentError(message))
    }
}

/// An invalid-configuration error with the message.
#[cfg_attr(not(sdk_clear_context), allow(dead_code))]
pub(crate) fn config_error(message: String) -> Error {
    #[cfg(sdk_error_kind)]
    {
        Error::with_message(github_copilot_sdk::ErrorKind::InvalidConfig, message)
    }
    #[cfg(not(sdk_error_kind))]
    {
        Error::InvalidConfig(message)
    }
}

/// How far the subscriber fell behind, when that is the error (any other error ends it).
pub(crate) fn lagged(error: &RecvError) -> Option<String> {
    #[cfg(sdk_error_kind)]
    {
        match error.kind() {
            github_copilot_sdk::subscription::RecvErrorKind::Lagged(lagged) => {
                Some(format!("{lagged:?}"))
            }
            _ => None,
        }
    }
    #[cfg(not(sdk_error_kind))]
    {
        match error {
            RecvError::Lagged(lagged) => Some(format!("{lagged:?}")),
            _ => None,
        }
    }
}

/// `Tool::with_handler` where the crate has it (1.0.0-beta.7 on, with the per-request handler
/// traits); before, a tool carries no handler: the handler waits in [`legacy`] for its session's
/// `ToolHandlerRouter`.
pub(crate) fn with_handler(
    tool: github_copilot_sdk::Tool,
    handler: crate::ScriptedHandler,
) -> github_copilot_sdk::Tool {
    #[cfg(sdk_handler_traits)]
    {
        tool.with_handler(std::sync::Arc::new(handler))
    }
    #[cfg(not(sdk_handler_traits))]
    {
        legacy::stash(&tool.name, handler);
        tool
    }
}

/// Releases before 1.0.0-beta.7 (`sdk_handler_traits` unset) have one `SessionHandler` per
/// session instead of `PermissionHandler` / `UserInputHandler` / `ElicitationHandler` and a handler
/// on each `Tool`: the application's tools go through the crate's `tool::ToolHandlerRouter` (each
/// tool a `ToolHandler` with `tool()` and `call()`), permissions through
/// `permission::approve_all(router)`, and this wrapper reports each permission request as the
/// newer driver path does. User input and elicitation keep the crate's defaults: those releases
/// have no `user_input_handler` / `elicitation_handler` option, so those options are unsupported.
#[cfg(not(sdk_handler_traits))]
pub(crate) mod legacy {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};

    use async_trait::async_trait;
    use github_copilot_sdk::handler::{
        ApproveAllHandler, HandlerEvent, HandlerResponse, SessionHandler,
    };
    use github_copilot_sdk::tool::{ToolHandler, ToolHandlerRouter};
    use github_copilot_sdk::{Error, Tool, ToolInvocation, ToolResult};
    use serde_json::json;

    use crate::{emit_event, ScriptedHandler};

    /// Handlers built with their tool, by (session handle, tool name), until the session's
    /// create/resume builds its router (a later build of the same tool replaces the earlier).
    static PENDING: Mutex<Option<HashMap<(String, String), Arc<ScriptedHandler>>>> =
        Mutex::new(None);

    pub(super) fn stash(name: &str, handler: ScriptedHandler) {
        let mut pending = PENDING.lock().unwrap();
        pending.get_or_insert_with(HashMap::new).insert(
            (handler.session.clone(), name.to_string()),
            Arc::new(handler),
        );
    }

    /// One application tool for the router: its definition and its scripted handler.
    struct Routed {
        tool: Tool,
        handler: Arc<ScriptedHandler>,
    }

    #[async_trait]
    impl ToolHandler for Routed {
        fn tool(&self) -> Tool {
            self.tool.clone()
        }

        async fn call(&self, invocation: ToolInvocation) -> Result<ToolResult, Error> {
            self.handler.call(invocation).await
        }
    }

    /// Reports each permission request (`permission.requested`) with the request data serialized
    /// by the crate's serde derive, then lets the inner handler answer every event.
    struct Reporting {
        session: String,
        inner: Arc<dyn SessionHandler>,
    }

    #[async_trait]
    impl SessionHandler for Reporting {
        async fn on_event(&self, event: HandlerEvent) -> HandlerResponse {
            if let HandlerEvent::PermissionRequest { data, .. } = &event {
                let seen = serde_json::to_value(data)
                    .unwrap_or_else(|e| json!({ "unserializable": e.to_string() }));
                emit_event(
                    "permission.requested",
                    json!({ "session": self.session, "request": seen }),
                );
            }
            self.inner.on_event(event).await
        }
    }

    /// The session's handler: the router over its tools (in the application's order; the
    /// definitions go to `with_tools` as given), inside approve-all permissions, reported.
    pub(crate) fn session_handler(session: &str, tools: &[Tool]) -> Arc<dyn SessionHandler> {
        let mut pending = PENDING.lock().unwrap();
        let pending = pending.get_or_insert_with(HashMap::new);
        let routed: Vec<Box<dyn ToolHandler>> = tools
            .iter()
            .filter_map(|tool| {
                let handler = pending.remove(&(session.to_string(), tool.name.clone()))?;
                Some(Box::new(Routed {
                    tool: tool.clone(),
                    handler,
                }) as Box<dyn ToolHandler>)
            })
            .collect();
        // The fallback answers what the router does not (its trait defaults; it approves, as the policy is).
        let router = ToolHandlerRouter::new(routed, Arc::new(ApproveAllHandler));
        Arc::new(Reporting {
            session: session.to_string(),
            inner: github_copilot_sdk::permission::approve_all(Arc::new(router)),
        })
    }
}
