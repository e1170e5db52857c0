//! Conformance driver for the GitHub Copilot Rust SDK (crates.io `github-copilot-sdk`).
//!
//! Speaks the line-delimited JSON protocol of drivers/PROTOCOL.md on stdin/stdout and turns each
//! command into the SDK's ordinary public API. It never asserts: it reports what the SDK returned.
//! stdout carries protocol lines only (one lock around "write line + flush"); diagnostics go to
//! stderr. The SDK logs through `tracing`, and no subscriber is installed, so it prints nothing.

// An unawaited future does nothing: a handler report written without `.await` was silently lost.
#![deny(unused_must_use)]

mod callbacks;
mod surface;
mod want;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[cfg(sdk_handler_traits)]
use async_trait::async_trait;
#[cfg(sdk_clear_context)]
use compat::generated::rpc::HistoryClearContextRequest;
#[cfg(sdk_rpc_tools_set)]
use compat::generated::rpc::ToolsSetRequest;
#[cfg(sdk_handler_traits)]
use github_copilot_sdk::handler::{
    ElicitationHandler, PermissionHandler, PermissionResult, UserInputHandler, UserInputResponse,
};
use github_copilot_sdk::hooks::SessionHooks;
use github_copilot_sdk::session::Session;
#[cfg(sdk_handler_traits)]
use github_copilot_sdk::tool::ToolHandler;
#[cfg(sdk_tool_defer)]
use github_copilot_sdk::DeferMode;
#[cfg(sdk_tool_metadata)]
use github_copilot_sdk::IndexMap;
use github_copilot_sdk::{
    CliProgram, Client, ClientOptions, Error, EventSubscription, MessageOptions,
    ResumeSessionConfig, SessionConfig, SessionId, Tool, ToolInvocation, ToolResult,
    ToolResultExpanded, Transport,
};
#[cfg(sdk_handler_traits)]
use github_copilot_sdk::{ElicitationRequest, ElicitationResult, PermissionRequestData, RequestId};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

mod byname;
mod compat;
mod convert;
mod handlers;
mod holds;
mod requests;
mod rpc;

const PROTOCOL_VERSION: i64 = 1;
/// Exact SDK version and origin cargo resolved for this build (see build.rs / Cargo.lock).
const SDK_VERSION: &str = env!("SDK_VERSION");
const SDK_SOURCE: &str = env!("SDK_SOURCE");
const SDK_NAME: &str = "github-copilot-sdk";
/// The program named for an external (TCP) connection, where the SDK spawns nothing.
const UNUSED_PROGRAM: &str = "copilot-not-spawned-for-external-transport";

// ---------------------------------------------------------------------------------------------
// stdout: one lock around every protocol line
// ---------------------------------------------------------------------------------------------

static STDOUT_LOCK: Mutex<()> = Mutex::new(());

fn write_line(message: &Value) {
    let mut line = serde_json::to_string(message).expect("JSON values always serialize");
    line.push('\n');
    let _guard = STDOUT_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut out = std::io::stdout().lock();
    if out
        .write_all(line.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        // The harness went away; nothing useful is left to do.
        std::process::exit(0);
    }
}

fn emit_event(name: &str, args: Value) {
    write_line(&json!({ "event": name, "args": args }));
}

// ---------------------------------------------------------------------------------------------
// Command outcomes
// ---------------------------------------------------------------------------------------------

enum Failure {
    /// The SDK (or the driver) raised: `{"outcome": "error", "error": {type, message}}`.
    Error { kind: String, message: String },
    /// The pinned SDK has no way to do this.
    Unsupported(String),
    /// A call the application cancelled ended so (`cancelAfterMs`): an error with
    /// `"cancelled": true` and `afterCancelMs`, how long the call took to end (its future to
    /// drop) after the timeout fired.
    Cancelled {
        kind: String,
        message: String,
        after_cancel_ms: u128,
    },
    /// An error the SDK raised: `Error` with the JSON-RPC `code` and `data` the application
    /// reads from it (PROTOCOL.md "Errors", compat::rpc_fields).
    Sdk {
        kind: String,
        message: String,
        code: Value,
        data: Value,
    },
}

type Outcome = Result<Value, Failure>;

/// `unsupported` naming the SDK version and the missing API.
fn missing(what: &str) -> Failure {
    Failure::Unsupported(format!("{SDK_NAME} {SDK_VERSION} has no {what}"))
}

const NO_IS_TERMINAL: &str = "Tool::with_is_terminal (tool option isTerminal)";
const NO_METADATA: &str = "Tool::with_metadata (tool option metadata)";
const NO_DEFER: &str = "Tool::with_defer / DeferMode (tool option defer)";
const NO_SET_TOOLS: &str = "Session::set_tools (high-level tool replacement)";
const NO_TYPED_RESULT: &str =
    "typed tool result: ToolHandler::call returns ToolResult (Text | Expanded), no variant takes a serde value";
const NO_CLEAR_CONTEXT: &str =
    "session.rpc().history().clear_context (generated session.history.clearContext)";

fn driver_error(message: impl Into<String>) -> Failure {
    Failure::Error {
        kind: "DriverError".into(),
        message: message.into(),
    }
}

/// `Error::<ErrorKind variant>`, e.g. `Error::Rpc`, `Error::Session`, `Error::Io`.
fn sdk_error_type(error: &Error) -> String {
    compat::error_type(error)
}

fn sdk_failure(error: Error) -> Failure {
    let (code, data) = compat::rpc_fields(&error);
    Failure::Sdk {
        kind: sdk_error_type(&error),
        message: error.to_string(),
        code,
        data,
    }
}

fn respond(id: &Value, outcome: Outcome) {
    let line = match outcome {
        Ok(result) => json!({ "id": id, "outcome": "ok", "result": result }),
        Err(Failure::Error { kind, message }) => {
            json!({ "id": id, "outcome": "error", "error": { "type": kind, "message": message } })
        }
        Err(Failure::Unsupported(reason)) => {
            json!({ "id": id, "outcome": "unsupported", "reason": reason })
        }
        Err(Failure::Cancelled {
            kind,
            message,
            after_cancel_ms,
        }) => {
            json!({ "id": id, "outcome": "error", "error": { "type": kind, "message": message, "cancelled": true, "afterCancelMs": after_cancel_ms as u64 } })
        }
        Err(Failure::Sdk {
            kind,
            message,
            code,
            data,
        }) => {
            json!({ "id": id, "outcome": "error", "error": { "type": kind, "message": message, "code": code, "data": data } })
        }
    };
    write_line(&line);
}

/// Awaits an SDK call, which the application gives up on after `cancelAfterMs` when the command
/// has it (PROTOCOL.md "The application cancels a call"): `tokio::time::timeout` drops the
/// future, the way a Rust application cancels one.
async fn bounded<T>(
    args: &Value,
    call: impl std::future::Future<Output = Result<T, Error>>,
) -> Result<T, Failure> {
    cancel_after(args, async { call.await.map_err(sdk_failure) }).await
}

/// `bounded` for a call whose own failures are already the driver's (the generated layer's
/// dispatch, which also reports a method it lacks).
pub(crate) async fn cancel_after<T>(
    args: &Value,
    call: impl std::future::Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    let Some(ms) = args.get("cancelAfterMs").and_then(Value::as_u64) else {
        return call.await;
    };
    // The future is dropped by hand once the timeout fired, as `timeout` would, so that the
    // drop (the SDK's cleanup) is timed.
    let mut call = Box::pin(call);
    match tokio::time::timeout(std::time::Duration::from_millis(ms), &mut call).await {
        Ok(result) => result,
        Err(elapsed) => {
            let fired = std::time::Instant::now();
            drop(call);
            Err(Failure::Cancelled {
                kind: "tokio::time::error::Elapsed".to_string(),
                message: elapsed.to_string(),
                after_cancel_ms: fired.elapsed().as_millis(),
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Handles
// ---------------------------------------------------------------------------------------------

struct SessionEntry {
    client: String,
    session: Arc<Session>,
}

#[derive(Default)]
struct State {
    clients: Mutex<HashMap<String, Client>>,
    sessions: Mutex<HashMap<String, SessionEntry>>,
}

impl State {
    fn client(&self, handle: &str) -> Result<Client, Failure> {
        self.clients
            .lock()
            .unwrap()
            .get(handle)
            .cloned()
            .ok_or_else(|| driver_error(format!("unknown client handle {handle:?}")))
    }

    fn session(&self, handle: &str) -> Result<Arc<Session>, Failure> {
        self.sessions
            .lock()
            .unwrap()
            .get(handle)
            .map(|entry| entry.session.clone())
            .ok_or_else(|| driver_error(format!("unknown session handle {handle:?}")))
    }
}

// ---------------------------------------------------------------------------------------------
// Argument helpers
// ---------------------------------------------------------------------------------------------

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, Failure> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| driver_error(format!("missing or non-string argument {key:?}")))
}

fn tools_arg(args: &Value) -> Result<&Vec<Value>, Failure> {
    args.get("tools")
        .and_then(Value::as_array)
        .ok_or_else(|| driver_error("missing or non-array argument \"tools\""))
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/// A tool handler's behaviour, as data (PROTOCOL.md "Tool.handler").
#[derive(Clone)]
enum Action {
    Return {
        text: String,
    },
    Fail {
        message: String,
    },
    ClearContext {
        prompt: String,
        text: String,
    },
    /// `returnResult`: the SDK's own tool-result type, filled from the wire fields given.
    ReturnResult(ToolResultExpanded),
}

/// The application's handler for one tool: it reports the call, then does what the spec says.
struct ScriptedHandler {
    state: Arc<State>,
    session: String,
    tool: String,
    label: Option<String>,
    /// `waitFor`: the tool whose handler must have returned (in this session) before this one acts.
    wait_for: Option<String>,
    action: Action,
}

// ---------------------------------------------------------------------------------------------
// waitFor (PROTOCOL.md "Tool"): one watch per (session handle, tool), set when that tool's
// handler returns, whatever its action or outcome.
// ---------------------------------------------------------------------------------------------

/// A bounded wait, so that an SDK serving one call at a time still gets an answer (the harness
/// reads the order of the answers on the wire, never this time).
const WAIT_GIVE_UP: Duration = Duration::from_secs(5);

static RETURNED: Mutex<Option<HashMap<(String, String), tokio::sync::watch::Sender<bool>>>> =
    Mutex::new(None);

fn returned_gate(session: &str, tool: &str) -> tokio::sync::watch::Receiver<bool> {
    let mut gates = RETURNED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    gates
        .get_or_insert_with(HashMap::new)
        .entry((session.to_string(), tool.to_string()))
        .or_insert_with(|| tokio::sync::watch::channel(false).0)
        .subscribe()
}

/// Marks the tool's handler returned in its session when dropped (every way out of `call`).
struct MarkReturned<'a>(&'a str, &'a str);

impl Drop for MarkReturned<'_> {
    fn drop(&mut self) {
        let mut gates = RETURNED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        gates
            .get_or_insert_with(HashMap::new)
            .entry((self.0.to_string(), self.1.to_string()))
            .or_insert_with(|| tokio::sync::watch::channel(false).0)
            .send_replace(true);
    }
}

/// Whether the tool's handler returned in the session within [`WAIT_GIVE_UP`].
async fn await_returned(session: &str, tool: &str) -> bool {
    let mut gate = returned_gate(session, tool);
    let returned = tokio::time::timeout(WAIT_GIVE_UP, gate.wait_for(|returned| *returned)).await;
    matches!(returned, Ok(Ok(_)))
}

#[cfg(sdk_handler_traits)]
#[async_trait]
impl ToolHandler for ScriptedHandler {
    async fn call(&self, invocation: ToolInvocation) -> Result<ToolResult, Error> {
        ScriptedHandler::call(self, invocation).await
    }
}

impl ScriptedHandler {
    async fn call(&self, invocation: ToolInvocation) -> Result<ToolResult, Error> {
        let _returned = MarkReturned(&self.session, &self.tool);
        if let Some(other) = &self.wait_for {
            if !await_returned(&self.session, other).await {
                return Ok(ToolResult::Text(format!(
                    "gave up waiting for the tool {other}"
                )));
            }
        }
        let mut invoked = json!({ "session": self.session, "tool": self.tool });
        if let Some(label) = &self.label {
            invoked["label"] = json!(label);
        }
        invoked["arguments"] = invocation.arguments.clone();
        emit_event("tool.invoked", invoked);
        let mut told = holds::ToldOnDrop {
            session: self.session.clone(),
            tool: self.tool.clone(),
            reached: std::time::Instant::now(),
            armed: cfg!(sdk_tool_call_async),
        };
        holds::held(&self.session, &format!("tool {}", self.tool)).await;
        told.armed = false;

        match &self.action {
            Action::Return { text } => Ok(ToolResult::Text(text.clone())),
            Action::ReturnResult(result) => Ok(ToolResult::Expanded(result.clone())),
            Action::Fail { message } => Err(compat::agent_error(message.clone())),
            #[cfg(not(sdk_clear_context))]
            Action::ClearContext { .. } => unreachable!("build_tool rejects clearContext handlers"),
            #[cfg(sdk_clear_context)]
            Action::ClearContext { prompt, text } => {
                let session = match self.state.session(&self.session) {
                    Ok(session) => session,
                    Err(_) => {
                        let message = format!(
                            "driver: session handle {:?} is not registered yet",
                            self.session
                        );
                        emit_event(
                            "tool.clearContext",
                            json!({ "session": self.session, "tool": self.tool, "error": message }),
                        );
                        return Err(compat::config_error(message));
                    }
                };
                let request = HistoryClearContextRequest {
                    prompt: prompt.clone(),
                };
                match session.rpc().history().clear_context(request).await {
                    Ok(cleared) => {
                        emit_event(
                            "tool.clearContext",
                            json!({
                                "session": self.session,
                                "tool": self.tool,
                                "messagesCleared": cleared.messages_cleared,
                            }),
                        );
                        Ok(ToolResult::Text(text.replace(
                            "{messagesCleared}",
                            &cleared.messages_cleared.to_string(),
                        )))
                    }
                    Err(error) => {
                        emit_event(
                            "tool.clearContext",
                            json!({
                                "session": self.session,
                                "tool": self.tool,
                                "error": error.to_string(),
                            }),
                        );
                        Err(error)
                    }
                }
            }
        }
    }
}

/// Tool options the driver knows, in the order it applies those `optionOrder` does not list.
const TOOL_OPTIONS: &[&str] = &[
    "description",
    "parameters",
    "isTerminal",
    "overridesBuiltInTool",
    "skipPermission",
    "defer",
    "metadata",
];

fn parse_action(spec: &Value) -> Result<(Option<String>, Option<String>, Action), Failure> {
    let handler = spec
        .get("handler")
        .and_then(Value::as_object)
        .ok_or_else(|| driver_error("tool.handler must be an object"))?;
    let field = |key: &str| {
        handler
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let label = handler
        .get("label")
        .and_then(Value::as_str)
        .map(str::to_string);
    let wait_for = match handler.get("waitFor") {
        None => None,
        Some(Value::String(tool)) => Some(tool.clone()),
        Some(_) => return Err(driver_error("handler.waitFor must be a tool name")),
    };
    let action = match handler.get("action").and_then(Value::as_str) {
        Some("return") => Action::Return {
            text: field("text"),
        },
        Some("fail") => Action::Fail {
            message: field("message"),
        },
        Some("clearContext") if cfg!(sdk_clear_context) => Action::ClearContext {
            prompt: field("prompt"),
            text: field("text"),
        },
        Some("clearContext") => return Err(missing(NO_CLEAR_CONTEXT)),
        // The SDK's ToolHandler::call returns ToolResult (Text | Expanded): there is no path
        // that takes a typed value, and serializing it here would test serde_json, not the SDK.
        Some("returnValue") => return Err(missing(NO_TYPED_RESULT)),
        Some("returnResult") => Action::ReturnResult(tool_result(handler.get("result"))?),
        other => return Err(Failure::Unsupported(format!(
            "the Rust driver does not know the handler action {other:?} ({SDK_NAME} {SDK_VERSION})"
        ))),
    };
    Ok((label, wait_for, action))
}

/// Builds the SDK's `ToolResultExpanded` from the wire fields given by name, as an application
/// does (its `new` and then its fields; src/byname.rs). A field the type lacks is `unsupported`;
/// one it has but skips when serializing (an empty list under `skip_serializing_if`) is set and
/// sent, so the wire shows what the SDK does with it.
fn tool_result(given: Option<&Value>) -> Result<ToolResultExpanded, Failure> {
    let given = given
        .filter(|v| v.is_object())
        .ok_or_else(|| driver_error("handler.result must be an object"))?;
    byname::build::<ToolResultExpanded>(given).map_err(|r| match r {
        byname::Refused::Mistyped(at) => driver_error(format!(
            "handler.result does not fit ToolResultExpanded: {} is not of its field's type",
            path_text(&steps(&at[0]))
        )),
        byname::Refused::Unknown(at) => {
            let path = path_text(&steps(&at[0]));
            let carrier = if path.starts_with("binaryResultsForLlm") {
                "ToolBinaryResult"
            } else {
                "ToolResultExpanded"
            };
            Failure::Unsupported(format!(
                "{SDK_NAME} {SDK_VERSION}: {carrier} has no field for {path} (tool result field the \
                 SDK's type cannot carry)"
            ))
        }
    })
}

/// The steps of a JSON pointer (`/a/0/b`).
fn steps(pointer: &str) -> Vec<Step> {
    pointer
        .split('/')
        .skip(1)
        .map(|s| match s.parse() {
            Ok(i) => Step::Index(i),
            Err(_) => Step::Key(s.replace("~1", "/").replace("~0", "~")),
        })
        .collect()
}

/// One step of a key path: an object key or an array index.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// `a.b[0].c`, for reasons.
fn path_text(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k)
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Session options (PROTOCOL.md "Session options")
// ---------------------------------------------------------------------------------------------

/// Protocol option name -> the SessionConfig / ResumeSessionConfig field it sets, and whether it
/// exists on resume only.
const SESSION_OPTIONS: &[(&str, &str, bool)] = &[
    ("model", "model", false),
    ("reasoningEffort", "reasoning_effort", false),
    ("systemMessage", "system_message", false),
    ("availableTools", "available_tools", false),
    ("excludedTools", "excluded_tools", false),
    ("streaming", "streaming", false),
    (
        "includeSubAgentStreamingEvents",
        "include_sub_agent_streaming_events",
        false,
    ),
    ("workingDirectory", "working_directory", false),
    ("customAgents", "custom_agents", false),
    ("mcpServers", "mcp_servers", false),
    ("configDiscovery", "enable_config_discovery", false),
    ("skillDirectories", "skill_directories", false),
    ("disabledSkills", "disabled_skills", false),
    ("infiniteSessions", "infinite_sessions", false),
    ("provider", "provider", false),
    ("userInputHandler", "user_input_handler", false),
    ("elicitationHandler", "elicitation_handler", false),
    ("hooks", "hooks_handler", false),
    ("continuePendingWork", "continue_pending_work", true),
    ("suppressResumeEvent", "suppress_resume_event", true),
];

/// Which fields the installed SDK's SessionConfig and ResumeSessionConfig declare (build.rs).
fn declared_field(resume: bool, field: &str) -> bool {
    macro_rules! declared {
        ($($name:literal => $create:meta, $resume:meta;)*) => {
            match field {
                $($name => if resume { cfg!($resume) } else { cfg!($create) },)*
                _ => false,
            }
        };
    }
    declared! {
        "model" => sdk_create_model, sdk_resume_model;
        "reasoning_effort" => sdk_create_reasoning_effort, sdk_resume_reasoning_effort;
        "system_message" => sdk_create_system_message, sdk_resume_system_message;
        "available_tools" => sdk_create_available_tools, sdk_resume_available_tools;
        "excluded_tools" => sdk_create_excluded_tools, sdk_resume_excluded_tools;
        "streaming" => sdk_create_streaming, sdk_resume_streaming;
        "include_sub_agent_streaming_events" => sdk_create_include_sub_agent_streaming_events, sdk_resume_include_sub_agent_streaming_events;
        "working_directory" => sdk_create_working_directory, sdk_resume_working_directory;
        "custom_agents" => sdk_create_custom_agents, sdk_resume_custom_agents;
        "mcp_servers" => sdk_create_mcp_servers, sdk_resume_mcp_servers;
        "enable_config_discovery" => sdk_create_enable_config_discovery, sdk_resume_enable_config_discovery;
        "skill_directories" => sdk_create_skill_directories, sdk_resume_skill_directories;
        "disabled_skills" => sdk_create_disabled_skills, sdk_resume_disabled_skills;
        "infinite_sessions" => sdk_create_infinite_sessions, sdk_resume_infinite_sessions;
        "provider" => sdk_create_provider, sdk_resume_provider;
        "user_input_handler" => sdk_create_user_input_handler, sdk_resume_user_input_handler;
        "elicitation_handler" => sdk_create_elicitation_handler, sdk_resume_elicitation_handler;
        "hooks_handler" => sdk_create_hooks_handler, sdk_resume_hooks_handler;
        "continue_pending_work" => sdk_create_continue_pending_work, sdk_resume_continue_pending_work;
        "suppress_resume_event" => sdk_create_suppress_resume_event, sdk_resume_suppress_resume_event;
    }
}

/// Whether an option can be set: on create and resume, or on resume for the resume-only ones.
fn option_available(field: &str, resume_only: bool) -> bool {
    declared_field(true, field) && (resume_only || declared_field(false, field))
}

/// Builds an option's value as the SDK's own type for that field by name (src/byname.rs), and
/// answers `unsupported` when the type lacks a key the application gave. A key the type has but
/// its serializer skips (an empty `args` under `skip_serializing_if`) is set and sent: the wire,
/// not the driver, shows that the SDK drops it.
fn option_value<T: byname::ByName>(name: &str, value: &Value) -> Result<T, Failure> {
    byname::build::<T>(value).map_err(|r| match r {
        byname::Refused::Mistyped(at) => driver_error(format!(
            "session option {name}: {value} does not fit the SDK's type: {} is not of its field's type",
            path_text(&steps(&at[0]))
        )),
        byname::Refused::Unknown(at) => Failure::Unsupported(format!(
            "{SDK_NAME} {SDK_VERSION}: the type of session option {name} has no field for {}",
            path_text(&steps(&at[0]))
        )),
    })
}

fn handler_flag(name: &str, value: &Value) -> Result<(), Failure> {
    if value == &Value::Bool(true) {
        Ok(())
    } else {
        Err(driver_error(format!(
            "session option {name} takes true (install a handler)"
        )))
    }
}

/// Handlers behind the handler options, with the fixed behaviour of PROTOCOL.md (the first
/// choice, a cancel, no hook output).
struct NoAnswer;

/// PROTOCOL.md: the first choice, or "ok" as free text when there are no choices.
#[cfg(all(sdk_handler_traits, not(sdk_user_input_request_id)))]
#[async_trait]
impl UserInputHandler for NoAnswer {
    async fn handle(
        &self,
        _session_id: SessionId,
        _question: String,
        choices: Option<Vec<String>>,
        _allow_freeform: Option<bool>,
    ) -> Option<UserInputResponse> {
        first_choice(choices)
    }
}

/// The same, where the trait also hands the request's id (1.0.29 previews).
#[cfg(all(sdk_handler_traits, sdk_user_input_request_id))]
#[async_trait]
impl UserInputHandler for NoAnswer {
    async fn handle(
        &self,
        _session_id: SessionId,
        _request_id: Option<RequestId>,
        _question: String,
        choices: Option<Vec<String>>,
        _allow_freeform: Option<bool>,
    ) -> Option<UserInputResponse> {
        first_choice(choices)
    }
}

#[cfg(sdk_handler_traits)]
fn first_choice(choices: Option<Vec<String>>) -> Option<UserInputResponse> {
    Some(match choices.and_then(|c| c.into_iter().next()) {
        Some(first) => UserInputResponse {
            answer: first,
            was_freeform: false,
        },
        None => UserInputResponse {
            answer: "ok".into(),
            was_freeform: true,
        },
    })
}

/// The SDK's approve-all permission handler, wrapped to report what the application's handler
/// received (`permission.requested`, PROTOCOL.md "Requests from the runtime"): the request data
/// re-serialized with the SDK's own serde derive.
#[cfg(sdk_handler_traits)]
struct ReportingPermissions {
    session: String,
    inner: Arc<dyn PermissionHandler>,
}

#[cfg(sdk_handler_traits)]
#[async_trait]
impl PermissionHandler for ReportingPermissions {
    async fn handle(
        &self,
        session_id: SessionId,
        request_id: RequestId,
        data: PermissionRequestData,
    ) -> PermissionResult {
        let seen = serde_json::to_value(&data)
            .unwrap_or_else(|e| json!({ "unserializable": e.to_string() }));
        emit_event(
            "permission.requested",
            json!({ "session": self.session, "request": seen }),
        );
        holds::held_request(&self.session, "permission.requested", PERMISSION_WAY).await;
        self.inner.handle(session_id, request_id, data).await
    }
}

#[cfg(sdk_handler_traits)]
fn permission_handler(session: &str) -> Arc<dyn PermissionHandler> {
    Arc::new(ReportingPermissions {
        session: session.to_string(),
        inner: github_copilot_sdk::permission::approve_all(),
    })
}

#[cfg(sdk_handler_traits)]
#[async_trait]
impl ElicitationHandler for NoAnswer {
    async fn handle(
        &self,
        _session_id: SessionId,
        _request_id: RequestId,
        _request: ElicitationRequest,
    ) -> ElicitationResult {
        ElicitationResult {
            action: "cancel".into(),
            content: None,
        }
    }
}

/// The ways the SDK would tell a held permission or elicitation handler that the runtime resolved
/// its request (capability handler.cancel.<kind>): both traits' `handle` is an async fn.
const PERMISSION_WAY: &str = "PermissionHandler::handle's future dropped";
const ELICITATION_WAY: &str = "ElicitationHandler::handle's future dropped";

/// The elicitation handler of the `elicitationHandler` option for a session: NoAnswer's cancel,
/// held under a `request` gate (holds::held_request).
#[cfg(sdk_handler_traits)]
struct HeldElicitation {
    session: String,
}

#[cfg(sdk_handler_traits)]
#[async_trait]
impl ElicitationHandler for HeldElicitation {
    async fn handle(
        &self,
        session_id: SessionId,
        request_id: RequestId,
        request: ElicitationRequest,
    ) -> ElicitationResult {
        holds::held_request(&self.session, "elicitation.requested", ELICITATION_WAY).await;
        ElicitationHandler::handle(&NoAnswer, session_id, request_id, request).await
    }
}

/// Every hook keeps the trait's default (no output).
impl SessionHooks for NoAnswer {}

/// Sets one option on a SessionConfig or ResumeSessionConfig (same field names on both). Each
/// arm exists only when build.rs found the field on that struct.
macro_rules! apply_options {
    ($config:expr, $options:expr, $resume:expr, $kind:literal, {$($name:literal, $field:ident, $cfg:meta, |$n:ident, $v:ident| $set:expr;)*}) => {{
        let config = $config;
        for (name, value) in $options {
            let Some(&(_, field, resume_only)) = SESSION_OPTIONS.iter().find(|(n, _, _)| n == name) else {
                return Err(Failure::Unsupported(format!(
                    "the Rust driver does not know the session option {name:?}"
                )));
            };
            if resume_only && !$resume {
                return Err(driver_error(format!("session option {name} exists on resume only")));
            }
            match name.as_str() {
                $(
                    #[cfg($cfg)]
                    $name => { let $n = name.as_str(); let $v = value; config.$field = Some($set); }
                )*
                _ => {
                    return Err(Failure::Unsupported(format!(
                        "{SDK_NAME} {SDK_VERSION}: {} has no {field} (session option {name})",
                        $kind
                    )))
                }
            }
        }
        Ok(())
    }};
}

fn options_arg(args: &Value) -> Result<Map<String, Value>, Failure> {
    match args.get("options") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(options)) => Ok(options.clone()),
        Some(_) => Err(driver_error("options must be an object")),
    }
}

fn apply_create_options(
    config: &mut SessionConfig,
    options: &Map<String, Value>,
) -> Result<(), Failure> {
    apply_options!(config, options, false, "SessionConfig", {
        "model", model, sdk_create_model, |n, v| option_value(n, v)?;
        "reasoningEffort", reasoning_effort, sdk_create_reasoning_effort, |n, v| option_value(n, v)?;
        "systemMessage", system_message, sdk_create_system_message, |n, v| option_value(n, v)?;
        "availableTools", available_tools, sdk_create_available_tools, |n, v| option_value(n, v)?;
        "excludedTools", excluded_tools, sdk_create_excluded_tools, |n, v| option_value(n, v)?;
        "streaming", streaming, sdk_create_streaming, |n, v| option_value(n, v)?;
        "includeSubAgentStreamingEvents", include_sub_agent_streaming_events, sdk_create_include_sub_agent_streaming_events, |n, v| option_value(n, v)?;
        "workingDirectory", working_directory, sdk_create_working_directory, |n, v| option_value(n, v)?;
        "customAgents", custom_agents, sdk_create_custom_agents, |n, v| option_value(n, v)?;
        "mcpServers", mcp_servers, sdk_create_mcp_servers, |n, v| option_value(n, v)?;
        "configDiscovery", enable_config_discovery, sdk_create_enable_config_discovery, |n, v| option_value(n, v)?;
        "skillDirectories", skill_directories, sdk_create_skill_directories, |n, v| option_value(n, v)?;
        "disabledSkills", disabled_skills, sdk_create_disabled_skills, |n, v| option_value(n, v)?;
        "infiniteSessions", infinite_sessions, sdk_create_infinite_sessions, |n, v| option_value(n, v)?;
        "provider", provider, sdk_create_provider, |n, v| option_value(n, v)?;
        "userInputHandler", user_input_handler, sdk_create_user_input_handler, |n, v| { handler_flag(n, v)?; Arc::new(NoAnswer) };
        "elicitationHandler", elicitation_handler, sdk_create_elicitation_handler, |n, v| { handler_flag(n, v)?; Arc::new(NoAnswer) };
        "hooks", hooks_handler, sdk_create_hooks_handler, |n, v| { handler_flag(n, v)?; Arc::new(NoAnswer) };
    })
}

fn apply_resume_options(
    config: &mut ResumeSessionConfig,
    options: &Map<String, Value>,
) -> Result<(), Failure> {
    apply_options!(config, options, true, "ResumeSessionConfig", {
        "model", model, sdk_resume_model, |n, v| option_value(n, v)?;
        "reasoningEffort", reasoning_effort, sdk_resume_reasoning_effort, |n, v| option_value(n, v)?;
        "systemMessage", system_message, sdk_resume_system_message, |n, v| option_value(n, v)?;
        "availableTools", available_tools, sdk_resume_available_tools, |n, v| option_value(n, v)?;
        "excludedTools", excluded_tools, sdk_resume_excluded_tools, |n, v| option_value(n, v)?;
        "streaming", streaming, sdk_resume_streaming, |n, v| option_value(n, v)?;
        "includeSubAgentStreamingEvents", include_sub_agent_streaming_events, sdk_resume_include_sub_agent_streaming_events, |n, v| option_value(n, v)?;
        "workingDirectory", working_directory, sdk_resume_working_directory, |n, v| option_value(n, v)?;
        "customAgents", custom_agents, sdk_resume_custom_agents, |n, v| option_value(n, v)?;
        "mcpServers", mcp_servers, sdk_resume_mcp_servers, |n, v| option_value(n, v)?;
        "configDiscovery", enable_config_discovery, sdk_resume_enable_config_discovery, |n, v| option_value(n, v)?;
        "skillDirectories", skill_directories, sdk_resume_skill_directories, |n, v| option_value(n, v)?;
        "disabledSkills", disabled_skills, sdk_resume_disabled_skills, |n, v| option_value(n, v)?;
        "infiniteSessions", infinite_sessions, sdk_resume_infinite_sessions, |n, v| option_value(n, v)?;
        "provider", provider, sdk_resume_provider, |n, v| option_value(n, v)?;
        "userInputHandler", user_input_handler, sdk_resume_user_input_handler, |n, v| { handler_flag(n, v)?; Arc::new(NoAnswer) };
        "elicitationHandler", elicitation_handler, sdk_resume_elicitation_handler, |n, v| { handler_flag(n, v)?; Arc::new(NoAnswer) };
        "hooks", hooks_handler, sdk_resume_hooks_handler, |n, v| { handler_flag(n, v)?; Arc::new(NoAnswer) };
        "continuePendingWork", continue_pending_work, sdk_resume_continue_pending_work, |n, v| option_value(n, v)?;
        "suppressResumeEvent", suppress_resume_event, sdk_resume_suppress_resume_event, |n, v| option_value(n, v)?;
    })
}

fn bool_option(spec: &Value, key: &str) -> Result<bool, Failure> {
    spec[key]
        .as_bool()
        .ok_or_else(|| driver_error(format!("tool option {key:?} must be a boolean")))
}

/// Builds one SDK tool with the builder, applying only the options present in the spec, in
/// `optionOrder` first and then in [`TOOL_OPTIONS`] order.
fn build_tool(state: &Arc<State>, session: &str, spec: &Value) -> Result<Tool, Failure> {
    let object = spec
        .as_object()
        .ok_or_else(|| driver_error("a tool must be an object"))?;
    let name = spec
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| driver_error("tool.name must be a non-empty string"))?;
    for key in object.keys() {
        let known = matches!(key.as_str(), "name" | "handler" | "optionOrder")
            || TOOL_OPTIONS.contains(&key.as_str());
        if !known {
            return Err(Failure::Unsupported(format!(
                "the Rust driver does not know the tool option {key:?} ({SDK_NAME} {SDK_VERSION})"
            )));
        }
    }

    let mut order: Vec<&str> = Vec::new();
    if let Some(listed) = spec.get("optionOrder") {
        let listed = listed
            .as_array()
            .ok_or_else(|| driver_error("tool.optionOrder must be an array"))?;
        for option in listed {
            let option = option
                .as_str()
                .filter(|o| TOOL_OPTIONS.contains(o))
                .ok_or_else(|| driver_error(format!("unknown option {option} in optionOrder")))?;
            if !order.contains(&option) {
                order.push(option);
            }
        }
    }
    for option in TOOL_OPTIONS {
        if !order.contains(option) {
            order.push(option);
        }
    }

    let (label, wait_for, action) = parse_action(spec)?;
    let handler = ScriptedHandler {
        state: state.clone(),
        session: session.to_string(),
        tool: name.to_string(),
        label,
        wait_for,
        action,
    };
    let mut tool = Tool::new(name);
    for option in order {
        if !object.contains_key(option) {
            continue; // absent: the application did not set it
        }
        tool = match option {
            "description" => tool.with_description(
                spec[option]
                    .as_str()
                    .ok_or_else(|| driver_error("tool.description must be a string"))?,
            ),
            "parameters" => {
                if !spec[option].is_object() {
                    return Err(driver_error("tool.parameters must be an object"));
                }
                tool.with_parameters(spec[option].clone())
            }
            #[cfg(sdk_tool_is_terminal)]
            "isTerminal" => tool.with_is_terminal(bool_option(spec, option)?),
            #[cfg(not(sdk_tool_is_terminal))]
            "isTerminal" => return Err(missing(NO_IS_TERMINAL)),
            "overridesBuiltInTool" => tool.with_overrides_built_in_tool(bool_option(spec, option)?),
            "skipPermission" => tool.with_skip_permission(bool_option(spec, option)?),
            #[cfg(sdk_tool_defer)]
            "defer" => tool.with_defer(match spec[option].as_str() {
                Some("auto") => DeferMode::Auto,
                Some("never") => DeferMode::Never,
                other => return Err(driver_error(format!("unknown defer mode {other:?}"))),
            }),
            #[cfg(not(sdk_tool_defer))]
            "defer" => return Err(missing(NO_DEFER)),
            #[cfg(not(sdk_tool_metadata))]
            "metadata" => return Err(missing(NO_METADATA)),
            #[cfg(sdk_tool_metadata)]
            "metadata" => {
                let map = spec[option]
                    .as_object()
                    .ok_or_else(|| driver_error("tool.metadata must be an object"))?;
                let metadata: IndexMap<String, Value> =
                    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                tool.with_metadata(metadata)
            }
            _ => unreachable!("order only holds TOOL_OPTIONS"),
        };
    }
    Ok(compat::with_handler(tool, handler))
}

fn build_tools(state: &Arc<State>, session: &str, specs: &[Value]) -> Result<Vec<Tool>, Failure> {
    specs
        .iter()
        .map(|spec| build_tool(state, session, spec))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Session events
// ---------------------------------------------------------------------------------------------

/// Forwards every event the SDK delivers to the application's subscription as `session.event`.
fn forward_events(handle: String, mut events: EventSubscription) {
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => emit_event(
                    "session.event",
                    json!({ "session": handle, "type": event.event_type, "data": rpc::event_data(&event.event_type, &event.data) }),
                ),
                Err(error) => match compat::lagged(&error) {
                    Some(lagged) => emit_event(
                        "log",
                        json!({ "message": format!("session {handle}: event subscription lagged: {lagged}") }),
                    ),
                    None => break,
                },
            }
        }
    });
}

/// Lets the event forwarders write events the SDK has already queued before a response goes out,
/// so the transcript shows e.g. `session.idle` before the `send` result it completed.
async fn settle_events() {
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
}

// ---------------------------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------------------------

fn hello() -> Outcome {
    let mut capabilities = json!({
        "transport.tcp": true,
        "transport.stdio": true,
        "session.resume": true,
        "tool.isTerminal": cfg!(sdk_tool_is_terminal),
        "tool.isTerminal.explicitFalse": false,
        "tool.overridesBuiltInTool": true,
        "tool.skipPermission": true,
        "tool.defer": cfg!(sdk_tool_defer),
        "tool.metadata": cfg!(sdk_tool_metadata),
        "session.setTools": cfg!(sdk_set_tools),
        "session.clearContext": cfg!(sdk_clear_context),
        "session.rpc.tools.set": cfg!(sdk_rpc_tools_set),
        "events": true,
        "tool.result.value": false,
        "tool.result.object": true,
        "tool.result.binary.metadata": cfg!(sdk_binary_metadata),
        "session.gitHubToken": cfg!(sdk_session_github_token),
        "handler.permission": true,
        "surface": true,
        "tool.handler.waitFor": true,
        "handler.hold": true, // holds.rs
        "handler.cancel.tool": cfg!(sdk_tool_call_async), // holds.rs ToldOnDrop
        "handler.cancel.permission": cfg!(sdk_handler_traits), // holds::held_request
        "handler.cancel.elicitation": cfg!(all(sdk_handler_traits, sdk_create_elicitation_handler)),
        "handler.cancel.command": false, // the scenario's session registers no command
        // bounded / cancel_after: tokio::time::timeout drops the call's future
        "call.cancel.createSession": true,
        "call.cancel.resumeSession": true,
        "call.cancel.send": true,
        "call.cancel.sendAndWait": true,
        "call.cancel.rpc": true,
        "error.rpc.code": true, // compat::rpc_fields: Error::rpc_code() / rpc_data()
        "surface.handlers": true,
        "surface.handlers.called": true,
        "surface.callbacks": cfg!(sdk_cb_command_definition),
        "connect.option.connectionToken": true,
        "connect.option.clientInfo": cfg!(sdk_client_info),
        "connect.option.gitHubTelemetry": cfg!(sdk_github_telemetry),
        "rpc.requestHandler": cfg!(sdk_request_handler),
        "tool.result.binary": cfg!(sdk_result_binary_results_for_llm),
        "tool.result.sessionLog": cfg!(sdk_result_session_log),
        "tool.result.telemetry": cfg!(sdk_result_tool_telemetry),
    });
    capabilities["driver.concurrent"] = json!(true); // a task per command (serve)
    let mut notes = json!({
        "tool.isTerminal.explicitFalse": format!(
            "{SDK_NAME} {SDK_VERSION}: Tool::with_is_terminal(bool) stores a plain bool serialized \
             with skip_serializing_if = is_false, so with_is_terminal(false) is indistinguishable \
             from not setting it (no isTerminal key on the wire)"
        ),
        "tool.overridesBuiltInTool": format!(
            "{SDK_NAME} {SDK_VERSION}: plain bool, omitted on the wire when false"
        ),
        "tool.skipPermission": format!(
            "{SDK_NAME} {SDK_VERSION}: plain bool, omitted on the wire when false"
        ),
        "tool.metadata": format!(
            "{SDK_NAME} {SDK_VERSION}: metadata is an IndexMap omitted on the wire when empty, so \
             an explicit {{}} is not sent"
        ),
        "session.clearContext": format!(
            "{SDK_NAME} {SDK_VERSION}: generated Session::rpc().history().clear_context()"
        ),
        "session.setTools": format!("{SDK_NAME} {SDK_VERSION}: Session::set_tools()"),
        "transport.tcp": "ClientOptions::with_transport(Transport::External { host, port, connection_token: None })".to_string(),
        "transport.stdio": "ClientOptions::with_program(CliProgram::Path(cliPath)) + Transport::Stdio".to_string(),
    });
    let absent = [
        (
            cfg!(sdk_tool_is_terminal),
            "tool.isTerminal",
            NO_IS_TERMINAL,
        ),
        (cfg!(sdk_tool_metadata), "tool.metadata", NO_METADATA),
        (cfg!(sdk_tool_defer), "tool.defer", NO_DEFER),
        (cfg!(sdk_set_tools), "session.setTools", NO_SET_TOOLS),
        (
            cfg!(sdk_clear_context),
            "session.clearContext",
            NO_CLEAR_CONTEXT,
        ),
    ];
    for (present, capability, what) in absent {
        if !present {
            notes[capability] = json!(format!("{SDK_NAME} {SDK_VERSION} has no {what}"));
        }
    }
    #[cfg(sdk_handler_traits)]
    let permission = "permission::approve_all() wrapped in a PermissionHandler";
    #[cfg(not(sdk_handler_traits))]
    let permission =
        "the session's SessionHandler: permission::approve_all(ToolHandlerRouter) wrapped";
    notes["handler.permission"] = json!(format!(
        "{SDK_NAME} {SDK_VERSION}: {permission} that reports PermissionRequestData serialized by \
         its serde derive (unknown fields kept in its flattened `extra`)"
    ));
    notes["connect.option.connectionToken"] =
        json!("Transport::External { connection_token } (TCP only; Transport::Stdio has none)");
    for (present, capability, what) in [
        (
            cfg!(sdk_client_info),
            "connect.option.clientInfo",
            "ClientOptions::with_client_info",
        ),
        (
            cfg!(sdk_github_telemetry),
            "connect.option.gitHubTelemetry",
            "ClientOptions::with_on_github_telemetry",
        ),
    ] {
        if !present {
            notes[capability] = json!(format!("{SDK_NAME} {SDK_VERSION} has no {what}"));
        }
    }
    notes["tool.result.value"] =
        json!(format!("{SDK_NAME} {SDK_VERSION} has no {NO_TYPED_RESULT}"));
    if !cfg!(sdk_binary_metadata) {
        notes["tool.result.binary.metadata"] = json!(format!(
            "{SDK_NAME} {SDK_VERSION}: ToolBinaryResult has no metadata"
        ));
    }
    if !cfg!(sdk_session_github_token) {
        notes["session.gitHubToken"] = json!(format!(
            "{SDK_NAME} {SDK_VERSION}: SessionConfig has no github_token"
        ));
    }
    notes["tool.result.object"] = json!(format!(
        "{SDK_NAME} {SDK_VERSION}: ToolResult::Expanded(ToolResultExpanded)"
    ));
    for (field, capability) in [
        ("binaryResultsForLlm", "tool.result.binary"),
        ("sessionLog", "tool.result.sessionLog"),
        ("toolTelemetry", "tool.result.telemetry"),
    ] {
        if capabilities[capability] != json!(true) {
            notes[capability] = json!(format!(
                "{SDK_NAME} {SDK_VERSION}: ToolResultExpanded has no {field}"
            ));
        }
    }
    for &(name, field, resume_only) in SESSION_OPTIONS {
        let available = option_available(field, resume_only);
        capabilities[format!("session.option.{name}")] = json!(available);
        if !available {
            let on = if declared_field(false, field) || resume_only {
                "ResumeSessionConfig"
            } else {
                "SessionConfig"
            };
            notes[format!("session.option.{name}")] =
                json!(format!("{SDK_NAME} {SDK_VERSION}: {on} has no {field}"));
        }
    }
    if !cfg!(sdk_prepare_session) {
        notes["events"] = json!(format!(
            "{SDK_NAME} {SDK_VERSION} has no Client::prepare_session: the driver subscribes after \
             create_session/resume_session return, so events sent before that are not forwarded"
        ));
    }
    let (generated, generated_note) = rpc::capabilities();
    capabilities["rpc.generated"] = json!(generated);
    // handlers accepted; a method this version has no public handler API for is named in
    // connect's / createSession's "unhandled" (src/handlers.rs).
    // A crate without the handler API (cfg sdk_handlers unset: 1.0.0-beta.4) handles no method:
    // rpc.handlers is false there, as in the Go driver, so a scenario about the handlers is
    // unsupported with the reason, not a failure of an SDK that was never asked.
    capabilities["rpc.handlers"] = json!(handlers::MEASURED && cfg!(sdk_handlers));
    // hooks.invoke through SessionConfig::with_hooks, each input read field by field and its
    // declared members answered as hookInputs (src/handlers.rs, build_hooks.rs).
    capabilities["handler.hooks"] = json!(handlers::HOOKS && handlers::MEASURED);
    capabilities["handler.hooks.inputs"] = json!(handlers::HOOKS && handlers::MEASURED);
    if !handlers::HOOKS {
        notes["handler.hooks"] = json!(format!("{SDK_NAME} {SDK_VERSION}: {}", handlers::HOOKS_GAP));
        notes["handler.hooks.inputs"] = json!(format!("{SDK_NAME} {SDK_VERSION}: {}", handlers::HOOKS_GAP));
    }
    notes["handler.cancel.tool"] = json!(if cfg!(sdk_tool_call_async) {
        "ToolHandler::call is an async fn: the SDK drops its future when the runtime resolves the call (external_tool.completed) or the session ends".to_string()
    } else {
        format!("{SDK_NAME} {SDK_VERSION}: ToolHandler has no async fn call, no future to drop: a tool handler cannot learn that the runtime resolved its call")
    });
    notes["handler.cancel.permission"] = json!(if cfg!(sdk_handler_traits) {
        format!("{PERMISSION_WAY}: PermissionHandler::handle is an async fn the SDK awaits")
    } else {
        format!("{SDK_NAME} {SDK_VERSION}: no PermissionHandler trait (a SessionHandler's permission callback): the driver holds no permission handler")
    });
    notes["handler.cancel.elicitation"] = json!(if cfg!(all(sdk_handler_traits, sdk_create_elicitation_handler)) {
        format!("{ELICITATION_WAY}: ElicitationHandler::handle is an async fn the SDK awaits")
    } else {
        format!("{SDK_NAME} {SDK_VERSION}: no ElicitationHandler trait set through SessionConfig.elicitation_handler")
    });
    notes["handler.cancel.command"] = json!("CommandHandler::on_command is an async fn, but the driver registers no command handler to hold");
    if !cfg!(sdk_cb_command_definition) {
        notes["surface.callbacks"] = json!(format!(
            "{SDK_NAME} {SDK_VERSION} has no CommandDefinition::new(name, handler) to build a command with a callback of the driver's"
        ));
    }
    notes["rpc.generated"] = json!(generated_note);
    // convert (PROTOCOL.md, Converters): every serde type of the generated modules, built by
    // name, serde_json::to_value / from_value (src/convert.rs).
    let (convert_on, convert_note) = convert::capability();
    capabilities["convert.roundtrip"] = json!(convert_on);
    notes["convert.roundtrip"] = json!(convert_note);
    // The config fields whose type has no by-name builder (none the crate's source declares)
    // and that serde sets, each by its owner.
    let serde_fields = [
        surface::set_create_field_by_serde(),
        surface::set_resume_field_by_serde(),
        surface::set_client_field_by_serde(),
    ]
    .concat();
    notes["driver.builtBy"] = json!(format!(
        "{} SDK types built by name; {} through the SDK's deserializer: {}; {} config fields set through the SDK's deserializer (their type has no by-name builder){}",
        byname::BY_NAME_TYPES,
        byname::SERDE_TYPES.len(),
        byname::SERDE_TYPES.join("; "),
        serde_fields.len(),
        if serde_fields.is_empty() { String::new() } else { format!(": {}", serde_fields.join(", ")) }
    ));
    notes["rpc.requestHandler"] = json!(if cfg!(sdk_request_handler) {
        format!(
            "{SDK_NAME} {SDK_VERSION}: ClientOptions::with_request_handler with a CopilotRequestHandler \
             whose send_request reports the CopilotHttpRequest and CopilotRequestContext it is handed \
             (src/requests.rs) and returns CopilotHttpResponse::new(status, status_text, headers, body)"
        )
    } else {
        format!("{SDK_NAME} {SDK_VERSION} has no {}", requests::API)
    });
    let missing = missing_symbols(&capabilities);
    Ok(json!({
        "protocolVersion": PROTOCOL_VERSION,
        "sdk": "rust",
        "version": SDK_VERSION,
        "source": SDK_SOURCE,
        "capabilities": capabilities,
        "notes": notes,
        "missing": missing,
    }))
}

/// The crate item whose absence makes each capability false, `Type::item` (a fn or variant) or
/// `Type.field` (PROTOCOL.md "Capability audit"); the harness checks each is absent from the
/// crate's source.
fn missing_symbols(capabilities: &Value) -> Value {
    let mut symbols: Vec<(String, String)> = [
        ("tool.isTerminal", "Tool::with_is_terminal"),
        ("tool.metadata", "Tool::with_metadata"),
        ("tool.defer", "Tool::with_defer"),
        ("session.setTools", "Session::set_tools"),
        ("session.clearContext", "SessionRpcHistory::clear_context"),
        ("session.rpc.tools.set", "SessionRpcTools::set"),
        ("session.gitHubToken", "SessionConfig.github_token"),
        ("connect.option.clientInfo", "ClientOptions::with_client_info"),
        ("connect.option.gitHubTelemetry", "ClientOptions::with_on_github_telemetry"),
        ("rpc.requestHandler", requests::API),
        ("handler.cancel.tool", "ToolHandler::call"),
        ("handler.cancel.permission", "PermissionHandler::handle"),
        ("handler.cancel.elicitation", "ElicitationHandler::handle"),
        ("handler.cancel.command", "driver: the scenario's session registers no command handler to hold"),
        // The variant a typed-return path would most likely take; the audit turns red when the
        // crate gains it (a differently named path still needs a reader of the crate).
        ("tool.result.value", "ToolResult::Json"),
        ("tool.result.binary", "ToolResultExpanded.binary_results_for_llm"),
        ("tool.result.sessionLog", "ToolResultExpanded.session_log"),
        ("tool.result.telemetry", "ToolResultExpanded.tool_telemetry"),
        ("tool.result.binary.metadata", "ToolBinaryResult.metadata"),
        // rpc/rpcBatch need the crate's generated layer (build_rpc.rs reads it); handlers are
        // not the crate's absence: the driver does not accept handlers/handlerResults yet.
        ("rpc.generated", "Client::rpc"),
        ("rpc.handlers", "driver: this crate version lacks the handler API the driver registers runtime->SDK handlers through (cfg sdk_handlers, probed in build.rs), so the driver registers none"),
        // Not the crate's absence of a hook API: what the driver reads of it (HOOKS_GAP).
        ("handler.hooks", handlers::HOOKS_GAP),
        ("handler.hooks.inputs", handlers::HOOKS_GAP),
        // The one definition whose type requires a callback: the driver builds it with its
        // constructor, which takes the handler (src/callbacks.rs).
        ("surface.callbacks", "CommandDefinition::new"),
        // convert.roundtrip is a shape (internal/audit Shapes): false only on a crate whose source
        // has no generated serde types, which no one symbol names.
    ]
    .into_iter()
    .map(|(c, s)| (c.to_string(), s.to_string()))
    .collect();
    for &(name, field, resume_only) in SESSION_OPTIONS {
        let on = if !declared_field(true, field) || resume_only {
            "ResumeSessionConfig"
        } else {
            "SessionConfig"
        };
        symbols.push((format!("session.option.{name}"), format!("{on}.{field}")));
    }
    let mut out = Map::new();
    for (capability, symbol) in symbols {
        if capabilities[&capability] != json!(true) {
            out.insert(capability, json!(symbol));
        }
    }
    Value::Object(out)
}

fn parse_address(address: &str) -> Result<(String, u16), Failure> {
    let bare = address
        .split_once("://")
        .map(|(_, rest)| rest)
        .unwrap_or(address)
        .trim_end_matches('/');
    let (host, port) = bare
        .rsplit_once(':')
        .ok_or_else(|| driver_error(format!("address {address:?} is not host:port")))?;
    let port = port
        .parse::<u16>()
        .map_err(|_| driver_error(format!("address {address:?} has no valid port")))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((host.to_string(), port))
}

/// Connect options (PROTOCOL.md "Connect options"), applied to the client options.
fn apply_connect_options(
    mut options: ClientOptions,
    connect: &Map<String, Value>,
) -> Result<ClientOptions, Failure> {
    for (name, value) in connect {
        options = match name.as_str() {
            "connectionToken" => options, // set on Transport::External by connect()
            #[cfg(sdk_client_info)]
            "clientInfo" => {
                let fields = value
                    .as_object()
                    .ok_or_else(|| driver_error("clientInfo must be an object"))?;
                let mut info = github_copilot_sdk::ClientInfo::new();
                for (key, v) in fields {
                    let v = v.as_str().ok_or_else(|| {
                        driver_error(format!("clientInfo.{key} must be a string"))
                    })?;
                    info = match key.as_str() {
                        "applicationName" => info.with_application_name(v),
                        "applicationVersion" => info.with_application_version(v),
                        "integrationName" => info.with_integration_name(v),
                        "integrationVersion" => info.with_integration_version(v),
                        other => {
                            return Err(Failure::Unsupported(format!(
                                "{SDK_NAME} {SDK_VERSION}: ClientInfo has no {other}"
                            )))
                        }
                    };
                }
                options.with_client_info(info)
            }
            #[cfg(sdk_github_telemetry)]
            "gitHubTelemetry" => {
                if value != &Value::Bool(true) {
                    return Err(driver_error("connect option gitHubTelemetry takes true"));
                }
                options.with_on_github_telemetry(|_notification| {})
            }
            #[cfg(not(sdk_client_info))]
            "clientInfo" => {
                return Err(missing(
                    "ClientOptions::with_client_info (connect option clientInfo)",
                ))
            }
            #[cfg(not(sdk_github_telemetry))]
            "gitHubTelemetry" => {
                return Err(missing(
                    "ClientOptions::with_on_github_telemetry (connect option gitHubTelemetry)",
                ))
            }
            other => {
                return Err(Failure::Unsupported(format!(
                    "the Rust driver does not know the connect option {other:?}"
                )))
            }
        };
    }
    Ok(options)
}

async fn connect(state: &Arc<State>, args: &Value) -> Outcome {
    let handle = str_arg(args, "client")?.to_string();
    let connect_options = match args.get("options") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(_) => return Err(driver_error("connect options must be an object")),
    };
    let token = match connect_options.get("connectionToken") {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(_) => return Err(driver_error("connectionToken must be a string")),
    };
    let options = if let Some(address) = args.get("address").and_then(Value::as_str) {
        let (host, port) = parse_address(address)?;
        // Client::start resolves `program` before it looks at the transport, even for
        // Transport::External, which never spawns anything. Without the bundled-cli feature and
        // without COPILOT_CLI_PATH that resolution fails with BinaryNotFound (measured with
        // 1.0.28), so name an explicit program that is never started.
        let options = ClientOptions::new().with_program(CliProgram::Path(UNUSED_PROGRAM.into()));
        #[cfg(not(sdk_client_tcp_connection_token))]
        let options = options.with_transport(Transport::External {
            host,
            port,
            connection_token: token,
        });
        #[cfg(sdk_client_tcp_connection_token)]
        let options = {
            let mut options = options.with_transport(Transport::External { host, port });
            options.tcp_connection_token = token;
            options
        };
        options
    } else if let Some(cli_path) = args.get("cliPath").and_then(Value::as_str) {
        if token.is_some() {
            return Err(Failure::Unsupported(format!(
                "{SDK_NAME} {SDK_VERSION}: Transport::Stdio has no connection_token (connect option \
                 connectionToken)"
            )));
        }
        let mut env: Vec<(String, String)> = Vec::new();
        if let Some(extra) = args.get("env") {
            let extra = extra
                .as_object()
                .ok_or_else(|| driver_error("env must be an object"))?;
            for (key, value) in extra {
                let value = value
                    .as_str()
                    .ok_or_else(|| driver_error(format!("env.{key} must be a string")))?;
                env.push((key.clone(), value.to_string()));
            }
        }
        ClientOptions::new()
            .with_program(CliProgram::Path(cli_path.into()))
            .with_transport(Transport::Stdio)
            .with_env(env)
            .with_env_remove(["COPILOT_SDK_DEFAULT_CONNECTION"])
    } else {
        return Err(driver_error("connect needs \"address\" or \"cliPath\""));
    };
    let mut options = apply_connect_options(options, &connect_options)?;
    surface::apply_client_fields(&mut options, args)?;
    let (options, account) = handlers::for_client(
        options,
        args.get("handlers").and_then(Value::as_object),
        &handle,
    );
    let (options, served) = match args.get("requestHandler") {
        None | Some(Value::Null) => (options, Vec::new()),
        #[cfg(sdk_request_handler)]
        Some(Value::Object(spec)) => {
            requests::for_client(options, spec, &handle).map_err(driver_error)?
        }
        #[cfg(not(sdk_request_handler))]
        Some(Value::Object(_)) => {
            return Err(missing(&format!("{} (connect's requestHandler)", requests::API)))
        }
        Some(_) => return Err(driver_error("requestHandler must be an object")),
    };
    let client = Client::start(options).await.map_err(sdk_failure)?;
    state.clients.lock().unwrap().insert(handle, client);
    let mut answer = account.unwrap_or_else(|| json!({}));
    if !served.is_empty() {
        // The request handler's methods join the handlers' account.
        match answer.get_mut("handled").and_then(Value::as_array_mut) {
            Some(handled) => handled.extend(served.into_iter().map(Value::String)),
            None => answer["handled"] = json!(served),
        }
    }
    Ok(answer)
}

/// A create/resume answer with the handlers' account (handled / unhandled) added.
fn with_account(mut answer: Value, account: Option<Value>) -> Value {
    if let (Some(Value::Object(a)), Some(o)) = (account, answer.as_object_mut()) {
        o.extend(a);
    }
    answer
}

/// A create/resume answer with `kept`: the `surfaceHandlers` names the driver registers anyway,
/// left with its own callback (PROTOCOL.md "Surface").
fn with_kept(mut answer: Value, kept: Vec<String>) -> Value {
    if !kept.is_empty() {
        answer["kept"] = json!(kept);
    }
    answer
}

fn register_session(state: &Arc<State>, client: &str, handle: &str, session: Session) -> Value {
    let session_id = session.id().to_string();
    state.sessions.lock().unwrap().insert(
        handle.to_string(),
        SessionEntry {
            client: client.to_string(),
            session: Arc::new(session),
        },
    );
    json!({ "sessionId": session_id })
}

async fn create_session(state: &Arc<State>, args: &Value) -> Outcome {
    let client_handle = str_arg(args, "client")?;
    let handle = str_arg(args, "session")?;
    let client = state.client(client_handle)?;
    let tools = build_tools(state, handle, tools_arg(args)?)?;
    #[cfg(sdk_handler_traits)]
    let config = SessionConfig::default().with_permission_handler(permission_handler(handle));
    #[cfg(not(sdk_handler_traits))]
    let config =
        SessionConfig::default().with_handler(compat::legacy::session_handler(handle, &tools));
    let mut config = config.with_tools(tools);
    apply_create_options(&mut config, &options_arg(args)?)?;
    #[cfg(all(sdk_handler_traits, sdk_create_elicitation_handler))]
    if config.elicitation_handler.is_some() {
        config.elicitation_handler = Some(Arc::new(HeldElicitation { session: handle.to_string() }));
    }
    if let Some(token) = args.get("gitHubToken") {
        let token = token
            .as_str()
            .ok_or_else(|| driver_error("gitHubToken must be a string"))?;
        #[cfg(sdk_session_github_token)]
        {
            config.github_token = Some(token.to_string());
        }
        #[cfg(not(sdk_session_github_token))]
        return Err(missing(
            "SessionConfig::github_token (per-session GitHub token)",
        ));
    }
    surface::apply_create_fields(&mut config, args)?;
    let (mut config, account) = handlers::for_create(
        config,
        args.get("handlers").and_then(Value::as_object),
        handle,
    );
    let kept = surface::apply_create_handlers(&mut config, handle, args)?;
    // Subscribe before the session starts so no early event is lost.
    #[cfg(sdk_prepare_session)]
    let session = {
        let prepared = client.prepare_session(config).map_err(sdk_failure)?;
        forward_events(handle.to_string(), prepared.subscribe());
        bounded(args, prepared.start()).await?
    };
    #[cfg(not(sdk_prepare_session))]
    let session = {
        let session = bounded(args, client.create_session(config)).await?;
        forward_events(handle.to_string(), session.subscribe());
        session
    };
    Ok(with_kept(
        with_account(register_session(state, client_handle, handle, session), account),
        kept,
    ))
}

async fn resume_session(state: &Arc<State>, args: &Value) -> Outcome {
    let client_handle = str_arg(args, "client")?;
    let handle = str_arg(args, "session")?;
    let session_id = str_arg(args, "sessionId")?;
    let client = state.client(client_handle)?;
    let tools = build_tools(state, handle, tools_arg(args)?)?;
    let config = ResumeSessionConfig::new(SessionId::new(session_id));
    #[cfg(sdk_handler_traits)]
    let config = config.with_permission_handler(permission_handler(handle));
    #[cfg(not(sdk_handler_traits))]
    let config = config.with_handler(compat::legacy::session_handler(handle, &tools));
    let mut config = config.with_tools(tools);
    apply_resume_options(&mut config, &options_arg(args)?)?;
    #[cfg(all(sdk_handler_traits, sdk_resume_elicitation_handler))]
    if config.elicitation_handler.is_some() {
        config.elicitation_handler = Some(Arc::new(HeldElicitation { session: handle.to_string() }));
    }
    surface::apply_resume_fields(&mut config, args)?;
    let (mut config, account) = handlers::for_resume(
        config,
        args.get("handlers").and_then(Value::as_object),
        handle,
    );
    let kept = surface::apply_resume_handlers(&mut config, handle, args)?;
    #[cfg(sdk_prepare_session)]
    let session = {
        let prepared = client.prepare_resume_session(config).map_err(sdk_failure)?;
        forward_events(handle.to_string(), prepared.subscribe());
        bounded(args, prepared.start()).await?
    };
    #[cfg(not(sdk_prepare_session))]
    let session = {
        let session = bounded(args, client.resume_session(config)).await?;
        forward_events(handle.to_string(), session.subscribe());
        session
    };
    Ok(with_kept(
        with_account(register_session(state, client_handle, handle, session), account),
        kept,
    ))
}

#[cfg(sdk_set_tools)]
async fn set_tools(state: &Arc<State>, args: &Value) -> Outcome {
    let handle = str_arg(args, "session")?;
    let session = state.session(handle)?;
    let tools = build_tools(state, handle, tools_arg(args)?)?;
    session.set_tools(tools).await.map_err(sdk_failure)?;
    Ok(json!({}))
}

#[cfg(not(sdk_set_tools))]
async fn set_tools(_state: &Arc<State>, _args: &Value) -> Outcome {
    Err(missing(NO_SET_TOOLS))
}

/// Starts one `set_tools` per tool set, in list order, without awaiting in between, then awaits
/// them all. `join_all` polls its futures in order on its first poll, so each replacement is
/// started (and queued on the SDK's replacement lock) in the order given.
#[cfg(sdk_set_tools)]
async fn set_tools_concurrently(state: &Arc<State>, args: &Value) -> Outcome {
    let handle = str_arg(args, "session")?;
    let session = state.session(handle)?;
    let sets = args
        .get("toolSets")
        .and_then(Value::as_array)
        .ok_or_else(|| driver_error("missing or non-array argument \"toolSets\""))?;
    let mut replacements = Vec::with_capacity(sets.len());
    for set in sets {
        let specs = set
            .as_array()
            .ok_or_else(|| driver_error("each tool set must be an array"))?;
        replacements.push(session.set_tools(build_tools(state, handle, specs)?));
    }
    let outcomes: Vec<Value> = futures_util::future::join_all(replacements)
        .await
        .into_iter()
        .map(|result| match result {
            Ok(()) => json!({ "outcome": "ok" }),
            Err(error) => json!({
                "outcome": "error",
                "error": { "type": sdk_error_type(&error), "message": error.to_string() },
            }),
        })
        .collect();
    Ok(json!({ "outcomes": outcomes }))
}

#[cfg(not(sdk_set_tools))]
async fn set_tools_concurrently(_state: &Arc<State>, _args: &Value) -> Outcome {
    Err(missing(NO_SET_TOOLS))
}

/// The generated raw `session.tools.set`, called with wire-format definitions and no handlers.
#[cfg(sdk_rpc_tools_set)]
async fn set_tools_rpc(state: &Arc<State>, args: &Value) -> Outcome {
    let session = state.session(str_arg(args, "session")?)?;
    // Built by field name (src/byname.rs) as the application writes it; a key the type has no
    // field for is left out, and the wire shows it.
    let mut b = byname::Build::default();
    let given = json!({ "tools": tools_arg(args)? });
    let request = byname::by_name_of!(ToolsSetRequest, &given, &mut b)
        .map_err(|e| Failure::Unsupported(e.to_string()))?
        .ok_or_else(|| driver_error(format!("tools are not wire tool definitions: cannot build {:?}", b.lost)))?;
    session
        .rpc()
        .tools()
        .set(request)
        .await
        .map_err(sdk_failure)?;
    Ok(json!({}))
}

#[cfg(not(sdk_rpc_tools_set))]
async fn set_tools_rpc(_state: &Arc<State>, _args: &Value) -> Outcome {
    Err(missing(
        "the generated session.rpc().tools().set (session.tools.set)",
    ))
}

#[cfg(sdk_clear_context)]
async fn clear_context(state: &Arc<State>, args: &Value) -> Outcome {
    let session = state.session(str_arg(args, "session")?)?;
    let request = HistoryClearContextRequest {
        prompt: str_arg(args, "prompt")?.to_string(),
    };
    let cleared = session
        .rpc()
        .history()
        .clear_context(request)
        .await
        .map_err(sdk_failure)?;
    Ok(json!({ "messagesCleared": cleared.messages_cleared }))
}

#[cfg(not(sdk_clear_context))]
async fn clear_context(_state: &Arc<State>, _args: &Value) -> Outcome {
    Err(missing(NO_CLEAR_CONTEXT))
}

async fn send(state: &Arc<State>, args: &Value) -> Outcome {
    let session = state.session(str_arg(args, "session")?)?;
    let prompt = str_arg(args, "prompt")?;
    let wait = args.get("wait").and_then(Value::as_bool).unwrap_or(false);
    let outcome = if wait {
        let mut options = MessageOptions::new(prompt);
        if let Some(ms) = args.get("timeoutMs").and_then(Value::as_u64) {
            options = options.with_wait_timeout(Duration::from_millis(ms));
        }
        match bounded(args, session.send_and_wait(options)).await {
            Ok(reply) => {
                let mut result = Map::new();
                if let Some(event) = reply {
                    for key in ["messageId", "content"] {
                        if let Some(value) = event.data.get(key) {
                            result.insert(key.to_string(), value.clone());
                        }
                    }
                }
                Ok(Value::Object(result))
            }
            Err(failure) => Err(failure),
        }
    } else {
        bounded(args, session.send(prompt))
            .await
            .map(|message_id| json!({ "messageId": message_id }))
    };
    settle_events().await;
    outcome
}

async fn disconnect(state: &Arc<State>, args: &Value) -> Outcome {
    let handle = str_arg(args, "session")?;
    let session = state.session(handle)?;
    let result = session.disconnect().await;
    state.sessions.lock().unwrap().remove(handle);
    settle_events().await;
    result.map(|()| json!({})).map_err(sdk_failure)
}

async fn stop_client(state: &Arc<State>, args: &Value) -> Outcome {
    let handle = str_arg(args, "client")?;
    let client = state.client(handle)?;
    let result = client.stop().await;
    state.clients.lock().unwrap().remove(handle);
    state
        .sessions
        .lock()
        .unwrap()
        .retain(|_, entry| entry.client != handle);
    settle_events().await;
    result.map(|()| json!({})).map_err(|errors| Failure::Error {
        kind: "StopErrors".into(),
        message: errors.to_string(),
    })
}

async fn run_command(state: &Arc<State>, cmd: &str, args: &Value) -> Outcome {
    match cmd {
        "hello" => hello(),
        "connect" => connect(state, args).await,
        "createSession" => create_session(state, args).await,
        "resumeSession" => resume_session(state, args).await,
        "setTools" => set_tools(state, args).await,
        "setToolsConcurrently" => set_tools_concurrently(state, args).await,
        "setToolsRpc" => set_tools_rpc(state, args).await,
        "clearContext" => clear_context(state, args).await,
        "send" => send(state, args).await,
        "disconnect" => disconnect(state, args).await,
        "stopClient" => stop_client(state, args).await,
        "rpc" => rpc::rpc(state, args).await,
        "rpcBatch" => rpc::rpc_batch(state, args).await,
        "convert" => convert::convert(args),
        "surface" => surface::surface(),
        "hold" => Ok(holds::hold(args)),
        "release" => Ok(holds::release(args)),
        "shutdown" => Ok(json!({})),
        // A newer protocol command this driver does not know: the SDK cannot be asked to do it.
        other => Err(Failure::Unsupported(format!(
            "the Rust driver has no command {other:?}"
        ))),
    }
}

#[tokio::main]
async fn main() {
    // driver.concurrent: each command is a task of its own, so that scenarios sharing this
    // process overlap their waits. Local tasks (spawn_local on this LocalSet), so that a command's
    // future need not be Send; they run while the loop below waits for the next line.
    tokio::task::LocalSet::new().run_until(serve()).await;
    std::process::exit(0);
}

async fn serve() {
    let state = Arc::new(State::default());
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break, // EOF: the harness is done with us
            Err(error) => {
                eprintln!("rust driver: reading stdin failed: {error}");
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = match serde_json::from_str(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("rust driver: ignoring a line that is not JSON ({error}): {line}");
                continue;
            }
        };
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let cmd = message
            .get("cmd")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let args = message.get("args").cloned().unwrap_or_else(|| json!({}));
        if cmd == "shutdown" {
            respond(&id, run_command(&state, &cmd, &args).await);
            std::process::exit(0);
        }
        let state = Arc::clone(&state);
        tokio::task::spawn_local(async move {
            let outcome = run_command(&state, &cmd, &args).await;
            respond(&id, outcome);
        });
    }
}
