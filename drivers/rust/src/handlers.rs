//! Runtime-to-SDK handlers (../PROTOCOL.md "Generated RPC layer", Runtime→SDK methods): for each
//! clientSession / clientGlobal method the harness names, register the crate's public handler or
//! provider the way an application would, report what it received (`rpc.handled`) and return the
//! result the harness chose. The mapping from a schema method to the crate's API (provider traits
//! with positional arguments, a CanvasHandler, builder callbacks) is this SDK's API and is written
//! here per method on purpose. Built when the crate declares that API (cfg `sdk_handlers`, probed
//! in build.rs); otherwise every method is unhandled with the reason.

#![cfg_attr(not(sdk_handlers), allow(dead_code))]

use serde_json::{json, Map, Value};

use crate::{emit_event, SDK_NAME, SDK_VERSION};

/// Whether the driver offers `rpc.handlers`: on since the handler sweep measured this module
/// against 1.0.28 (features/schema/generated_handlers.feature passed, 22 of 28 methods).
pub const MEASURED: bool = true;

/// The crate's hooks read from its hooks.rs at build time (build_hooks.rs): the declared input of
/// each hook type, the input read field by field, the output built by field.
mod hooks_gen {
    #![allow(dead_code)]
    use serde_json::Value;
    include!(concat!(env!("OUT_DIR"), "/hooks_gen.rs"));
}

/// Whether hooks.invoke is registered (capabilities handler.hooks, handler.hooks.inputs): the
/// crate declares `HookEvent` variants with typed inputs, which the driver reads field by field.
pub const HOOKS: bool = hooks_gen::HOOK_EVENTS && cfg!(sdk_handlers);

/// Why hooks.invoke is not registered when [`HOOKS`] is false.
pub const HOOKS_GAP: &str = "driver: the crate's hooks.rs declares no HookEvent variant with a typed input the driver \
     reads (build_hooks.rs), or the crate lacks the handler API the driver registers handlers through";

/// Each registered hook type's declared input (createSession's hookInputs).
fn hook_inputs(types: &[String]) -> Value {
    let all: Value = serde_json::from_str(hooks_gen::HOOK_INPUTS).unwrap_or_default();
    let mut out = Map::new();
    for t in types {
        if let Some(v) = all.get(t) {
            out.insert(t.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// The "handlers" argument: method -> {params: [...], result}.
pub type Specs = Map<String, Value>;

fn account(handled: Vec<String>, unhandled: Map<String, Value>) -> Value {
    json!({ "handled": handled, "unhandled": unhandled })
}

/// The harness's result as the SDK's type `$t`, built by field name (src/byname.rs), and the
/// pointers it cannot carry; the type's default when the value cannot build at all. A type the
/// release's generator wrote no builder for is its default with the whole value (`""`)
/// unrepresentable, said on stderr: never a compile error (build_byname.rs).
macro_rules! by_name {
    ($t:ty, $v:expr) => {{
        let mut b = crate::byname::Build::default();
        match crate::byname::by_name_of!($t, $v, &mut b) {
            Ok(out) => (out.unwrap_or_default(), b.all_lost()),
            Err(e) => {
                eprintln!("{e}");
                (<$t>::default(), vec![String::new()])
            }
        }
    }};
}

/// rpc.handled: what the handler received in the schema's names, and the pointers into the
/// result its return type could not hold.
pub(crate) fn report_now(
    session: Option<&str>,
    client: Option<&str>,
    method: &str,
    params: Value,
    unrep: Vec<String>,
) {
    let mut args = json!({ "method": method, "params": params });
    if let Some(s) = session {
        args["session"] = json!(s);
    }
    if let Some(c) = client {
        args["client"] = json!(c);
    }
    if !unrep.is_empty() {
        args["unrepresentable"] = json!(unrep);
    }
    emit_event("rpc.handled", args);
}

/// [`report_now`], then wait while the harness holds the method (holds.rs).
pub(crate) async fn report(
    session: Option<&str>,
    client: Option<&str>,
    method: &str,
    params: Value,
    unrep: Vec<String>,
) {
    report_now(session, client, method, params, unrep);
    crate::holds::held(session.or(client).unwrap_or_default(), method).await;
}

fn pointer(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// Pointers to the keys of `result` other than `keep`.
fn beyond(result: &Value, keep: &[&str]) -> Vec<String> {
    match result {
        Value::Object(o) => o
            .keys()
            .filter(|k| !keep.contains(&k.as_str()))
            .map(|k| pointer(k))
            .collect(),
        _ => Vec::new(),
    }
}

fn params_of(specs: &Specs, method: &str) -> Vec<Value> {
    specs
        .get(method)
        .and_then(|s| s.get("params"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn result_of(specs: &Specs, method: &str) -> Value {
    specs
        .get(method)
        .and_then(|s| s.get("result"))
        .cloned()
        .unwrap_or(Value::Null)
}

#[cfg(sdk_handlers)]
mod imp {
    use super::*;
    use async_trait::async_trait;
    use github_copilot_sdk::canvas::{CanvasDeclaration, CanvasHandler, CanvasResult};
    use github_copilot_sdk::extension_launch_provider::ExtensionLaunchProvider;
    use github_copilot_sdk::rpc::{
        CanvasAction, CanvasProviderCloseRequest, CanvasProviderInvokeActionRequest,
        CanvasProviderOpenRequest, CanvasProviderOpenResult, ExtensionLaunchProviderResolveRequest,
        ExtensionLaunchProviderResolveResult,
    };
    use github_copilot_sdk::session_fs::{
        DirEntry, DirEntryKind, FileInfo, FsError, FsErrorKind, SessionFsCapabilities,
        SessionFsConfig, SessionFsConventions, SessionFsProvider, SessionFsSqliteProvider,
        SessionFsSqliteQueryResult, SessionFsSqliteQueryType, SessionFsSqliteTransactionError,
        SessionFsSqliteTransactionStatement,
    };
    use github_copilot_sdk::{
        BearerTokenError, ClientOptions, GitHubToken, GitHubTokenProviderArgs,
        GitHubTokenProviderResult, NamedProviderConfig, ProviderTokenArgs, ResumeSessionConfig,
        SessionConfig, SkillProvider, SkillProviderDescriptor,
    };
    use std::collections::HashMap;
    use std::sync::Arc;

    /// Client options (connect): the client-level handlers.
    pub fn for_client(
        mut options: ClientOptions,
        specs: Option<&Specs>,
        client: &str,
    ) -> (ClientOptions, Option<Value>) {
        let Some(specs) = specs else {
            return (options, None);
        };
        let mut handled = Vec::new();
        let mut unhandled = Map::new();
        for m in specs.keys() {
            match m.as_str() {
                "gitHubTelemetry.event" => {
                    let (method, client) = (m.clone(), client.to_string());
                    options = options.with_on_github_telemetry(move |n| {
                        report_now(
                            None,
                            Some(&client),
                            &method,
                            serde_json::to_value(&n).unwrap_or(Value::Null),
                            Vec::new(),
                        )
                    });
                    handled.push(m.clone());
                }
                "extensionLaunchProvider.resolve" => {
                    options = options.with_extension_launch_provider(Launch {
                        result: result_of(specs, m),
                        client: client.to_string(),
                    });
                    handled.push(m.clone());
                }
                x if x.starts_with("llmInference.") => {
                    unhandled.insert(m.clone(), json!(format!(
                        "the {SDK_NAME} {SDK_VERSION} public API for {m} is ClientOptions::with_request_handler (a CopilotRequestHandler serving whole HTTP exchanges, whose start/chunk acknowledgements the SDK writes itself): connect's requestHandler, not a per-method handler"
                    )));
                }
                _ => {}
            }
        }
        if specs.keys().any(|m| m.starts_with("sessionFs.")) {
            let mut caps = SessionFsCapabilities::new();
            caps.sqlite = true;
            options = options.with_session_fs(
                SessionFsConfig::new("/", "/session-state", SessionFsConventions::Posix)
                    .with_capabilities(caps),
            );
        }
        (options, Some(account(handled, unhandled)))
    }

    /// The session-level handlers, set through the builder both configs share.
    macro_rules! session_handlers {
        ($name:ident, $config:ty) => {
            pub fn $name(mut config: $config, specs: Option<&Specs>, handle: &str) -> ($config, Option<Value>) {
                let Some(specs) = specs else { return (config, None) };
                let specs = Arc::new(specs.clone());
                let mut handled = Vec::new();
                let mut unhandled = Map::new();
                let fs: Vec<String> = specs.keys().filter(|m| m.starts_with("sessionFs.")).cloned().collect();
                if !fs.is_empty() {
                    config = config.with_session_fs_provider(Arc::new(Fs { specs: specs.clone(), handle: handle.to_string() }));
                    handled.extend(fs);
                }
                let canvas: Vec<String> = ["canvas.open", "canvas.close", "canvas.action.invoke"]
                    .iter()
                    .filter(|m| specs.contains_key(**m))
                    .map(|m| m.to_string())
                    .collect();
                if !canvas.is_empty() {
                    let mut ids: Vec<(String, Vec<String>)> = Vec::new();
                    for m in &canvas {
                        for p in params_of(&specs, m) {
                            let id = p.get("canvasId").and_then(Value::as_str).unwrap_or_default().to_string();
                            if !ids.iter().any(|(i, _)| *i == id) {
                                ids.push((id.clone(), Vec::new()));
                            }
                            if let (true, Some(a)) = (m == "canvas.action.invoke", p.get("actionName").and_then(Value::as_str)) {
                                ids.iter_mut().find(|(i, _)| *i == id).unwrap().1.push(a.to_string());
                            }
                        }
                    }
                    let decls: Vec<CanvasDeclaration> = ids
                        .into_iter()
                        .map(|(id, actions)| {
                            let mut d = CanvasDeclaration::new(id.clone(), id.clone(), format!("conformance canvas {id}"));
                            if !actions.is_empty() {
                                d.actions = Some(
                                    actions
                                        .into_iter()
                                        .map(|a| {
                                            by_name!(CanvasAction, &json!({"name": a, "description": format!("conformance action {a}")}))
                                                .0
                                        })
                                        .collect(),
                                );
                            }
                            d
                        })
                        .collect();
                    config = config.with_canvases(decls).with_canvas_handler(Arc::new(Canvas { specs: specs.clone(), handle: handle.to_string() }));
                    handled.extend(canvas);
                }
                let m = "providerToken.getToken";
                if specs.contains_key(m) {
                    let mut names: Vec<String> = Vec::new();
                    for p in params_of(&specs, m) {
                        let n = p.get("providerName").and_then(Value::as_str).unwrap_or_default().to_string();
                        if !names.contains(&n) {
                            names.push(n);
                        }
                    }
                    let providers = names
                        .into_iter()
                        .map(|n| {
                            NamedProviderConfig::new(n, "http://127.0.0.1:9/v1")
                                .with_bearer_token_provider(Arc::new(Bearer { specs: specs.clone(), handle: handle.to_string() }))
                        })
                        .collect();
                    config = config.with_providers(providers);
                    handled.push(m.to_string());
                }
                let m = "gitHubToken.getToken";
                if specs.contains_key(m) {
                    config = config.with_github_token_provider(Arc::new(GhToken { specs: specs.clone(), handle: handle.to_string() }));
                    handled.push(m.to_string());
                }
                let skills: Vec<String> = ["skillProvider.list", "skillProvider.read"]
                    .iter()
                    .filter(|m| specs.contains_key(**m))
                    .map(|m| m.to_string())
                    .collect();
                if !skills.is_empty() {
                    config = config.with_skill_provider(Arc::new(Skills { specs: specs.clone(), handle: handle.to_string() }));
                    handled.extend(skills);
                }
                // Hooks (SessionConfig::with_hooks): one SessionHooks answering the hook types the
                // runtime will invoke, each input read field by field (build_hooks.rs).
                let mut inputs = None;
                let mut lacking = Vec::new();
                let m = "hooks.invoke";
                if specs.contains_key(m) && HOOKS {
                    let mut types: Vec<String> = Vec::new();
                    for p in params_of(&specs, m) {
                        let t = p.get("hookType").and_then(Value::as_str).unwrap_or_default().to_string();
                        if !t.is_empty() && !types.contains(&t) {
                            types.push(t);
                        }
                    }
                    let declared = hook_inputs(&types);
                    // A hook type hooks.rs has no HookEvent variant for reaches no hook
                    // (PROTOCOL.md unhandledCases).
                    for t in types.iter().filter(|t| declared.get(t.as_str()).is_none()) {
                        lacking.push(json!({"params": {"hookType": t}, "reason": format!("{SDK_NAME} {SDK_VERSION}: hooks.rs declares no HookEvent variant for {t}")}));
                    }
                    inputs = Some(declared);
                    config = config.with_hooks(Arc::new(Hooks { specs: specs.clone(), handle: handle.to_string(), types }));
                    handled.push(m.to_string());
                }
                for m in specs.keys() {
                    if handled.contains(m)
                        || m.starts_with("llmInference.")
                        || m == "gitHubTelemetry.event"
                        || m == "extensionLaunchProvider.resolve"
                    {
                        continue;
                    }
                    let why = if m == "hooks.invoke" {
                        format!("{HOOKS_GAP} ({SDK_NAME} {SDK_VERSION})")
                    } else {
                        let ns = &m[..m.rfind('.').unwrap_or(0)];
                        format!("{SDK_NAME} {SDK_VERSION}: no public API registers a {m} handler (no {ns} builder on SessionConfig or ClientOptions)")
                    };
                    unhandled.insert(m.clone(), json!(why));
                }
                let mut acct = account(handled, unhandled);
                if let Some(i) = inputs {
                    acct["hookInputs"] = i;
                }
                if !lacking.is_empty() {
                    acct["unhandledCases"] = json!({ "hooks.invoke": lacking });
                }
                (config, Some(acct))
            }
        };
    }
    session_handlers!(for_create, SessionConfig);
    session_handlers!(for_resume, ResumeSessionConfig);

    struct Launch {
        result: Value,
        client: String,
    }

    #[async_trait]
    impl ExtensionLaunchProvider for Launch {
        async fn resolve(
            &self,
            request: ExtensionLaunchProviderResolveRequest,
        ) -> github_copilot_sdk::Result<ExtensionLaunchProviderResolveResult> {
            let (out, lost) = by_name!(ExtensionLaunchProviderResolveResult, &self.result);
            report(
                None,
                Some(&self.client),
                "extensionLaunchProvider.resolve",
                serde_json::to_value(&request).unwrap_or(Value::Null),
                lost,
            ).await;
            Ok(out)
        }
    }

    struct Canvas {
        specs: Arc<Specs>,
        handle: String,
    }

    #[async_trait]
    impl CanvasHandler for Canvas {
        async fn on_open(
            &self,
            ctx: CanvasProviderOpenRequest,
        ) -> CanvasResult<CanvasProviderOpenResult> {
            let r = result_of(&self.specs, "canvas.open");
            let (out, lost) = by_name!(CanvasProviderOpenResult, &r);
            report(
                Some(&self.handle),
                None,
                "canvas.open",
                serde_json::to_value(&ctx).unwrap_or(Value::Null),
                lost,
            ).await;
            Ok(out)
        }

        async fn on_action(&self, ctx: CanvasProviderInvokeActionRequest) -> CanvasResult<Value> {
            report(
                Some(&self.handle),
                None,
                "canvas.action.invoke",
                serde_json::to_value(&ctx).unwrap_or(Value::Null),
                Vec::new(),
            ).await;
            Ok(result_of(&self.specs, "canvas.action.invoke"))
        }

        async fn on_close(&self, ctx: CanvasProviderCloseRequest) -> CanvasResult<()> {
            report(
                Some(&self.handle),
                None,
                "canvas.close",
                serde_json::to_value(&ctx).unwrap_or(Value::Null),
                Vec::new(),
            ).await;
            Ok(())
        }
    }

    struct Bearer {
        specs: Arc<Specs>,
        handle: String,
    }

    #[async_trait]
    impl github_copilot_sdk::BearerTokenProvider for Bearer {
        async fn get_token(&self, args: ProviderTokenArgs) -> Result<String, BearerTokenError> {
            let m = "providerToken.getToken";
            let r = result_of(&self.specs, m);
            report(
                Some(&self.handle),
                None,
                m,
                json!({"providerName": args.provider_name, "sessionId": args.session_id}),
                beyond(&r, &["token"]),
            ).await;
            Ok(r.get("token")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string())
        }
    }

    struct GhToken {
        specs: Arc<Specs>,
        handle: String,
    }

    /// The application's hooks: a hook type the runtime will invoke reports its input as read
    /// field by field and answers the harness's output built field by field; any other answers
    /// no output, as the trait's defaults do.
    struct Hooks {
        specs: Arc<Specs>,
        handle: String,
        types: Vec<String>,
    }

    #[async_trait]
    impl github_copilot_sdk::hooks::SessionHooks for Hooks {
        async fn on_hook(&self, event: github_copilot_sdk::hooks::HookEvent) -> github_copilot_sdk::hooks::HookOutput {
            let Some((hook, input, session)) = hooks_gen::read_hook(&event) else {
                return github_copilot_sdk::hooks::HookOutput::None;
            };
            if !self.types.iter().any(|t| t == hook) {
                return github_copilot_sdk::hooks::HookOutput::None;
            }
            let m = "hooks.invoke";
            let r = result_of(&self.specs, m);
            let (out, mut lost) = hooks_gen::hook_output(hook, r.get("output").unwrap_or(&Value::Null));
            lost.extend(beyond(&r, &["output"]));
            report(Some(&self.handle), None, m, json!({"hookType": hook, "input": input, "sessionId": session}), lost).await;
            out
        }
    }

    #[async_trait]
    impl github_copilot_sdk::GitHubTokenProvider for GhToken {
        async fn get_token(
            &self,
            args: GitHubTokenProviderArgs,
        ) -> Result<GitHubTokenProviderResult, github_copilot_sdk::Error> {
            let m = "gitHubToken.getToken";
            let r = result_of(&self.specs, m);
            // GitHubTokenRequestReason has no Serialize: its wire value is the variant's name with a
            // lower-case first letter (Initial -> "initial"), as the crate maps it (github_token.rs).
            let reason = format!("{:?}", args.reason);
            let reason = reason[..1].to_lowercase() + &reason[1..];
            let mut input = json!({"host": args.host, "reason": reason});
            if let Some(s) = &args.session_id {
                input["sessionId"] = json!(s.to_string());
            }
            let out = if r.get("kind").and_then(Value::as_str) == Some("cancelled") {
                report(Some(&self.handle), None, m, input, beyond(&r, &["kind"])).await;
                GitHubTokenProviderResult::Cancelled
            } else {
                let mut t = GitHubToken::new(
                    r.get("accessToken")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    r.get("expiresIn")
                        .and_then(Value::as_i64)
                        .unwrap_or_default(),
                );
                if let Some(tt) = r.get("tokenType").and_then(Value::as_str) {
                    t = t.with_token_type(tt);
                }
                report(
                    Some(&self.handle),
                    None,
                    m,
                    input,
                    beyond(&r, &["kind", "accessToken", "expiresIn", "tokenType"]),
                ).await;
                GitHubTokenProviderResult::Token(t)
            };
            Ok(out)
        }
    }

    struct Skills {
        specs: Arc<Specs>,
        handle: String,
    }

    #[async_trait]
    impl SkillProvider for Skills {
        async fn list_skills(
            &self,
        ) -> Result<Vec<SkillProviderDescriptor>, github_copilot_sdk::Error> {
            let m = "skillProvider.list";
            let r = result_of(&self.specs, m);
            let (skills, lost) = by_name!(Vec<SkillProviderDescriptor>, r.get("skills").unwrap_or(&json!([])));
            let lost = lost.into_iter().map(|p| format!("/skills{p}")).collect();
            report(Some(&self.handle), None, m, json!({}), lost).await;
            Ok(skills)
        }

        async fn read_skill(
            &self,
            name: &str,
        ) -> Result<Option<String>, github_copilot_sdk::Error> {
            let m = "skillProvider.read";
            let r = result_of(&self.specs, m);
            report(
                Some(&self.handle),
                None,
                m,
                json!({"name": name}),
                beyond(&r, &["markdown"]),
            ).await;
            Ok(r.get("markdown")
                .and_then(Value::as_str)
                .map(str::to_string))
        }
    }

    /// The application's session file system: positional arguments reported under the schema's
    /// names; a void method's SessionFSError result returned as the provider's error.
    struct Fs {
        specs: Arc<Specs>,
        handle: String,
    }

    impl Fs {
        fn r(&self, m: &str) -> Value {
            result_of(&self.specs, &format!("sessionFs.{m}"))
        }
        async fn done(&self, m: &str, params: Value, unrep: Vec<String>) {
            report(
                Some(&self.handle),
                None,
                &format!("sessionFs.{m}"),
                params,
                unrep,
            ).await;
        }
        fn fail(&self, m: &str) -> Result<(), FsError> {
            let r = self.r(m);
            let Some(o) = r.as_object() else {
                return Ok(());
            };
            let message = o
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let kind = if o.get("code").and_then(Value::as_str) == Some("ENOENT") {
                FsErrorKind::NotFound(message.clone())
            } else {
                FsErrorKind::Other
            };
            Err(FsError::with_message(kind, message))
        }
        fn sql(r: &Value) -> SessionFsSqliteQueryResult {
            let mut out = SessionFsSqliteQueryResult::default();
            // The fields as the application sets them (src/byname.rs), not through serde.
            out.columns = crate::byname::build(r.get("columns").unwrap_or(&json!([]))).unwrap_or_default();
            out.rows = crate::byname::build(r.get("rows").unwrap_or(&json!([]))).unwrap_or_default();
            out.rows_affected = r
                .get("rowsAffected")
                .and_then(Value::as_i64)
                .unwrap_or_default();
            out.last_insert_rowid = r.get("lastInsertRowid").and_then(Value::as_i64);
            out
        }
    }

    fn with_mode(mut v: Value, mode: Option<i64>) -> Value {
        if let Some(m) = mode {
            v["mode"] = json!(m);
        }
        v
    }

    #[async_trait]
    impl SessionFsProvider for Fs {
        async fn read_file(&self, path: &str) -> Result<String, FsError> {
            let r = self.r("readFile");
            self.done("readFile", json!({"path": path}), beyond(&r, &["content"])).await;
            Ok(r.get("content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string())
        }
        async fn write_file(
            &self,
            path: &str,
            content: &str,
            mode: Option<i64>,
        ) -> Result<(), FsError> {
            self.done(
                "writeFile",
                with_mode(json!({"path": path, "content": content}), mode),
                Vec::new(),
            ).await;
            self.fail("writeFile")
        }
        async fn append_file(
            &self,
            path: &str,
            content: &str,
            mode: Option<i64>,
        ) -> Result<(), FsError> {
            self.done(
                "appendFile",
                with_mode(json!({"path": path, "content": content}), mode),
                Vec::new(),
            ).await;
            self.fail("appendFile")
        }
        async fn exists(&self, path: &str) -> Result<bool, FsError> {
            let r = self.r("exists");
            self.done("exists", json!({"path": path}), beyond(&r, &["exists"])).await;
            Ok(r.get("exists").and_then(Value::as_bool).unwrap_or_default())
        }
        async fn stat(&self, path: &str) -> Result<FileInfo, FsError> {
            let r = self.r("stat");
            self.done(
                "stat",
                json!({"path": path}),
                beyond(&r, &["isFile", "isDirectory", "size", "mtime", "birthtime"]),
            ).await;
            let s = |k: &str| {
                r.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            Ok(FileInfo::new(
                r.get("isFile").and_then(Value::as_bool).unwrap_or_default(),
                r.get("isDirectory")
                    .and_then(Value::as_bool)
                    .unwrap_or_default(),
                r.get("size").and_then(Value::as_i64).unwrap_or_default(),
                s("mtime"),
                s("birthtime"),
            ))
        }
        async fn mkdir(
            &self,
            path: &str,
            recursive: bool,
            mode: Option<i64>,
        ) -> Result<(), FsError> {
            self.done(
                "mkdir",
                with_mode(json!({"path": path, "recursive": recursive}), mode),
                Vec::new(),
            ).await;
            self.fail("mkdir")
        }
        async fn readdir(&self, path: &str) -> Result<Vec<String>, FsError> {
            let r = self.r("readdir");
            self.done("readdir", json!({"path": path}), beyond(&r, &["entries"])).await;
            Ok(crate::byname::build(r.get("entries").unwrap_or(&json!([]))).unwrap_or_default())
        }
        async fn readdir_with_types(&self, path: &str) -> Result<Vec<DirEntry>, FsError> {
            let r = self.r("readdirWithTypes");
            self.done(
                "readdirWithTypes",
                json!({"path": path}),
                beyond(&r, &["entries"]),
            ).await;
            let entries = r
                .get("entries")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            Ok(entries
                .iter()
                .map(|e| {
                    let kind = if e.get("type").and_then(Value::as_str) == Some("directory") {
                        DirEntryKind::Directory
                    } else {
                        DirEntryKind::File
                    };
                    DirEntry::new(
                        e.get("name").and_then(Value::as_str).unwrap_or_default(),
                        kind,
                    )
                })
                .collect())
        }
        async fn rm(&self, path: &str, recursive: bool, force: bool) -> Result<(), FsError> {
            self.done(
                "rm",
                json!({"path": path, "recursive": recursive, "force": force}),
                Vec::new(),
            ).await;
            self.fail("rm")
        }
        async fn rename(&self, src: &str, dest: &str) -> Result<(), FsError> {
            self.done("rename", json!({"src": src, "dest": dest}), Vec::new()).await;
            self.fail("rename")
        }
        fn sqlite(&self) -> Option<&dyn SessionFsSqliteProvider> {
            Some(self)
        }
    }

    #[async_trait]
    impl SessionFsSqliteProvider for Fs {
        async fn sqlite_query(
            &self,
            query_type: SessionFsSqliteQueryType,
            query: &str,
            params: Option<&HashMap<String, Value>>,
        ) -> Result<Option<SessionFsSqliteQueryResult>, FsError> {
            let r = self.r("sqliteQuery");
            let mut input = json!({"queryType": serde_json::to_value(&query_type).unwrap_or(Value::Null), "query": query});
            if let Some(p) = params {
                input["params"] = serde_json::to_value(p).unwrap_or(Value::Null);
            }
            self.done(
                "sqliteQuery",
                input,
                beyond(&r, &["columns", "rows", "rowsAffected", "lastInsertRowid"]),
            ).await;
            Ok(Some(Fs::sql(&r)))
        }
        async fn sqlite_transaction(
            &self,
            statements: &[SessionFsSqliteTransactionStatement],
        ) -> Result<Vec<SessionFsSqliteQueryResult>, SessionFsSqliteTransactionError> {
            let r = self.r("sqliteTransaction");
            let results = r
                .get("results")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut unrep = beyond(&r, &["results"]);
            for (i, s) in results.iter().enumerate() {
                unrep.extend(
                    beyond(s, &["columns", "rows", "rowsAffected", "lastInsertRowid"])
                        .into_iter()
                        .map(|p| format!("/results/{i}{p}")),
                );
            }
            self.done(
                "sqliteTransaction",
                json!({"statements": serde_json::to_value(statements).unwrap_or(Value::Null)}),
                unrep,
            ).await;
            Ok(results.iter().map(Fs::sql).collect())
        }
        async fn sqlite_exists(&self) -> Result<bool, FsError> {
            let r = self.r("sqliteExists");
            self.done("sqliteExists", json!({}), beyond(&r, &["exists"])).await;
            Ok(r.get("exists").and_then(Value::as_bool).unwrap_or_default())
        }
    }
}

#[cfg(sdk_handlers)]
pub use imp::{for_client, for_create, for_resume};

#[cfg(not(sdk_handlers))]
mod none {
    use super::*;
    use github_copilot_sdk::{ClientOptions, ResumeSessionConfig, SessionConfig};

    fn all(specs: Option<&Specs>) -> Option<Value> {
        let specs = specs?;
        let mut unhandled = Map::new();
        for m in specs.keys() {
            unhandled.insert(m.clone(), json!(format!(
                "driver: {SDK_NAME} {SDK_VERSION} lacks part of the handler API the driver is written against (SessionFsProvider, CanvasHandler, GitHubTokenProvider, SkillProvider, ExtensionLaunchProvider, BearerTokenProvider, with_on_github_telemetry), so the driver registers no runtime->SDK handler on it"
            )));
        }
        Some(account(Vec::new(), unhandled))
    }
    pub fn for_client(
        o: ClientOptions,
        specs: Option<&Specs>,
        _client: &str,
    ) -> (ClientOptions, Option<Value>) {
        (o, all(specs))
    }
    pub fn for_create(
        c: SessionConfig,
        specs: Option<&Specs>,
        _h: &str,
    ) -> (SessionConfig, Option<Value>) {
        (c, all(specs))
    }
    pub fn for_resume(
        c: ResumeSessionConfig,
        specs: Option<&Specs>,
        _h: &str,
    ) -> (ResumeSessionConfig, Option<Value>) {
        (c, all(specs))
    }
}

#[cfg(not(sdk_handlers))]
pub use none::{for_client, for_create, for_resume};
