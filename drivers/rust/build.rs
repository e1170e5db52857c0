//! Records which github-copilot-sdk this binary was built against, so `hello` reports the version
//! cargo actually resolved (from Cargo.lock) instead of a hard-coded string.
//!
//! Sets, for src/main.rs:
//! - SDK_VERSION: the `version` of the `github-copilot-sdk` package in Cargo.lock
//! - SDK_SOURCE:  `crates.io:github-copilot-sdk@<version>` for a registry package, or
//!   `path:<dir>` when Cargo.toml points the dependency at a local folder.
//!
//! It also looks at the resolved SDK's source (the unpacked crate under $CARGO_HOME/registry/src,
//! or the local folder) and sets one `sdk_*` cfg per public API the driver uses that older
//! releases lack, so the same driver builds against them and reports `unsupported` honestly:
//! - sdk_tool_is_terminal: `Tool::with_is_terminal`
//! - sdk_tool_metadata:    `Tool::with_metadata`
//! - sdk_tool_defer:       `Tool::with_defer` and `DeferMode`
//! - sdk_client_info:      `ClientOptions::with_client_info(ClientInfo)` (connect option clientInfo)
//! - sdk_github_telemetry: `ClientOptions::with_on_github_telemetry` (connect option gitHubTelemetry)
//! - sdk_set_tools:        `Session::set_tools`
//! - sdk_clear_context:    `session.rpc().history().clear_context(HistoryClearContextRequest)`
//! - sdk_prepare_session:  `Client::prepare_session` / `prepare_resume_session` (subscribe first)
//! - sdk_typed_events:     `session_events::SessionEventData` (typed event data, adjacently tagged)
//! - sdk_error_kind:       `Error::kind() -> ErrorKind`, `RecvError::kind()` (src/compat.rs)
//! - sdk_rpc_data:         `Error::rpc_data()`, the JSON-RPC error's data (src/compat.rs)
//! - sdk_handler_traits:   `handler::PermissionHandler` / `UserInputHandler` and `Tool::with_handler`
//!                         (older releases: one `SessionHandler` per session, src/compat.rs)
//! - sdk_request_handler:  `ClientOptions::with_request_handler` and the `CopilotRequestHandler`
//!                         trait with its HTTP and WebSocket methods (connect's requestHandler)
//! - sdk_facades:          `pub mod rpc;` / `pub mod session_events;` in the crate's lib.rs (the
//!                         generated layer at the crate root; older releases: `generated::…`)
//!
//! and one cfg per field of a public config struct the driver sets (session options, tool
//! results), read from the struct's declaration: `sdk_create_<field>` (SessionConfig),
//! `sdk_resume_<field>` (ResumeSessionConfig), `sdk_result_<field>` (ToolResultExpanded),
//! `sdk_binary_<field>` (ToolBinaryResult), `sdk_session_<field>` (SessionConfig, beyond the
//! session options), `sdk_client_<field>` (ClientOptions).
//!
//! It writes `$OUT_DIR/request_gen.rs` (src/requests.rs): the request context's fields under
//! the wire names of the start request the crate builds it from (`request_gen`).
//!
//! Last, it writes `$OUT_DIR/surface_gen.rs` (PROTOCOL.md "Surface"): every field of the SDK's
//! configuration structs as declared in the crate source (`SURFACE`), and a setter per
//! SessionConfig / ResumeSessionConfig field of a plain JSON type (`set_create_field`,
//! `set_resume_field`), so the driver sets any declared field by name with no hand list.

use std::path::{Path, PathBuf};

mod build_byname;
mod build_hooks;
mod build_rpc;
mod build_syntax;

use build_byname::REQUEST_OWNERS;

/// cfg name and a string whose presence in the SDK's src/ shows the API exists.
const PROBES: &[(&str, &[&str])] = &[
    // Older releases have no order-preserving maps (and no re-export to name them by).
    ("sdk_indexmap", &["pub use indexmap::IndexMap;"]),
    ("sdk_tool_is_terminal", &["pub fn with_is_terminal("]),
    (
        "sdk_tool_metadata",
        &["pub fn with_metadata(mut self, metadata: IndexMap<String, Value>)"],
    ),
    (
        "sdk_tool_defer",
        &["pub fn with_defer(", "pub enum DeferMode"],
    ),
    (
        "sdk_client_info",
        &[
            "pub fn with_client_info(",
            "pub fn with_integration_version(",
        ],
    ),
    (
        "sdk_github_telemetry",
        &["pub fn with_on_github_telemetry<"],
    ),
    ("sdk_set_tools", &["pub async fn set_tools<"]),
    (
        "sdk_clear_context",
        &[
            "pub struct HistoryClearContextRequest",
            "pub async fn clear_context(",
        ],
    ),
    (
        "sdk_rpc_tools_set",
        &["pub struct ToolsSetRequest", "SESSION_TOOLS_SET"],
    ),
    (
        "sdk_prepare_session",
        &["pub fn prepare_session(", "pub fn prepare_resume_session("],
    ),
    ("sdk_typed_events", &["pub enum SessionEventData"]),
    (
        "sdk_error_kind",
        &["pub enum ErrorKind", "pub enum RecvErrorKind"],
    ),
    // Error::rpc_data(): the JSON-RPC error's data (1.0.27 on).
    ("sdk_rpc_data", &["pub fn rpc_data(&self) -> Option<&Value>"]),
    (
        "sdk_handler_traits",
        &["pub trait PermissionHandler", "pub trait UserInputHandler"],
    ),
    // 1.0.29 previews hand UserInputHandler and ExitPlanModeHandler the request's id too.
    (
        "sdk_user_input_request_id",
        &["request_id: Option<RequestId>,\n        question: String,"],
    ),
    (
        "sdk_exit_plan_request_id",
        &["request_id: Option<RequestId>,\n        data: ExitPlanModeData,"],
    ),
    // The handler traits src/callbacks.rs implements with a callback that does nothing (each with
    // the signature written there; the traits every release has need no probe).
    (
        "sdk_cb_permission",
        &["pub trait PermissionHandler", "    NoResult,"],
    ),
    (
        "sdk_cb_mcp_auth",
        &["pub trait McpAuthHandler", "pub enum McpAuthResult"],
    ),
    (
        "sdk_cb_exit_plan_mode",
        &[
            "pub trait ExitPlanModeHandler",
            "impl Default for ExitPlanModeResult",
        ],
    ),
    (
        "sdk_cb_auto_mode_switch",
        &["pub trait AutoModeSwitchHandler"],
    ),
    (
        "sdk_cb_canvas",
        // 1.0.0-beta.7's on_open takes a CanvasOpenContext: not the signature written there.
        &[
            "pub trait CanvasHandler",
            "pub type CanvasResult<T>",
            "ctx: crate::generated::api_types::CanvasProviderOpenRequest,",
        ],
    ),
    (
        "sdk_cb_skill_provider",
        &[
            "pub trait SkillProvider",
            "async fn read_skill(&self, name: &str)",
        ],
    ),
    (
        "sdk_cb_github_token_provider",
        &[
            "pub trait GitHubTokenProvider",
            "pub enum GitHubTokenProviderResult",
        ],
    ),
    ("sdk_cb_command_definition", &[COMMAND_NEW]),
    // connect's requestHandler (src/requests.rs): the option, the trait with both methods as
    // written there, and the response constructor.
    (
        "sdk_request_handler",
        &[
            "pub fn with_request_handler<H>(",
            "pub trait CopilotRequestHandler",
            "    async fn send_request(\n        &self,\n        request: CopilotHttpRequest,",
            "    async fn open_websocket(\n        &self,\n        ctx: &CopilotRequestContext,\n        response: CopilotWebSocketResponse,",
            "pub struct CopilotRequestContext {",
            "impl CopilotHttpResponse {\n    /// Build a response with the given parts.\n    pub fn new(",
        ],
    ),
    // The runtime-to-SDK handler API src/handlers.rs is written against.
    (
        "sdk_handlers",
        &[
            "pub trait SessionFsProvider",
            "pub trait SessionFsSqliteProvider",
            "pub trait CanvasHandler",
            "pub trait GitHubTokenProvider",
            "pub trait SkillProvider",
            "pub trait ExtensionLaunchProvider",
            "pub trait BearerTokenProvider",
            "pub fn with_on_github_telemetry<",
            "pub fn with_skill_provider(",
            "pub fn with_github_token_provider(",
            "pub fn with_extension_launch_provider<",
            "pub fn with_bearer_token_provider(",
        ],
    ),
];

/// `CommandDefinition::new`, which takes the command's handler: a definition the driver builds from
/// an object starts from it with a callback that does nothing (src/callbacks.rs).
const COMMAND_NEW: &str = "pub fn new(name: impl Into<String>, handler: Arc<dyn CommandHandler>)";

/// Definition structs without `Default` that the driver still builds from an object: (struct, the
/// crate source that shows the constructor, the driver's expression for a blank one).
const BLANK_DEFS: &[(&str, &str, &str)] = &[(
    "CommandDefinition",
    COMMAND_NEW,
    "crate::callbacks::blank_command_definition()",
)];

/// Fields the driver sets, per (cfg prefix, struct). Unlisted fields are never probed.
const FIELDS: &[(&str, &str, &[&str])] = &[
    ("sdk_create_", "SessionConfig", SESSION_FIELDS),
    ("sdk_resume_", "ResumeSessionConfig", SESSION_FIELDS),
    (
        "sdk_result_",
        "ToolResultExpanded",
        &[
            "binary_results_for_llm",
            "session_log",
            "tool_telemetry",
            "error",
        ],
    ),
    ("sdk_binary_", "ToolBinaryResult", &["metadata"]),
    ("sdk_session_", "SessionConfig", &["github_token"]),
    // Before 1.0.0-beta.7 the connection token is ClientOptions.tcp_connection_token, not a field
    // of Transport::External.
    ("sdk_client_", "ClientOptions", &["tcp_connection_token"]),
];

/// SessionConfig / ResumeSessionConfig fields behind the protocol's session options.
const SESSION_FIELDS: &[&str] = &[
    "model",
    "reasoning_effort",
    "system_message",
    "available_tools",
    "excluded_tools",
    "streaming",
    "include_sub_agent_streaming_events",
    "working_directory",
    "custom_agents",
    "mcp_servers",
    "enable_config_discovery",
    "skill_directories",
    "disabled_skills",
    "infinite_sessions",
    "provider",
    "user_input_handler",
    "elicitation_handler",
    "hooks_handler",
    "continue_pending_work",
    "suppress_resume_event",
];

const PKG: &str = "github-copilot-sdk";

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let lock_path = Path::new(&dir).join("Cargo.lock");
    let toml_path = Path::new(&dir).join("Cargo.toml");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed={}", toml_path.display());

    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    let (version, source) = locked_package(&lock).unwrap_or_else(|| ("unknown".into(), None));

    let manifest = std::fs::read_to_string(&toml_path).unwrap_or_default();
    let local_path: Option<String> = manifest
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(PKG) && l[PKG.len()..].trim_start().starts_with('='))
        .and_then(|l| quoted_value(l, "path"));

    let source = match (local_path.clone(), source) {
        (Some(p), _) => format!("path:{p}"),
        (None, Some(s)) if s.contains("crates.io") => format!("crates.io:{PKG}@{version}"),
        (None, Some(s)) => format!("{s}#{PKG}@{version}"),
        (None, None) => format!("{PKG}@{version}"),
    };
    println!("cargo:rustc-env=SDK_VERSION={version}");
    println!("cargo:rustc-env=SDK_SOURCE={source}");

    for (cfg, _) in PROBES {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    for (prefix, _, fields) in FIELDS {
        for field in *fields {
            println!("cargo::rustc-check-cfg=cfg({prefix}{field})");
        }
    }
    let sdk_dir = match &local_path {
        Some(p) => Some(PathBuf::from(p)),
        None => registry_dir(&version),
    };
    // The crate's source read by the parser (build_syntax.rs): the dispatch table of the generic
    // `rpc` command (build_rpc.rs) and the by-name builders (build_byname.rs) come from it.
    let sdk = build_syntax::Sdk::read(sdk_dir.as_ref().map(|d| d.join("src")).as_deref());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build_rpc.rs");
    println!("cargo:rerun-if-changed=build_syntax.rs");
    println!("cargo:rerun-if-changed=build_hooks.rs");
    build_hooks::generate(sdk_dir.as_ref().map(|d| d.join("src")).as_deref(), &out_dir.join("hooks_gen.rs"));
    let requests = build_rpc::generate(sdk.rpc.as_ref(), &build_byname::deserializable(&sdk), &out_dir.join("rpc_dispatch.rs"));
    println!("cargo:rerun-if-changed=build_byname.rs");
    println!("cargo:rerun-if-changed=src");
    // The driver's own source names the other SDK types it builds (handler results): those
    // get builders too.
    let mut driver_src = String::new();
    read_sources(Path::new("src"), &mut driver_src);
    build_byname::generate(
        &sdk,
        &requests,
        &driver_src,
        &REQUEST_OWNERS.iter().map(|r| r.1).collect::<Vec<_>>(),
        &out_dir.join("byname.rs"),
    );
    let mut text = String::new();
    if let Some(dir) = &sdk_dir {
        read_sources(&dir.join("src"), &mut text);
    }
    if text.is_empty() {
        println!(
            "cargo:warning=github-copilot-sdk {version}: source not found (looked at {sdk_dir:?}); \
             assuming every API the driver uses exists"
        );
    }
    for (cfg, needles) in PROBES {
        if text.is_empty() || needles.iter().all(|n| text.contains(n)) {
            println!("cargo:rustc-cfg={cfg}");
        }
    }
    println!("cargo::rustc-check-cfg=cfg(sdk_facades)");
    let lib = sdk_dir
        .as_ref()
        .and_then(|d| std::fs::read_to_string(d.join("src").join("lib.rs")).ok());
    if lib.is_none_or(|l| l.contains("pub mod rpc;") && l.contains("pub mod session_events;")) {
        println!("cargo:rustc-cfg=sdk_facades");
    }
    let mut files = Vec::new();
    if let Some(dir) = &sdk_dir {
        read_files(&dir.join("src"), &dir.join("src"), &mut files);
    }
    std::fs::write(out_dir.join("request_gen.rs"), request_gen(&files))
        .expect("writing request_gen.rs");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("surface_gen.rs");
    std::fs::write(&out, surface_gen(&files)).expect("writing surface_gen.rs");
    for (prefix, name, fields) in FIELDS {
        let declared = struct_fields(&text, name);
        for field in *fields {
            if text.is_empty() || declared.iter().any(|f| f == field) {
                println!("cargo:rustc-cfg={prefix}{field}");
            }
        }
    }
}

/// The field names of `pub struct <name> {`, read from its declaration up to the closing brace
/// at the start of a line (rustfmt layout, which the published crates use).
fn struct_fields(text: &str, name: &str) -> Vec<String> {
    let head = format!("pub struct {name} {{");
    let Some(start) = text.find(&head) else {
        return Vec::new();
    };
    let body = &text[start + head.len()..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    body.lines()
        .filter_map(|line| line.trim().strip_prefix("pub "))
        .filter_map(|rest| {
            rest.split_once(':')
                .map(|(field, _)| field.trim().to_string())
        })
        .collect()
}

/// The unpacked registry crate: $CARGO_HOME/registry/src/<index>/github-copilot-sdk-<version>.
fn registry_dir(version: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let name = format!("{PKG}-{version}");
    std::fs::read_dir(home.join("registry").join("src"))
        .ok()?
        .flatten()
        .map(|index| index.path().join(&name))
        .find(|dir| dir.join("Cargo.toml").is_file())
}

fn read_sources(dir: &Path, out: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            read_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            if let Ok(body) = std::fs::read_to_string(&path) {
                out.push_str(&body);
            }
        }
    }
}

/// Finds `[[package]] name = "github-copilot-sdk"` in Cargo.lock; returns its version and source.
fn locked_package(lock: &str) -> Option<(String, Option<String>)> {
    for block in lock.split("[[package]]").skip(1) {
        let mut name = None;
        let mut version = None;
        let mut source = None;
        for line in block.lines().map(str::trim) {
            if line.starts_with('[') {
                break;
            }
            if let Some(v) = kv(line, "name") {
                name = Some(v);
            } else if let Some(v) = kv(line, "version") {
                version = Some(v);
            } else if let Some(v) = kv(line, "source") {
                source = Some(v);
            }
        }
        if name.as_deref() == Some(PKG) {
            return Some((version?, source));
        }
    }
    None
}

/// `key = "value"` on a line of its own.
fn kv(line: &str, key: &str) -> Option<String> {
    let rest = line
        .strip_prefix(key)?
        .trim_start()
        .strip_prefix('=')?
        .trim();
    Some(rest.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// `key = "value"` inside an inline table such as `{ path = "/x", ... }`.
fn quoted_value(line: &str, key: &str) -> Option<String> {
    let mut rest = line;
    while let Some(i) = rest.find(key) {
        let before_ok = i == 0
            || !rest.as_bytes()[i - 1].is_ascii_alphanumeric()
                && rest.as_bytes()[i - 1] != b'-'
                && rest.as_bytes()[i - 1] != b'_';
        let after = rest[i + key.len()..].trim_start();
        if before_ok {
            if let Some(after) = after.strip_prefix('=') {
                let after = after.trim_start().strip_prefix('"')?;
                return Some(after[..after.find('"')?].to_string());
            }
        }
        rest = &rest[i + key.len()..];
    }
    None
}

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
// surface generator asks for the same names many times: each answer is kept for the run (there is
// one `files` per run), which took the build script from about 40 s to about 1 s.
macro_rules! memo {
    ($cache:ident: $ty:ty, $key:expr, $compute:expr) => {{
        thread_local! {
            static $cache: std::cell::RefCell<std::collections::HashMap<String, $ty>> =
                Default::default();
        }
        let key: &str = $key;
        match $cache.with(|c| c.borrow().get(key).cloned()) {
            Some(hit) => hit,
            None => {
                let computed = $compute;
                $cache.with(|c| c.borrow_mut().insert(key.to_string(), computed.clone()));
                computed
            }
        }
    }};
}

/// `text.find(head)` for a declaration head (`pub struct N {`, `pub struct N(`, `pub enum N {`,
/// `pub type N = `) of the file `path`, answered from an index of the file's heads built on the
/// first call for it: most names asked for are declared nowhere, and each miss was a full search.
fn find_decl(path: &str, text: &str, name: &str, head: &str) -> Option<usize> {
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return text.find(head);
    }
    type Heads = std::collections::HashMap<String, usize>;
    thread_local! {
        static HEADS: std::cell::RefCell<std::collections::HashMap<String, Heads>> =
            Default::default();
    }
    HEADS.with(|h| {
        let mut h = h.borrow_mut();
        let heads = h.entry(path.to_string()).or_insert_with(|| {
            let mut heads = Heads::new();
            for kw in ["pub struct ", "pub enum ", "pub type "] {
                for (at, _) in text.match_indices(kw) {
                    let rest = &text[at + kw.len()..];
                    let n = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    let tail = &rest[n..];
                    for end in [" {", "(", " = "] {
                        if tail.starts_with(end) {
                            heads
                                .entry(format!("{kw}{}{end}", &rest[..n]))
                                .or_insert(at);
                        }
                    }
                }
            }
            heads
        });
        heads.get(head).copied()
    })
}

/// Every `.rs` file under `dir` as (path relative to `root`, text).
fn read_files(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            read_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            if let Ok(body) = std::fs::read_to_string(&path) {
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, body));
            }
        }
    }
}

/// The public fields of `pub struct <name> {` as (field, type), from the first file declaring it,
/// hand-written files before generated ones (the generated wire types reuse some names). A
/// field behind a `#[cfg(...)]` is left out (it may not exist in this build).
fn struct_decl(files: &[(String, String)], name: &str) -> Option<(String, Vec<(String, String)>)> {
    memo!(STRUCT_DECLS: Option<(String, Vec<(String, String)>)>, name, struct_decl_scan(files, name))
}

fn struct_decl_scan(
    files: &[(String, String)],
    name: &str,
) -> Option<(String, Vec<(String, String)>)> {
    let head = format!("pub struct {name} {{");
    let mut ordered: Vec<&(String, String)> = files
        .iter()
        .filter(|(p, _)| !p.contains("generated"))
        .collect();
    ordered.extend(files.iter().filter(|(p, _)| p.contains("generated")));
    for (path, text) in ordered {
        let Some(start) = find_decl(path, text, name, &head) else {
            continue;
        };
        let body = &text[start + head.len()..];
        let body = &body[..body.find("\n}").unwrap_or(body.len())];
        let mut fields = Vec::new();
        let mut gated = false;
        let mut pending: Option<(String, String)> = None;
        for line in body.lines().map(str::trim) {
            if let Some((field, ty)) = pending.as_mut() {
                ty.push_str(line);
                if line.ends_with(',') {
                    fields.push((field.clone(), ty.trim_end_matches(',').to_string()));
                    pending = None;
                }
                continue;
            }
            if line.starts_with("#[cfg") {
                gated = true;
                continue;
            }
            if line.starts_with("//") || line.starts_with("#[") || line.is_empty() {
                continue;
            }
            let was_gated = std::mem::take(&mut gated);
            let Some(rest) = line.strip_prefix("pub ") else {
                continue;
            };
            let Some((field, ty)) = rest.split_once(':') else {
                continue;
            };
            if was_gated {
                continue;
            }
            let (field, ty) = (field.trim().to_string(), ty.trim().to_string());
            if ty.ends_with(',') {
                fields.push((field, ty.trim_end_matches(',').to_string()));
            } else {
                pending = Some((field, ty));
            }
        }
        return Some((path.clone(), fields));
    }
    None
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
fn expand_aliases(files: &[(String, String)], ty: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if word.is_empty() {
            return;
        }
        let last = word.rsplit("::").next().unwrap_or(word).to_string();
        let head = format!("pub type {last} = ");
        let alias = memo!(ALIASES: Option<String>, &last, {
            files.iter().find_map(|(p, t)| {
                let at = find_decl(p, t, &last, &head)?;
                let rest = &t[at + head.len()..];
                Some(rest[..rest.find(';')?].to_string())
            })
        });
        match alias {
            Some(a) if !a.contains(&last) => out.push_str(&expand_aliases(files, &a)),
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
/// the file is, when lib.rs declares it `pub mod`; None for a private module.
fn public_path(files: &[(String, String)], file: &str, name: &str) -> Option<String> {
    if file == "lib.rs" {
        return Some(format!("github_copilot_sdk::{name}"));
    }
    let module = file.strip_suffix(".rs")?;
    if module.contains('/') {
        return None;
    }
    let lib = &files.iter().find(|(p, _)| p == "lib.rs")?.1;
    if lib.contains(&format!("pub mod {module};")) {
        return Some(format!("github_copilot_sdk::{module}::{name}"));
    }
    // `pub use module::{…, Name, …};` at the crate root.
    let head = format!("pub use {module}::");
    lib.match_indices(&head)
        .any(|(at, _)| {
            let rest = &lib[at + head.len()..];
            let list = &rest[..rest.find(';').unwrap_or(rest.len())];
            list.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == name)
        })
        .then(|| format!("github_copilot_sdk::{name}"))
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

fn unit_enum(files: &[(String, String)], name: &str) -> Option<UnitEnum> {
    let head = format!("pub enum {name} {{");
    let (file, _) = files
        .iter()
        .filter(|(p, _)| !p.contains("generated"))
        .find(|(p, t)| find_decl(p, t, name, &head).is_some())?;
    let d = type_decl(files, name)?;
    if !d.is_enum || d.attrs.contains("Deserialize") {
        return None;
    }
    let mut variants = Vec::new();
    for line in d.body.lines().map(str::trim) {
        if line.starts_with("#[") || line.starts_with("//") || line.is_empty() {
            continue;
        }
        let v = line.trim_end_matches(',');
        if v.is_empty() || !v.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        variants.push(v.to_string());
    }
    if variants.is_empty() {
        return None;
    }
    let imp = format!("impl {name} {{");
    let block = files.iter().find_map(|(_, t)| {
        let at = t.find(&imp)?;
        let rest = &t[at + imp.len()..];
        Some(rest[..rest.find("\n}").unwrap_or(rest.len())].to_string())
    });
    let written = |v: &str| -> Option<String> {
        let block = block.as_ref()?;
        let line = block.lines().map(str::trim).find(|l| {
            l.starts_with(&format!("Self::{v} =>")) || l.starts_with(&format!("{name}::{v} =>"))
        })?;
        let rhs = line.split_once("=>")?.1.trim().trim_end_matches(',').trim();
        if let Some(lit) = rhs.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            return Some(lit.to_string());
        }
        let (ty, variant) = rhs.rsplit_once("::")?;
        let wire = type_decl(files, ty.rsplit("::").next().unwrap_or(ty))?;
        if !wire.attrs.contains("Deserialize") {
            return None;
        }
        enum_variants(&wire)
            .into_iter()
            .find(|(w, _)| w == variant)
            .map(|(_, n)| n)
    };
    let values: Vec<Option<String>> = variants.iter().map(|v| written(v)).collect();
    let variants = if values.iter().all(Option::is_some) {
        variants.into_iter().zip(values.into_iter().flatten()).collect()
    } else {
        variants.into_iter().map(|v| (v.clone(), v)).collect()
    };
    Some(UnitEnum {
        name: name.to_string(),
        path: public_path(files, file, name),
        variants,
    })
}

/// A struct serde does not derive whose `Default` the driver starts from, setting each public
/// field given (`ClientInfo`, `TelemetryConfig`; `#[non_exhaustive]` forbids a struct literal
/// outside the crate, field assignment is allowed): a definition built as a definition owner's
/// is, keyed by its Rust field names.
fn plain_struct(files: &[(String, String)], name: &str) -> Option<Def> {
    let (file, fields) = struct_decl(files, name)?;
    let d = type_decl(files, name)?;
    if d.is_enum || d.attrs.contains("Deserialize") || fields.is_empty() {
        return None;
    }
    if fields
        .iter()
        .any(|(_, t)| rust_shape(&expand_aliases(files, t)).0 == "handler")
    {
        return None;
    }
    let text = &files.iter().find(|(p, _)| *p == file)?.1;
    let default = derives_default(text, name)
        || files
            .iter()
            .any(|(_, t)| t.contains(&format!("impl Default for {name} {{")));
    let path = public_path(files, &file, name)?;
    let ctor = if default { Vec::new() } else { constructor(files, name, &fields)? };
    Some(Def {
        name: name.to_string(),
        blank: format!("<{path}>::default()"),
        path,
        fields,
        ctor,
    })
}

/// The members `pub fn new(…) -> Self` of `impl <name>` takes, when each parameter is named after
/// a member and takes it as declared or as `impl Into<…>` of it (SessionFsConfig::new).
fn constructor(
    files: &[(String, String)],
    name: &str,
    fields: &[(String, String)],
) -> Option<Vec<(String, String)>> {
    let imp = format!("impl {name} {{");
    let block = files.iter().find_map(|(_, t)| {
        let at = t.find(&imp)?;
        let rest = &t[at + imp.len()..];
        Some(&rest[..rest.find("\n}").unwrap_or(rest.len())])
    })?;
    let at = block.find("pub fn new(")?;
    let rest = &block[at + "pub fn new(".len()..];
    let params = &rest[..rest.find(") -> Self")?];
    let mut out = Vec::new();
    for p in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (n, t) = p.split_once(':')?;
        let (n, t) = (n.trim(), t.trim());
        let (_, ty) = fields.iter().find(|(f, _)| f == n)?;
        let into = t.strip_prefix("impl Into<").and_then(|r| r.strip_suffix('>'));
        if t != ty && into != Some(ty.as_str()) {
            return None;
        }
        out.push((n.to_string(), ty.clone()));
    }
    Some(out)
}

/// Whether the `#[derive(…)]` right above `pub struct <name> {` in `text` names Default.
fn derives_default(text: &str, name: &str) -> bool {
    let Some(at) = text.find(&format!("pub struct {name} {{")) else {
        return false;
    };
    let before = &text[..at];
    let attrs: Vec<&str> = before
        .lines()
        .rev()
        .take_while(|l| {
            let l = l.trim();
            l.starts_with("#[")
                || l.starts_with("///")
                || l.is_empty()
                || l.starts_with(')')
                || l.ends_with(',')
        })
        .collect();
    attrs
        .iter()
        .any(|l| l.contains("derive(") && l.contains("Default"))
}

/// `pub enum <name> {` variants of the form `Variant(Struct),`, when every variant has that form.
fn wrapper_enums(files: &[(String, String)], defs: &[Def]) -> Vec<Wrap> {
    let mut out = Vec::new();
    for (path, text) in files.iter().filter(|(p, _)| !p.contains("generated")) {
        let mut rest = text.as_str();
        while let Some(i) = rest.find("pub enum ") {
            rest = &rest[i + "pub enum ".len()..];
            let Some(open) = rest.find('{') else { break };
            let name = rest[..open].trim().to_string();
            if name.contains('<') || name.contains(' ') {
                continue;
            }
            let body = &rest[open + 1..rest.find("\n}").unwrap_or(rest.len())];
            let mut variants = Vec::new();
            let mut all = true;
            for line in body.lines().map(str::trim) {
                if line.is_empty() || line.starts_with("//") || line.starts_with("#[") {
                    continue;
                }
                let inner = line
                    .trim_end_matches(',')
                    .split_once('(')
                    .and_then(|(v, t)| Some((v, t.strip_suffix(')')?)));
                match inner {
                    Some((v, t)) if defs.iter().any(|d| d.name == t) => {
                        variants.push((v.to_string(), t.to_string()))
                    }
                    _ => all = false,
                }
            }
            if all && !variants.is_empty() {
                if let Some(p) = public_path(files, path, &name) {
                    out.push(Wrap {
                        name,
                        path: p,
                        variants,
                    });
                }
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


fn surface_gen(files: &[(String, String)]) -> String {
    let mut entries = String::new();
    let request = REQUEST_OWNERS;
    let mut decls: Vec<(&str, String, String, Vec<(String, String)>)> = Vec::new(); // owner, struct, file, fields
                                                                                    // Types that are definitions (or enums of them): a field holding one is generated from the
                                                                                    // definition owner's own entries, not from `fields`.
    let mut skip: Vec<String> = SURFACE_OWNERS
        .iter()
        .flat_map(|(_, names)| names.iter().map(|n| n.to_string()))
        .collect();
    for (_, text) in files {
        for line in text.lines() {
            if let Some(name) = line
                .trim()
                .strip_prefix("pub enum ")
                .and_then(|r| r.strip_suffix(" {"))
            {
                if let Some(d) = type_decl(files, name) {
                    if d.body
                        .lines()
                        .any(|l| skip.iter().any(|s| l.contains(&format!("({s})"))))
                    {
                        skip.push(name.to_string());
                    }
                }
            }
        }
    }
    for (owner, names) in SURFACE_OWNERS {
        let mut seen = std::collections::HashSet::new();
        for name in *names {
            let Some((path, fields)) = struct_decl(files, name) else {
                continue;
            };
            for (field, ty) in &fields {
                if !seen.insert(field.clone()) {
                    continue;
                }
                // An owner of several structs (stdio and HTTP MCP servers): a member only some of
                // them declare is not required of the owner.
                let partial = names.iter().any(|other| {
                    struct_decl(files, other)
                        .is_some_and(|(_, fs)| !fs.iter().any(|(f, _)| f == field))
                });
                entries.push_str("    ");
                entries.push_str(&entry_literal(
                    files,
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
        let text = &files
            .iter()
            .find(|(p, _)| p == file)
            .map(|(_, t)| t.as_str())
            .unwrap_or("");
        let Some(path) = public_path(files, file, name) else {
            continue;
        };
        let blank = if derives_default(text, name) {
            format!("<{path}>::default()")
        } else if let Some((_, _, blank)) = BLANK_DEFS
            .iter()
            .find(|(n, needle, _)| n == name && text.contains(needle))
        {
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
        if let Some(u) = unit_enum(files, &held) {
            enums.push(u);
        } else if let Some(d) = plain_struct(files, &held) {
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
    let wraps = wrapper_enums(files, &defs);
    let mut out = format!("/// Generated by build.rs from the SDK's source.\npub const SURFACE: &[SurfaceEntry] = &[\n{entries}];\n");
    let arms = |fields: &[(String, String)]| -> String {
        fields
            .iter()
            .filter(|(_, ty)| rust_shape(&expand_aliases(files, ty)).0 != "handler")
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
            .filter(|(_, t)| rust_shape(&expand_aliases(files, t)).0 != "handler")
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
            .filter(|(_, t)| rust_shape(&expand_aliases(files, t)).0 == "handler")
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
            "/// Builds a {name} from its value (build.rs unit_enum).\n#[allow(non_snake_case, dead_code)]\npub fn build_enum_{name}(v: Value) -> Result<{path}, String> {{\n    match v.as_str() {{\n{arms}        _ => Err(format!(\"expected one of {values}, got {{v}}\")),\n    }}\n}}\n"
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

/// A type declared in the crate: `pub struct` or `pub enum`, its attribute lines and its body.
#[derive(Clone)]
struct TypeDecl {
    is_enum: bool,
    attrs: String,
    body: String,
}

/// The declaration of `pub struct <name>` / `pub enum <name>` (hand-written files first).
fn type_decl(files: &[(String, String)], name: &str) -> Option<TypeDecl> {
    memo!(TYPE_DECLS: Option<TypeDecl>, name, type_decl_scan(files, name))
}

fn type_decl_scan(files: &[(String, String)], name: &str) -> Option<TypeDecl> {
    let mut ordered: Vec<&(String, String)> = files
        .iter()
        .filter(|(p, _)| !p.contains("generated"))
        .collect();
    ordered.extend(files.iter().filter(|(p, _)| p.contains("generated")));
    for (path, text) in ordered {
        for (head, is_enum) in [
            (format!("pub struct {name} {{"), false),
            (format!("pub enum {name} {{"), true),
            (format!("pub struct {name}("), false),
        ] {
            let Some(at) = find_decl(path, text, name, &head) else {
                continue;
            };
            let attrs: Vec<&str> = text[..at]
                .lines()
                .rev()
                .take_while(|l| {
                    let l = l.trim();
                    !l.is_empty() && !l.ends_with('}') && !l.ends_with(';') && !l.ends_with('{')
                })
                .collect();
            let attrs = attrs.into_iter().rev().collect::<Vec<_>>().join("\n");
            let rest = &text[at + head.len()..];
            let body = if head.ends_with('(') {
                rest[..rest.find(')').unwrap_or(0)].to_string()
            } else {
                rest[..rest.find("\n}").unwrap_or(rest.len())].to_string()
            };
            return Some(TypeDecl {
                is_enum,
                attrs,
                body,
            });
        }
    }
    None
}

/// The quoted value of `key = "…"` inside serde attributes.
fn serde_value(attrs: &str, key: &str) -> Option<String> {
    attrs
        .lines()
        .filter(|l| l.contains("serde("))
        .find_map(|l| quoted_value(l, key))
}

/// Whether a serde attribute of `attrs` has the bare word `word` (skip, flatten, other).
fn serde_word(attrs: &str, word: &str) -> bool {
    attrs.lines().filter(|l| l.contains("serde(")).any(|l| {
        let inner = l.split_once("serde(").map(|(_, r)| r).unwrap_or("");
        inner
            .trim_end_matches(|c| c == ')' || c == ']')
            .split(',')
            .any(|t| t.trim() == word)
    })
}

/// A snake_case field or PascalCase variant name under serde's `rename_all` rule.
fn serde_case(name: &str, rule: Option<&str>) -> String {
    let words: Vec<String> = if name.contains('_') || name.chars().all(|c| !c.is_uppercase()) {
        name.split('_')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    } else {
        let mut out: Vec<String> = Vec::new();
        for c in name.chars() {
            if c.is_uppercase() || out.is_empty() {
                out.push(String::new());
            }
            out.last_mut().unwrap().extend(c.to_lowercase());
        }
        out
    };
    let cap = |w: &String| {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect::<String>())
            .unwrap_or_default()
    };
    match rule {
        None => name.to_string(),
        Some("lowercase") => name.to_lowercase(),
        Some("UPPERCASE") => name.to_uppercase(),
        Some("camelCase") => words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.clone() } else { cap(w) })
            .collect(),
        Some("PascalCase") => words.iter().map(cap).collect(),
        Some("snake_case") => words.join("_"),
        Some("SCREAMING_SNAKE_CASE") => words.join("_").to_uppercase(),
        Some("kebab-case") => words.join("-"),
        Some("SCREAMING-KEBAB-CASE") => words.join("-").to_uppercase(),
        Some(_) => name.to_string(),
    }
}

/// The members of a struct body as (field, type, attribute lines).
fn members_of(body: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut attrs = String::new();
    let mut pending: Option<(String, String, String)> = None;
    for line in body.lines().map(str::trim) {
        if let Some((_, ty, _)) = pending.as_mut() {
            ty.push_str(line);
            if line.ends_with(',') {
                let (f, t, a) = pending.take().unwrap();
                out.push((f, t.trim_end_matches(',').to_string(), a));
            }
            continue;
        }
        if line.starts_with("#[") {
            attrs.push_str(line);
            attrs.push('\n');
            continue;
        }
        if line.starts_with("//") || line.is_empty() {
            continue;
        }
        let a = std::mem::take(&mut attrs);
        let Some(rest) = line.strip_prefix("pub ") else {
            continue;
        };
        let Some((field, ty)) = rest.split_once(':') else {
            continue;
        };
        let (field, ty) = (field.trim().to_string(), ty.trim().to_string());
        if ty.ends_with(',') {
            out.push((field, ty.trim_end_matches(',').to_string(), a));
        } else {
            pending = Some((field, ty, a));
        }
    }
    out
}

/// The serde names of a unit-only enum's variants (a `#[serde(other)]` catch-all left out), or
/// None for an enum with data or one serde does not derive.
fn enum_values(d: &TypeDecl) -> Option<Vec<String>> {
    if !d.is_enum || !d.attrs.contains("Deserialize") || serde_word(&d.attrs, "untagged") {
        return None;
    }
    let mut out = Vec::new();
    for variant in variant_lines(d) {
        let (_, name, a) = variant?; // a variant with data: not a unit-only enum
        if serde_word(&a, "other") || serde_word(&a, "skip") || serde_word(&a, "skip_deserializing")
        {
            continue;
        }
        out.push(name);
    }
    (!out.is_empty()).then_some(out)
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
    files: &[(String, String)],
    owner: &str,
    name: &str,
    ty: &str,
    optional_attr: bool,
    declared_by: &str,
    depth: usize,
    skip: &[String],
) -> String {
    let (mut shape, optional, _) = rust_shape(&expand_aliases(files, ty));
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
        if let Some(d) = type_decl(files, &held) {
            if let Some(vs) = enum_values(&d) {
                if direct {
                    shape = "enum";
                    values = vs;
                }
            } else if let Some(u) = unit_enum(files, &held).filter(|_| direct) {
                shape = "enum";
                values = u.variants.into_iter().map(|(_, v)| v).collect();
            } else if !d.is_enum
                && d.attrs.contains("transparent")
                && d.body.trim().trim_start_matches("pub ").trim() == "String"
                && direct
            {
                shape = "string";
            } else if !d.is_enum
                && d.attrs.contains("Deserialize")
                && !d.attrs.contains("untagged")
                && depth < 2
            {
                let rule = serde_value(&d.attrs, "rename_all");
                let members = members_of(&d.body);
                if !members.iter().any(|(_, _, a)| serde_word(a, "flatten")) {
                    for (f, t, a) in members {
                        if serde_word(&a, "skip")
                            || serde_word(&a, "skip_deserializing")
                            || a.contains("#[cfg")
                        {
                            continue;
                        }
                        let n = serde_value(&a, "rename")
                            .unwrap_or_else(|| serde_case(&f, rule.as_deref()));
                        let has_default = serde_word(&a, "default")
                            || a.contains("default =")
                            || a.contains("skip_serializing_if");
                        fields.push_str(&entry_literal(
                            files,
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
            } else if let Some(def) = plain_struct(files, &held).filter(|_| depth < 2) {
                // Built from its Default (every member may be left out) or its constructor (the
                // members it takes are required).
                for (f, t) in &def.fields {
                    fields.push_str(&entry_literal(
                        files,
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
fn request_gen(files: &[(String, String)]) -> String {
    let Some((_, ctx)) = struct_decl(files, "CopilotRequestContext") else {
        return "// this crate has no CopilotRequestContext\n".to_string();
    };
    let wire = type_decl(files, "LlmInferenceHttpRequestStartRequest");
    let rule = wire.as_ref().and_then(|d| serde_value(&d.attrs, "rename_all"));
    let wire_members = wire.as_ref().map(|d| members_of(&d.body)).unwrap_or_default();
    let mut body = String::new();
    let mut left = Vec::new();
    for (field, ty) in &ctx {
        let Some((_, wire_ty, attrs)) = wire_members.iter().find(|(f, _, _)| f == field) else {
            left.push(format!("{field} (not in the start request)"));
            continue;
        };
        let key = serde_value(attrs, "rename").unwrap_or_else(|| serde_case(field, rule.as_deref()));
        let t: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        match t.as_str() {
            "String" => body.push_str(&format!(
                "    head.insert({key:?}.to_string(), Value::String(ctx.{field}.clone()));\n"
            )),
            "Option<String>" => body.push_str(&format!(
                "    if let Some(v) = &ctx.{field} {{\n        head.insert({key:?}.to_string(), Value::String(v.clone()));\n    }}\n"
            )),
            _ => {
                let arms = type_decl(files, &t)
                    .filter(|d| d.is_enum)
                    .zip(type_decl(files, &held_type(wire_ty)).filter(|d| d.is_enum))
                    .map(|(ours, theirs)| {
                        let values = enum_variants(&theirs);
                        enum_variants(&ours)
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
        "/// The request context's scalar fields under the start request's wire names (build.rs \
         request_gen; not reported: {}).\nfn context_head(ctx: &{REQUEST_MOD}::CopilotRequestContext) -> Map<String, Value> {{\n    let mut head = Map::new();\n{body}    head\n}}\n",
        left.join(", ")
    )
}

/// A unit enum's variants as (variant, serde name under its rename / rename_all), in order.
fn enum_variants(d: &TypeDecl) -> Vec<(String, String)> {
    variant_lines(d)
        .into_iter()
        .flatten()
        .map(|(v, name, _)| (v, name))
        .collect()
}

/// Each variant line of an enum's body, in order: (variant, serde name under its rename /
/// rename_all, the attribute lines above it), or None for a line of a variant with data (the
/// walk enum_values and enum_variants share).
fn variant_lines(d: &TypeDecl) -> Vec<Option<(String, String, String)>> {
    let rule = serde_value(&d.attrs, "rename_all");
    let mut out = Vec::new();
    let mut attrs = String::new();
    for line in d.body.lines().map(str::trim) {
        if line.starts_with("#[") {
            attrs.push_str(line);
            attrs.push('\n');
            continue;
        }
        if line.starts_with("//") || line.is_empty() {
            continue;
        }
        let a = std::mem::take(&mut attrs);
        let v = line.trim_end_matches(',');
        if v.contains('(') || v.contains('{') || v.contains(' ') {
            out.push(None);
            continue;
        }
        let name = serde_value(&a, "rename").unwrap_or_else(|| serde_case(v, rule.as_deref()));
        out.push(Some((v.to_string(), name, a)));
    }
    out
}
