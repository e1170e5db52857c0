//! Tests of what build.rs reads from a crate with the parser (build_api.rs: the API probes and
//! the config structs' fields) and writes from it (build_surface.rs: the surface inventory, its
//! setters and builders, the request context), on small crates written here in layouts rustfmt
//! would not write, so a text search would miss them.

use std::path::Path;

use crate::build_api::{self, Api, Need};
use crate::build_surface;
use crate::tests::write_crate;

/// The crate's index (the folder removed after reading).
fn read(files: &[(&str, &str)]) -> Api {
    let dir = write_crate(files);
    let api = Api::read(Some(&dir.join("src")));
    let _ = std::fs::remove_dir_all(&dir);
    api
}

fn has(api: &Api, need: Need) -> bool {
    api.has(&need)
}

const TYPES: &str = r#"
pub use indexmap::{IndexMap, IndexSet};
pub struct Tool { pub name: String }
impl Tool {
    pub fn with_metadata(
        mut self,
        metadata: IndexMap<String, Value>,
    ) -> Self { self }
    pub(crate) fn with_is_terminal(mut self, t: bool) -> Self { self }
}
pub struct Error;
impl Error {
    pub fn rpc_data(&self)
        -> Option<&Value> { None }
}
pub trait UserInputHandler {
    async fn handle(
        &self,
        session_id: SessionId,
        request_id: Option<RequestId>,
        question: String,
        choices: Vec<String>,
    ) -> Answer;
}
pub trait ExitPlanModeHandler {
    async fn handle(&self, data: ExitPlanModeData, request_id: Option<RequestId>) -> R;
}
#[derive(Debug, Default)]
pub struct ExitPlanModeResult { pub approved: bool }
pub struct McpAuthResult;
impl Default for McpAuthResult { fn default() -> Self { Self } }
pub enum PermissionResult { Approved, NoResult }
mod inner {
    pub const SESSION_TOOLS_SET: &str = "session.tools.set";
}
"#;

#[test]
fn probes_read_signatures_whatever_their_layout() {
    let api = read(&[("lib.rs", TYPES)]);
    // A signature spread over lines, its parameters a run of the method's.
    assert!(has(&api, Need::Fn("Tool", "fn with_metadata(mut self, metadata: IndexMap<String, Value>);")));
    assert!(!has(&api, Need::Fn("Tool", "fn with_metadata(mut self, metadata: HashMap<String, Value>);")));
    // A method the crate keeps to itself is not there for the driver.
    assert!(!has(&api, Need::Fn("Tool", "fn with_is_terminal();")));
    assert!(!has(&api, Need::Fn("Session", "fn with_metadata();")), "another type's method");
    assert!(has(&api, Need::Fn("Error", "fn rpc_data(&self) -> Option<&Value>;")));
    assert!(!has(&api, Need::Fn("Error", "fn rpc_data(&self) -> Option<Value>;")), "another return type");
    // A trait method: the parameters in order and next to each other.
    assert!(has(&api, Need::Fn("UserInputHandler", "fn handle(request_id: Option<RequestId>, question: String);")));
    assert!(has(&api, Need::Fn("UserInputHandler", "async fn handle(question: String);")));
    assert!(!has(&api, Need::Fn("UserInputHandler", "fn handle(question: String, request_id: Option<RequestId>);")));
    assert!(!has(&api, Need::Fn("UserInputHandler", "fn handle(session_id: SessionId, question: String);")));
    assert!(!has(&api, Need::Fn("ExitPlanModeHandler", "fn handle(request_id: Option<RequestId>, data: ExitPlanModeData);")));
    // Re-exports in a group, derived and written impls, variants, consts in an inline module.
    assert!(has(&api, Need::Use("indexmap::IndexMap")));
    assert!(!has(&api, Need::Use("indexmap::IndexMapX")));
    assert!(has(&api, Need::Impl("Default", "ExitPlanModeResult")));
    assert!(has(&api, Need::Impl("Default", "McpAuthResult")));
    assert!(!has(&api, Need::Impl("Default", "Tool")));
    assert!(has(&api, Need::Variant("PermissionResult", "NoResult")));
    assert!(!has(&api, Need::Variant("PermissionResult", "Denied")));
    assert!(has(&api, Need::Const("SESSION_TOOLS_SET")));
    assert!(has(&api, Need::Decl("UserInputHandler")) && !has(&api, Need::Decl("PermissionHandler")));
}

#[test]
fn every_probe_signature_parses() {
    let api = read(&[("lib.rs", "")]);
    for (_, needs) in build_api::PROBES {
        for n in *needs {
            api.has(n); // panics on a signature that does not parse
        }
    }
}

#[test]
fn cfgs_follow_the_crate() {
    let api = read(&[("lib.rs", TYPES)]);
    let cfgs = build_api::cfgs(&api);
    assert!(cfgs.contains(&"sdk_indexmap".to_string()), "{cfgs:?}");
    assert!(cfgs.contains(&"sdk_tool_metadata".to_string()), "{cfgs:?}");
    assert!(cfgs.contains(&"sdk_rpc_data".to_string()), "{cfgs:?}");
    assert!(cfgs.contains(&"sdk_user_input_request_id".to_string()), "{cfgs:?}");
    assert!(!cfgs.contains(&"sdk_exit_plan_request_id".to_string()), "{cfgs:?}");
    assert!(!cfgs.contains(&"sdk_tool_is_terminal".to_string()), "{cfgs:?}");
    assert!(!cfgs.contains(&"sdk_facades".to_string()), "lib.rs declares no rpc module: {cfgs:?}");
    // No source found: every API is assumed (the build says so in a warning).
    let none = build_api::cfgs(&Api::read(None));
    assert_eq!(none, build_api::all_cfgs());
}

#[test]
fn config_fields_leave_out_private_and_gated_ones() {
    let api = read(&[(
        "lib.rs",
        r#"
        pub mod rpc; pub mod session_events;
        #[derive(Default)]
        pub struct SessionConfig {
            pub model: Option<String>,
            #[cfg(feature = "x")]
            pub streaming: Option<bool>,
            pub(crate) provider: Option<Provider>,
            #[serde(
                rename = "workingDirectory"
            )]
            pub working_directory:
                Option<PathBuf>,
        }
        "#,
    )]);
    let cfgs = build_api::cfgs(&api);
    assert!(cfgs.contains(&"sdk_create_model".to_string()), "{cfgs:?}");
    assert!(cfgs.contains(&"sdk_create_working_directory".to_string()), "{cfgs:?}");
    assert!(!cfgs.contains(&"sdk_create_streaming".to_string()), "{cfgs:?}");
    assert!(!cfgs.contains(&"sdk_create_provider".to_string()), "{cfgs:?}");
    assert!(cfgs.contains(&"sdk_facades".to_string()), "{cfgs:?}");
}

/// A crate with the config structs the surface reads, in layouts rustfmt would not write.
const SURFACE_CRATE: &[(&str, &str)] = &[
    ("lib.rs", "pub mod types;\npub use types::{SessionConfig, ClientMode};\n"),
    (
        "types.rs",
        r#"
        #[derive(Default)]
        pub struct SessionConfig {
            pub model: Option<String>,
            pub limits: Option<Limits>,
            pub session_id: Option<SessionId>,
            pub mode: Option<ClientMode>,
            pub conventions: Option<Conventions>,
            pub on_event: Option<EventCallback>,
            pub tools: Option<Vec<Tool>>,
        }
        pub type EventCallback = Arc<dyn Fn(&str) + Send + Sync>;
        #[derive(Serialize, Deserialize)] #[serde(rename_all = "camelCase")]
        pub struct Limits {
            #[serde(
                rename = "max_tokens",
                skip_serializing_if = "Option::is_none"
            )]
            pub max_tokens: Option<i64>,
            pub max_prompt_tokens: i64,
            #[serde(skip)]
            pub internal: bool,
        }
        #[derive(Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct SessionId(String);
        pub enum ClientMode { CopilotCli, Empty }
        pub enum Conventions { Posix, Windows }
        impl Conventions {
            fn into_wire(self) -> WireConventions {
                match self { Self::Posix => WireConventions::Posix, Conventions::Windows => WireConventions::Windows }
            }
        }
        #[derive(Deserialize)] #[serde(rename_all = "lowercase")]
        pub enum WireConventions { Posix, Windows }
        #[derive(Default)]
        pub struct Tool { pub name: String, pub description: Option<String> }
        "#,
    ),
];

#[test]
fn the_surface_reads_declarations_not_layout() {
    let api = read(SURFACE_CRATE);
    let gen = build_surface::surface_gen(&api);
    // A top-level entry with its members (each member's literal ends a line of its own).
    let entry = |name: &str| -> &str {
        let at = gen.find(&format!("    SurfaceEntry {{ owner: \"sessionConfig\", name: {name:?}")).unwrap_or_else(|| panic!("no entry {name}: {gen}"));
        let end = gen[at + 4..].find("\n    SurfaceEntry {").or_else(|| gen[at..].find("];")).unwrap();
        &gen[at..at + 4 + end]
    };
    assert!(entry("model").contains(r#"shape: "string", optional: true"#), "{}", entry("model"));
    // A serde struct's members under their serde names: the rename of an attribute over lines
    // (not the camelCase of rename_all), a skipped one left out.
    let limits = entry("limits");
    assert!(limits.contains(r#"shape: "object""#), "{limits}");
    assert!(limits.contains(r#"name: "max_tokens", ty: "Option<i64>", kind: "field", shape: "integer", optional: true"#), "{limits}");
    assert!(limits.contains(r#"name: "maxPromptTokens", ty: "i64", kind: "field", shape: "integer", optional: false"#), "{limits}");
    assert!(!limits.contains("internal"), "{limits}");
    assert!(entry("session_id").contains(r#"shape: "string""#), "a transparent newtype: {}", entry("session_id"));
    // A unit enum serde does not derive: the variant names, or what its own conversion writes.
    assert!(entry("mode").contains(r#"shape: "enum""#) && entry("mode").contains(r#"values: &["CopilotCli", "Empty", ]"#), "{}", entry("mode"));
    assert!(entry("conventions").contains(r#"values: &["posix", "windows", ]"#), "{}", entry("conventions"));
    assert!(gen.contains(r#"Some("posix") => Ok(github_copilot_sdk::types::Conventions::Posix),"#), "{gen}");
    // An alias expanded first: a callback is a handler.
    assert!(entry("on_event").contains(r#"kind: "handler""#), "{}", entry("on_event"));
    // The setter of each field but the handler; the definition struct built field by field.
    assert!(gen.contains(r#""model" => "#) && !gen.contains(r#""on_event" => (&&&&"#), "{gen}");
    assert!(gen.contains("pub fn build_def_Tool(v: Value) -> Result<github_copilot_sdk::types::Tool, String>"), "{gen}");
}

#[test]
fn the_request_context_takes_the_start_requests_wire_names() {
    let api = read(&[
        ("lib.rs", "pub mod copilot_request_handler;\n"),
        (
            "copilot_request_handler.rs",
            r#"
            pub struct CopilotRequestContext {
                pub request_id: String,
                pub agent_invocation_id:
                    Option<String>,
                pub transport: CopilotRequestTransport,
                pub headers: HeaderMap,
            }
            pub enum CopilotRequestTransport { Http, WebSocket }
            "#,
        ),
        (
            "generated/api_types.rs",
            r#"
            #[derive(Serialize, Deserialize)]
            #[serde(rename_all = "camelCase")]
            pub struct LlmInferenceHttpRequestStartRequest {
                pub request_id: String,
                #[serde(
                    rename = "agentInvocation",
                    skip_serializing_if = "Option::is_none"
                )]
                pub agent_invocation_id: Option<String>,
                pub transport: Option<LlmTransport>,
            }
            #[derive(Serialize, Deserialize)]
            pub enum LlmTransport { #[serde(rename = "http")] Http, #[serde(rename = "websocket")] Websocket }
            "#,
        ),
    ]);
    let gen = build_surface::request_gen(&api);
    assert!(gen.contains(r#"head.insert("requestId".to_string(), Value::String(ctx.request_id.clone()));"#), "{gen}");
    assert!(gen.contains(r#"head.insert("agentInvocation".to_string(), Value::String(v.clone()));"#), "{gen}");
    assert!(gen.contains(r#"CopilotRequestTransport::WebSocket => {"#) && gen.contains(r#"Value::String("websocket".to_string())"#), "{gen}");
    assert!(gen.contains("not reported: headers (not in the start request)"), "{gen}");
    assert!(build_surface::request_gen(&read(&[("lib.rs", "")])).contains("no CopilotRequestContext"));
}

/// The generators on the crate build.rs builds against, when its source is unpacked here (cargo's
/// registry): the cfgs of the pin's APIs, and a surface of its config structs.
#[test]
fn the_pinned_crate_reads() {
    let Some(src) = pinned_source() else {
        eprintln!("the pinned github-copilot-sdk is not unpacked in cargo's registry: skipped");
        return;
    };
    let api = Api::read(Some(&src));
    let cfgs = build_api::cfgs(&api);
    for cfg in ["sdk_set_tools", "sdk_request_handler", "sdk_handlers", "sdk_cb_canvas", "sdk_create_model", "sdk_facades"] {
        assert!(cfgs.contains(&cfg.to_string()), "{cfg} not set on the pin: {cfgs:?}");
    }
    let gen = build_surface::surface_gen(&api);
    assert!(gen.matches("SurfaceEntry {").count() > 200, "{gen}");
}

/// `$CARGO_HOME/registry/src/*/github-copilot-sdk-<the pin>/src`, the pin read from the driver's
/// Cargo.toml.
fn pinned_source() -> Option<std::path::PathBuf> {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml")).ok()?;
    let line = manifest.lines().find(|l| l.starts_with("github-copilot-sdk = "))?;
    let version = line.split("\"=").nth(1)?.split('"').next()?;
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    std::fs::read_dir(home.join("registry/src"))
        .ok()?
        .flatten()
        .map(|i| i.path().join(format!("github-copilot-sdk-{version}/src")))
        .find(|p| p.is_dir())
}
