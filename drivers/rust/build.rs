//! Records which github-copilot-sdk this binary was built against, so `hello` reports the version
//! cargo actually resolved (from Cargo.lock) instead of a hard-coded string.
//!
//! Sets, for src/main.rs:
//! - SDK_VERSION: the `version` of the `github-copilot-sdk` package in Cargo.lock
//! - SDK_SOURCE:  `crates.io:github-copilot-sdk@<version>` for a registry package, or
//!   `path:<dir>` when Cargo.toml points the dependency at a local folder.
//!
//! It also reads the resolved SDK's source with a parser (the unpacked crate under
//! $CARGO_HOME/registry/src, or the local folder; build_api.rs `PROBES`, what each cfg needs
//! written as Rust) and sets one `sdk_*` cfg per public API the driver uses that older releases
//! lack, so the same driver builds against them and reports `unsupported` honestly:
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
//! - sdk_tool_call_async:  `ToolHandler::call` an `async fn` (a future the SDK can drop: how it
//!                         tells a held tool handler that its call was resolved, src/holds.rs)
//! - sdk_request_handler:  `ClientOptions::with_request_handler` and the `CopilotRequestHandler`
//!                         trait with its HTTP and WebSocket methods (connect's requestHandler)
//! - sdk_facades:          `pub mod rpc;` / `pub mod session_events;` in the crate's lib.rs (the
//!                         generated layer at the crate root; older releases: `generated::…`)
//!
//! and one cfg per field of a public config struct the driver sets (session options, tool
//! results), read from the struct's declaration: `sdk_create_<field>` (SessionConfig),
//! `sdk_resume_<field>` (ResumeSessionConfig), `sdk_result_<field>` (ToolResultExpanded),
//! `sdk_binary_<field>` (ToolBinaryResult), `sdk_session_<field>` (SessionConfig, beyond the
//! session options), `sdk_client_<field>` (ClientOptions); build_api.rs `FIELDS`.
//!
//! From the same reading (build_surface.rs) it writes `$OUT_DIR/request_gen.rs` (src/requests.rs): the request context's fields under
//! the wire names of the start request the crate builds it from (`request_gen`).
//!
//! Last, it writes `$OUT_DIR/surface_gen.rs` (PROTOCOL.md "Surface"): every field of the SDK's
//! configuration structs as declared in the crate source (`SURFACE`), and a setter per
//! SessionConfig / ResumeSessionConfig field of a plain JSON type (`set_create_field`,
//! `set_resume_field`), so the driver sets any declared field by name with no hand list.

use std::path::{Path, PathBuf};

mod build_api;
mod build_byname;
mod build_hooks;
mod build_rpc;
mod build_surface;
mod build_syntax;

use build_byname::REQUEST_OWNERS;

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

    for cfg in build_api::all_cfgs() {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    let sdk_dir = match &local_path {
        Some(p) => Some(PathBuf::from(p)),
        None => registry_dir(&version),
    };
    let src = sdk_dir.as_ref().map(|d| d.join("src"));
    // The crate's source read by the parser (build_syntax.rs): the dispatch table of the generic
    // `rpc` command (build_rpc.rs) and the by-name builders (build_byname.rs) come from it.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    for script in ["build_api.rs", "build_byname.rs", "build_hooks.rs", "build_rpc.rs", "build_surface.rs", "build_syntax.rs", "src"] {
        println!("cargo:rerun-if-changed={script}");
    }
    // Read in a block of its own: dropped before build_api reads every file again.
    {
    let sdk = build_syntax::Sdk::read(src.as_deref());
    build_hooks::generate(src.as_deref(), &out_dir.join("hooks_gen.rs"));
    let requests = build_rpc::generate(sdk.rpc.as_ref(), &build_byname::deserializable(&sdk), &out_dir.join("rpc_dispatch.rs"));
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
    }
    // Every file of the crate, parsed: the API probes, the config structs' fields, the surface
    // and the request context (build_api.rs, build_surface.rs).
    let api = build_api::Api::read(src.as_deref());
    if api.is_empty() {
        println!(
            "cargo:warning=github-copilot-sdk {version}: source not found (looked at {sdk_dir:?}); \
             assuming every API the driver uses exists"
        );
    }
    for cfg in build_api::cfgs(&api) {
        println!("cargo:rustc-cfg={cfg}");
    }
    std::fs::write(out_dir.join("request_gen.rs"), build_surface::request_gen(&api)).expect("writing request_gen.rs");
    std::fs::write(out_dir.join("surface_gen.rs"), build_surface::surface_gen(&api)).expect("writing surface_gen.rs");
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

