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
//! - sdk_handler_traits:   `handler::PermissionHandler` / `UserInputHandler` and `Tool::with_handler`
//!                         (older releases: one `SessionHandler` per session, src/compat.rs)
//! - sdk_facades:          `pub mod rpc;` / `pub mod session_events;` in the crate's lib.rs (the
//!                         generated layer at the crate root; older releases: `generated::…`)
//!
//! and one cfg per field of a public config struct the driver sets (session options, tool
//! results), read from the struct's declaration: `sdk_create_<field>` (SessionConfig),
//! `sdk_resume_<field>` (ResumeSessionConfig), `sdk_result_<field>` (ToolResultExpanded),
//! `sdk_binary_<field>` (ToolBinaryResult), `sdk_session_<field>` (SessionConfig, beyond the
//! session options), `sdk_client_<field>` (ClientOptions).
//!
//! Last, it writes `$OUT_DIR/surface_gen.rs` (PROTOCOL.md "Surface"): every field of the SDK's
//! configuration structs as declared in the crate source (`SURFACE`), and a setter per
//! SessionConfig / ResumeSessionConfig field of a plain JSON type (`set_create_field`,
//! `set_resume_field`), so the driver sets any declared field by name with no hand list.

use std::path::{Path, PathBuf};

mod build_rpc;

/// cfg name and a string whose presence in the SDK's src/ shows the API exists.
const PROBES: &[(&str, &[&str])] = &[
    ("sdk_tool_is_terminal", &["pub fn with_is_terminal("]),
    ("sdk_tool_metadata", &["pub fn with_metadata(mut self, metadata: IndexMap<String, Value>)"]),
    ("sdk_tool_defer", &["pub fn with_defer(", "pub enum DeferMode"]),
    ("sdk_client_info", &["pub fn with_client_info(", "pub fn with_integration_version("]),
    ("sdk_github_telemetry", &["pub fn with_on_github_telemetry<"]),
    ("sdk_set_tools", &["pub async fn set_tools<"]),
    ("sdk_clear_context", &["pub struct HistoryClearContextRequest", "pub async fn clear_context("]),
    ("sdk_rpc_tools_set", &["pub struct ToolsSetRequest", "SESSION_TOOLS_SET"]),
    ("sdk_prepare_session", &["pub fn prepare_session(", "pub fn prepare_resume_session("]),
    ("sdk_typed_events", &["pub enum SessionEventData"]),
    ("sdk_error_kind", &["pub enum ErrorKind", "pub enum RecvErrorKind"]),
    ("sdk_handler_traits", &["pub trait PermissionHandler", "pub trait UserInputHandler"]),
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

/// Fields the driver sets, per (cfg prefix, struct). Unlisted fields are never probed.
const FIELDS: &[(&str, &str, &[&str])] = &[
    ("sdk_create_", "SessionConfig", SESSION_FIELDS),
    ("sdk_resume_", "ResumeSessionConfig", SESSION_FIELDS),
    ("sdk_result_", "ToolResultExpanded", &["binary_results_for_llm", "session_log", "tool_telemetry", "error"]),
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
    // The dispatch table of the generic `rpc` command (build_rpc.rs), from the crate's own source.
    let rpc_rs = sdk_dir.as_ref().map(|d| d.join("src").join("generated").join("rpc.rs"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=build_rpc.rs");
    build_rpc::generate(rpc_rs.as_deref(), &out_dir.join("rpc_dispatch.rs"));
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
    let lib = sdk_dir.as_ref().and_then(|d| std::fs::read_to_string(d.join("src").join("lib.rs")).ok());
    if lib.is_none_or(|l| l.contains("pub mod rpc;") && l.contains("pub mod session_events;")) {
        println!("cargo:rustc-cfg=sdk_facades");
    }
    let mut files = Vec::new();
    if let Some(dir) = &sdk_dir {
        read_files(&dir.join("src"), &dir.join("src"), &mut files);
    }
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
    let Some(start) = text.find(&head) else { return Vec::new() };
    let body = &text[start + head.len()..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    body.lines()
        .filter_map(|line| line.trim().strip_prefix("pub "))
        .filter_map(|rest| rest.split_once(':').map(|(field, _)| field.trim().to_string()))
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
    let Ok(entries) = std::fs::read_dir(dir) else { return };
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
    let rest = line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
    Some(rest.strip_prefix('"')?.strip_suffix('"')?.to_string())
}

/// `key = "value"` inside an inline table such as `{ path = "/x", ... }`.
fn quoted_value(line: &str, key: &str) -> Option<String> {
    let mut rest = line;
    while let Some(i) = rest.find(key) {
        let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric() && rest.as_bytes()[i - 1] != b'-' && rest.as_bytes()[i - 1] != b'_';
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
    ("mcpServer", &["McpStdioServerConfig", "McpHttpServerConfig"]),
    ("command", &["CommandDefinition"]),
    ("provider", &["ProviderConfig"]),
    ("systemMessage", &["SystemMessageConfig"]),
];

/// Every `.rs` file under `dir` as (path relative to `root`, text).
fn read_files(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            read_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            if let Ok(body) = std::fs::read_to_string(&path) {
                let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                out.push((rel, body));
            }
        }
    }
}

/// The public fields of `pub struct <name> {` as (field, type), from the first file declaring it,
/// hand-written files before generated ones (the generated wire types reuse some names). A
/// field behind a `#[cfg(...)]` is left out (it may not exist in this build).
fn struct_decl(files: &[(String, String)], name: &str) -> Option<(String, Vec<(String, String)>)> {
    let head = format!("pub struct {name} {{");
    let mut ordered: Vec<&(String, String)> = files.iter().filter(|(p, _)| !p.contains("generated")).collect();
    ordered.extend(files.iter().filter(|(p, _)| p.contains("generated")));
    for (path, text) in ordered {
        let Some(start) = text.find(&head) else { continue };
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
            let Some(rest) = line.strip_prefix("pub ") else { continue };
            let Some((field, ty)) = rest.split_once(':') else { continue };
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
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => plain("integer"),
        "f32" | "f64" => plain("number"),
        "Vec<String>" | "Vec<PathBuf>" => plain("string[]"),
        _ if inner.contains("dyn") || inner.contains("Fn(") => ("handler", optional, false),
        _ if inner.starts_with("HashMap<") || inner.starts_with("IndexMap<") || inner.starts_with("BTreeMap<") => ("map", optional, false),
        _ if inner.starts_with("Vec<") => ("array", optional, false),
        _ => ("other", optional, false),
    }
}

fn surface_gen(files: &[(String, String)]) -> String {
    let mut entries = String::new();
    let mut setters: Vec<(&str, Vec<String>)> = vec![("sessionConfig", Vec::new()), ("resumeConfig", Vec::new())];
    for (owner, names) in SURFACE_OWNERS {
        let mut seen = std::collections::HashSet::new();
        for name in *names {
            let Some((path, fields)) = struct_decl(files, name) else { continue };
            for (field, ty) in fields {
                if !seen.insert(field.clone()) {
                    continue;
                }
                let (shape, optional, settable) = rust_shape(&ty);
                let kind = if shape == "handler" { "handler" } else { "field" };
                entries.push_str(&format!(
                    "    SurfaceEntry {{ owner: {owner:?}, name: {field:?}, ty: {ty:?}, kind: {kind:?}, shape: {shape:?}, optional: {optional}, declared_by: {:?} }},\n",
                    format!("{name} (src/{path})")
                ));
                if settable {
                    if let Some((_, arms)) = setters.iter_mut().find(|(o, _)| o == owner) {
                        arms.push(format!(
                            "        {field:?} => Some(serde_json::from_value(v).map(|x| c.{field} = x).map_err(|e| e.to_string())),\n"
                        ));
                    }
                }
            }
        }
    }
    let mut out = format!("/// Generated by build.rs from the SDK's source.\npub const SURFACE: &[SurfaceEntry] = &[\n{entries}];\n");
    for (owner, arms) in setters {
        let (fname, ty) = if owner == "sessionConfig" { ("set_create_field", "SessionConfig") } else { ("set_resume_field", "ResumeSessionConfig") };
        out.push_str(&format!(
            "/// Sets a declared {ty} field of a plain JSON type by name; None when there is none.\n#[allow(unused_variables)]\npub fn {fname}(c: &mut {ty}, name: &str, v: Value) -> Option<Result<(), String>> {{\n    match name {{\n{}        _ => None,\n    }}\n}}\n",
            arms.concat()
        ));
    }
    out
}
