//! The SDK crate's declarations read with the parser (build_syntax.rs) for build.rs: which of the
//! APIs the driver uses the crate has (`PROBES`, one cfg each), which fields of its config structs
//! it declares (`FIELDS`), and the index of its structs, enums, aliases, impls and traits that
//! the surface and request generators (build_surface.rs) read. Every `.rs` file of the crate's
//! `src/` is parsed, items inside inline modules too; nothing depends on how rustfmt laid a
//! release out (a signature spread over lines, a `#[serde(…)]` over several).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::{Attribute, FnArg, ImplItem, Item, ReturnType, TraitItem, Visibility};

use crate::build_syntax::{self as syntax, Serde};

/// What the crate must declare for a cfg: each written as Rust, compared by the parser.
pub enum Need {
    /// A `pub struct`, `pub enum`, `pub trait` or `pub type` of this name.
    Decl(&'static str),
    /// (owner, signature): a method of `impl Owner` (public) or of `trait Owner` (any function
    /// for ""), written as a trait method (`fn name(params) -> R;`, `async` when it must be):
    /// its parameters a consecutive run of the method's, its return type (when written) the
    /// method's; types compared token by token.
    Fn(&'static str, &'static str),
    /// (enum, variant).
    Variant(&'static str, &'static str),
    /// (trait, type): derived or implemented.
    Impl(&'static str, &'static str),
    /// `pub use <path>;`
    Use(&'static str),
    /// A `const` of this name.
    Const(&'static str),
}

use Need::{Decl, Fn, Impl, Use, Variant};

/// cfg name and what the crate must declare for it: the APIs the driver uses that some releases
/// lack (src/compat.rs, src/callbacks.rs, src/handlers.rs, src/requests.rs are written against
/// the signatures here).
pub const PROBES: &[(&str, &[Need])] = &[
    // Older releases have no order-preserving maps (and no re-export to name them by).
    ("sdk_indexmap", &[Use("indexmap::IndexMap")]),
    ("sdk_tool_is_terminal", &[Fn("Tool", "fn with_is_terminal();")]),
    ("sdk_tool_metadata", &[Fn("Tool", "fn with_metadata(mut self, metadata: IndexMap<String, Value>);")]),
    ("sdk_tool_defer", &[Fn("Tool", "fn with_defer();"), Decl("DeferMode")]),
    (
        "sdk_client_info",
        &[Fn("ClientOptions", "fn with_client_info();"), Fn("ClientInfo", "fn with_integration_version();")],
    ),
    ("sdk_github_telemetry", &[Fn("ClientOptions", "fn with_on_github_telemetry();")]),
    ("sdk_set_tools", &[Fn("Session", "async fn set_tools();")]),
    ("sdk_clear_context", &[Decl("HistoryClearContextRequest"), Fn("", "async fn clear_context();")]),
    ("sdk_rpc_tools_set", &[Decl("ToolsSetRequest"), Need::Const("SESSION_TOOLS_SET")]),
    (
        "sdk_prepare_session",
        &[Fn("Client", "fn prepare_session();"), Fn("Client", "fn prepare_resume_session();")],
    ),
    ("sdk_typed_events", &[Decl("SessionEventData")]),
    ("sdk_error_kind", &[Decl("ErrorKind"), Decl("RecvErrorKind")]),
    // Error::rpc_data(): the JSON-RPC error's data (1.0.27 on).
    ("sdk_rpc_data", &[Fn("Error", "fn rpc_data(&self) -> Option<&Value>;")]),
    ("sdk_handler_traits", &[Decl("PermissionHandler"), Decl("UserInputHandler")]),
    // A tool handler the SDK awaits as a future: dropping it is how the SDK tells the handler its
    // call was resolved (capability handler.cancel.tool; holds.rs ToldOnDrop).
    ("sdk_tool_call_async", &[Fn("ToolHandler", "async fn call(&self, invocation: ToolInvocation);")]),
    // 1.0.29 previews hand UserInputHandler and ExitPlanModeHandler the request's id too.
    (
        "sdk_user_input_request_id",
        &[Fn("UserInputHandler", "fn handle(request_id: Option<RequestId>, question: String);")],
    ),
    (
        "sdk_exit_plan_request_id",
        &[Fn("ExitPlanModeHandler", "fn handle(request_id: Option<RequestId>, data: ExitPlanModeData);")],
    ),
    // The handler traits src/callbacks.rs implements with a callback that does nothing (each with
    // the signature written there; the traits every release has need no probe).
    ("sdk_cb_permission", &[Decl("PermissionHandler"), Variant("PermissionResult", "NoResult")]),
    ("sdk_cb_mcp_auth", &[Decl("McpAuthHandler"), Decl("McpAuthResult")]),
    ("sdk_cb_exit_plan_mode", &[Decl("ExitPlanModeHandler"), Impl("Default", "ExitPlanModeResult")]),
    ("sdk_cb_auto_mode_switch", &[Decl("AutoModeSwitchHandler")]),
    (
        "sdk_cb_canvas",
        // 1.0.0-beta.7's on_open takes a CanvasOpenContext: not the signature written there.
        &[
            Decl("CanvasHandler"),
            Decl("CanvasResult"),
            Fn("CanvasHandler", "fn on_open(ctx: crate::generated::api_types::CanvasProviderOpenRequest);"),
        ],
    ),
    ("sdk_cb_skill_provider", &[Decl("SkillProvider"), Fn("SkillProvider", "async fn read_skill(&self, name: &str);")]),
    ("sdk_cb_github_token_provider", &[Decl("GitHubTokenProvider"), Decl("GitHubTokenProviderResult")]),
    ("sdk_cb_command_definition", &[COMMAND_NEW]),
    // connect's requestHandler (src/requests.rs): the option, the trait with both methods as
    // written there, and the response constructor.
    (
        "sdk_request_handler",
        &[
            Fn("ClientOptions", "fn with_request_handler();"),
            Decl("CopilotRequestHandler"),
            Fn("CopilotRequestHandler", "async fn send_request(&self, request: CopilotHttpRequest);"),
            Fn(
                "CopilotRequestHandler",
                "async fn open_websocket(&self, ctx: &CopilotRequestContext, response: CopilotWebSocketResponse);",
            ),
            Decl("CopilotRequestContext"),
            Fn(
                "CopilotHttpResponse",
                "fn new(status: u16, status_text: Option<String>, headers: HeaderMap, body: CopilotHttpResponseBody) -> Self;",
            ),
        ],
    ),
    // The runtime-to-SDK handler API src/handlers.rs is written against.
    (
        "sdk_handlers",
        &[
            Decl("SessionFsProvider"),
            Decl("SessionFsSqliteProvider"),
            Decl("CanvasHandler"),
            Decl("GitHubTokenProvider"),
            Decl("SkillProvider"),
            Decl("ExtensionLaunchProvider"),
            Decl("BearerTokenProvider"),
            Fn("ClientOptions", "fn with_on_github_telemetry();"),
            Fn("", "fn with_skill_provider();"),
            Fn("", "fn with_github_token_provider();"),
            Fn("ClientOptions", "fn with_extension_launch_provider();"),
            Fn("", "fn with_bearer_token_provider();"),
        ],
    ),
];

/// `CommandDefinition::new`, which takes the command's handler: a definition the driver builds from
/// an object starts from it with a callback that does nothing (src/callbacks.rs).
pub const COMMAND_NEW: Need =
    Fn("CommandDefinition", "fn new(name: impl Into<String>, handler: Arc<dyn CommandHandler>);");

/// Fields the driver sets, per (cfg prefix, struct). Unlisted fields are never probed.
pub const FIELDS: &[(&str, &str, &[&str])] = &[
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

/// A public struct or enum of the crate.
pub struct TypeDecl {
    /// Index of the file declaring it in `Api::files`.
    pub file: usize,
    pub item: Item,
}

/// A public field of a struct with named fields.
pub struct Member {
    pub name: String,
    /// As Rust source (build_syntax::type_string).
    pub ty: String,
    pub serde: Serde,
    /// Behind a `#[cfg(…)]`: it may not exist in this build.
    pub cfg: bool,
}

impl TypeDecl {
    pub fn is_enum(&self) -> bool {
        matches!(self.item, Item::Enum(_))
    }

    pub fn attrs(&self) -> &[Attribute] {
        match &self.item {
            Item::Struct(s) => &s.attrs,
            Item::Enum(e) => &e.attrs,
            _ => &[],
        }
    }

    /// Whether `#[derive(…)]` names the trait.
    pub fn derives(&self, name: &str) -> bool {
        syntax::derives(self.attrs()).iter().any(|d| d == name)
    }

    pub fn serde(&self) -> Serde {
        syntax::serde(self.attrs())
    }

    /// The `pub` fields of a struct with named fields (none for anything else).
    pub fn members(&self) -> Vec<Member> {
        let Item::Struct(s) = &self.item else { return Vec::new() };
        let syn::Fields::Named(named) = &s.fields else { return Vec::new() };
        named
            .named
            .iter()
            .filter(|f| matches!(f.vis, Visibility::Public(_)))
            .map(|f| Member {
                name: f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                ty: syntax::type_string(&f.ty),
                serde: syntax::serde(&f.attrs),
                cfg: syntax::has_attr(&f.attrs, "cfg"),
            })
            .collect()
    }

    /// The enum's variants: (variant, its one unnamed field's type, its attributes); the type is
    /// "" for a unit variant and None for any other form.
    pub fn variants(&self) -> Vec<(String, Option<String>, &[Attribute])> {
        let Item::Enum(e) = &self.item else { return Vec::new() };
        e.variants
            .iter()
            .map(|v| {
                let ty = match &v.fields {
                    syn::Fields::Unit if v.discriminant.is_none() => Some(String::new()),
                    syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => Some(syntax::type_string(&u.unnamed[0].ty)),
                    _ => None,
                };
                (v.ident.to_string(), ty, v.attrs.as_slice())
            })
            .collect()
    }

    /// A unit enum's variants as (variant, serde name under its rename / rename_all), in order;
    /// None for an enum with a variant of another form.
    pub fn unit_variants(&self) -> Option<Vec<(String, String, Serde)>> {
        let rule = self.serde().rename_all;
        self.variants()
            .into_iter()
            .map(|(v, ty, attrs)| {
                if ty.as_deref() != Some("") {
                    return None;
                }
                let s = syntax::serde(attrs);
                let name = s.rename.clone().unwrap_or_else(|| serde_case(&v, rule.as_deref()));
                Some((v, name, s))
            })
            .collect()
    }
}

/// A snake_case field or PascalCase variant name under serde's `rename_all` rule.
pub fn serde_case(name: &str, rule: Option<&str>) -> String {
    let words: Vec<String> = if name.contains('_') || name.chars().all(|c| !c.is_uppercase()) {
        name.split('_').filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
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
        c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
    };
    match rule {
        None => name.to_string(),
        Some("lowercase") => name.to_lowercase(),
        Some("UPPERCASE") => name.to_uppercase(),
        Some("camelCase") => words.iter().enumerate().map(|(i, w)| if i == 0 { w.clone() } else { cap(w) }).collect(),
        Some("PascalCase") => words.iter().map(cap).collect(),
        Some("snake_case") => words.join("_"),
        Some("SCREAMING_SNAKE_CASE") => words.join("_").to_uppercase(),
        Some("kebab-case") => words.join("-"),
        Some("SCREAMING-KEBAB-CASE") => words.join("-").to_uppercase(),
        Some(_) => name.to_string(),
    }
}

/// An `impl` block: its trait's last segment (None for an inherent one), the item.
pub struct ImplBlock {
    pub of_trait: Option<String>,
    pub item: syn::ItemImpl,
}

/// Every `.rs` file of the crate's `src/`, parsed, and its declarations by name. Hand-written
/// files come before generated ones (`generated/…`: the generated wire types reuse some names),
/// each group in path order.
#[derive(Default)]
pub struct Api {
    /// Each file's path relative to `src/` (a declaration's `file` indexes it).
    pub files: Vec<String>,
    /// lib.rs's `mod` and `use` items (None: no lib.rs).
    lib: Option<Vec<Item>>,
    /// The public free functions.
    free: Vec<syn::Signature>,
    types: HashMap<String, Vec<usize>>,
    decls: Vec<TypeDecl>,
    /// `pub type` name -> the type it stands for.
    aliases: HashMap<String, String>,
    pub impls: Vec<ImplBlock>,
    traits: HashMap<String, syn::ItemTrait>,
    /// `pub struct`, `pub enum`, `pub trait`, `pub type` names, any generics.
    names: BTreeSet<String>,
    uses: BTreeSet<String>,
    consts: BTreeSet<String>,
}

impl Api {
    /// Parses every `.rs` file under `src` (None or no file: an empty index).
    pub fn read(src: Option<&Path>) -> Api {
        let mut paths = Vec::new();
        if let Some(src) = src {
            rs_files(src, src, &mut paths);
        }
        let (hand, generated): (Vec<_>, Vec<_>) = paths.into_iter().partition(|(rel, _)| !rel.contains("generated"));
        let mut api = Api::default();
        // Each file's items are moved into the index (the crate's source is megabytes of syntax).
        for (rel, path) in hand.into_iter().chain(generated) {
            let Some(file) = syntax::parse(&path) else { continue };
            if rel == "lib.rs" {
                api.lib = Some(file.items.iter().filter(|it| matches!(it, Item::Mod(_) | Item::Use(_))).cloned().collect());
            }
            api.files.push(rel);
            api.index(api.files.len() - 1, file.items);
        }
        api
    }

    fn index(&mut self, file: usize, items: Vec<Item>) {
        for item in items {
            let public = |v: &Visibility| matches!(v, Visibility::Public(_));
            match &item {
                Item::Struct(s) if public(&s.vis) => {
                    self.names.insert(s.ident.to_string());
                    if s.generics.params.is_empty() {
                        self.add_type(s.ident.to_string(), file, item);
                    }
                }
                Item::Enum(e) if public(&e.vis) => {
                    self.names.insert(e.ident.to_string());
                    if e.generics.params.is_empty() {
                        self.add_type(e.ident.to_string(), file, item);
                    }
                }
                Item::Fn(f) if public(&f.vis) => self.free.push(f.sig.clone()),
                Item::Type(t) if public(&t.vis) => {
                    self.names.insert(t.ident.to_string());
                    self.aliases.entry(t.ident.to_string()).or_insert_with(|| syntax::type_string(&t.ty));
                }
                Item::Trait(t) if public(&t.vis) => {
                    self.names.insert(t.ident.to_string());
                    if !self.traits.contains_key(&t.ident.to_string()) {
                        let Item::Trait(t) = item else { unreachable!() };
                        self.traits.insert(t.ident.to_string(), t);
                    }
                }
                Item::Impl(i) => {
                    let of_trait = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last()).map(|s| s.ident.to_string());
                    let Item::Impl(item) = item else { unreachable!() };
                    self.impls.push(ImplBlock { of_trait, item });
                }
                Item::Use(u) if public(&u.vis) => {
                    for (path, name) in syntax::use_names(&u.tree) {
                        self.uses.insert(if path.is_empty() { name } else { format!("{path}::{name}") });
                    }
                }
                Item::Const(c) => {
                    self.consts.insert(c.ident.to_string());
                }
                Item::Mod(_) => {
                    let Item::Mod(m) = item else { unreachable!() };
                    if let Some((_, inner)) = m.content {
                        self.index(file, inner);
                    }
                }
                _ => {}
            }
        }
    }

    fn add_type(&mut self, name: String, file: usize, item: Item) {
        self.decls.push(TypeDecl { file, item });
        self.types.entry(name).or_default().push(self.decls.len() - 1);
    }

    /// Whether any file was read: without the source every API is taken to exist.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// lib.rs's `mod` and `use` items; None without a lib.rs.
    pub fn lib(&self) -> Option<&[Item]> {
        self.lib.as_deref()
    }

    /// The first declaration of the public struct or enum `name` (hand-written files first).
    pub fn type_decl(&self, name: &str) -> Option<&TypeDecl> {
        self.types.get(name).and_then(|v| v.first()).map(|&i| &self.decls[i])
    }

    /// Every public (non-generic) struct and enum, in file order.
    pub fn decls(&self) -> impl Iterator<Item = &TypeDecl> {
        self.decls.iter()
    }

    /// The public fields of the struct `name` (hand-written files first) with its file's path.
    pub fn struct_fields(&self, name: &str) -> Option<(String, Vec<Member>)> {
        let d = self.type_decl(name).filter(|d| matches!(&d.item, Item::Struct(s) if matches!(s.fields, syn::Fields::Named(_))))?;
        Some((self.files[d.file].clone(), d.members()))
    }

    /// What `pub type name` stands for.
    pub fn alias(&self, name: &str) -> Option<&str> {
        self.aliases.get(name).map(String::as_str)
    }

    /// Whether the type `name` derives or implements the trait.
    pub fn implements(&self, tr: &str, name: &str) -> bool {
        self.type_decl(name).is_some_and(|d| d.derives(tr))
            || self
                .impls
                .iter()
                .any(|b| b.of_trait.as_deref() == Some(tr) && syntax::self_name(&b.item.self_ty).as_deref() == Some(name))
    }

    /// The inherent `impl name { … }` blocks (no generics), in file order.
    pub fn inherent(&self, name: &str) -> impl Iterator<Item = &ImplBlock> {
        let name = name.to_string();
        self.impls.iter().filter(move |b| {
            b.of_trait.is_none() && b.item.generics.params.is_empty() && syntax::self_name(&b.item.self_ty).as_deref() == Some(name.as_str())
        })
    }

    /// Whether the crate declares what `need` asks for.
    pub fn has(&self, need: &Need) -> bool {
        match need {
            Need::Decl(n) => self.names.contains(*n),
            Need::Use(p) => self.uses.contains(*p),
            Need::Const(n) => self.consts.contains(*n),
            Need::Impl(tr, ty) => self.implements(tr, ty),
            Need::Variant(en, v) => self.types.get(*en).into_iter().flatten().any(|&i| {
                self.decls[i].variants().iter().any(|(name, _, _)| name == v)
            }),
            Need::Fn(owner, sig) => {
                let want: syn::TraitItemFn = match syn::parse_str(sig) {
                    Ok(f) => f,
                    Err(e) => panic!("build_api.rs: a probe's signature `{sig}` does not parse: {e}"),
                };
                self.methods(owner).any(|got| sig_matches(&want.sig, got))
            }
        }
    }

    /// The signatures of the public methods of `impl owner` and of `trait owner` ("" also free
    /// functions and every impl's and trait's).
    fn methods<'a>(&'a self, owner: &'a str) -> impl Iterator<Item = &'a syn::Signature> + 'a {
        let impls = self.impls.iter().filter(move |b| {
            owner.is_empty() || (b.of_trait.is_none() && syntax::self_name(&b.item.self_ty).as_deref() == Some(owner))
        });
        let in_impls = impls.flat_map(|b| {
            let of_trait = b.of_trait.is_some();
            b.item.items.iter().filter_map(move |it| match it {
                ImplItem::Fn(f) if of_trait || matches!(f.vis, Visibility::Public(_)) => Some(&f.sig),
                _ => None,
            })
        });
        let traits = self.traits.iter().filter(move |(n, _)| owner.is_empty() || n.as_str() == owner);
        let in_traits = traits.flat_map(|(_, t)| {
            t.items.iter().filter_map(|it| match it {
                TraitItem::Fn(f) => Some(&f.sig),
                _ => None,
            })
        });
        let free = self.free.iter().filter(move |_| owner.is_empty());
        in_impls.chain(in_traits).chain(free)
    }
}

/// Whether a crate method's signature has what a probe's asks: its name, `async` when asked, the
/// probe's parameters as a consecutive run of its own, and the probe's return type when given.
fn sig_matches(want: &syn::Signature, got: &syn::Signature) -> bool {
    if want.ident != got.ident || (want.asyncness.is_some() && got.asyncness.is_none()) {
        return false;
    }
    let args = |s: &syn::Signature| -> Vec<String> { s.inputs.iter().map(arg_string).collect() };
    let (w, g) = (args(want), args(got));
    let params = w.is_empty() || g.windows(w.len()).any(|run| run == w.as_slice());
    let output = match (&want.output, &got.output) {
        (ReturnType::Default, _) => true,
        (ReturnType::Type(_, a), ReturnType::Type(_, b)) => syntax::type_string(a) == syntax::type_string(b),
        _ => false,
    };
    params && output
}

/// A parameter as Rust source without its attributes.
fn arg_string(a: &FnArg) -> String {
    let mut a = a.clone();
    match &mut a {
        FnArg::Receiver(r) => r.attrs.clear(),
        FnArg::Typed(t) => t.attrs.clear(),
    }
    syntax::tokens_string(quote::ToTokens::to_token_stream(&a))
}

/// Every `.rs` file under `dir` as (path relative to `root`, path), in path order.
fn rs_files(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            rs_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            out.push((rel, path));
        }
    }
}

/// The cfgs `PROBES` and `FIELDS` set for this crate (all of them when its source was not found).
pub fn cfgs(api: &Api) -> Vec<String> {
    let mut out = Vec::new();
    for (cfg, needs) in PROBES {
        if api.is_empty() || needs.iter().all(|n| api.has(n)) {
            out.push(cfg.to_string());
        }
    }
    let facades = api.lib().is_none_or(|l| {
        ["rpc", "session_events"].iter().all(|m| {
            l.iter().any(|it| matches!(it, Item::Mod(x) if x.ident == m && x.content.is_none() && matches!(x.vis, Visibility::Public(_))))
        })
    });
    if facades {
        out.push("sdk_facades".to_string());
    }
    for (prefix, name, fields) in FIELDS {
        let declared: Vec<String> = api
            .struct_fields(name)
            .map(|(_, ms)| ms.into_iter().filter(|m| !m.cfg).map(|m| m.name).collect())
            .unwrap_or_default();
        for field in *fields {
            if api.is_empty() || declared.iter().any(|f| f == field) {
                out.push(format!("{prefix}{field}"));
            }
        }
    }
    out
}

/// Every cfg `cfgs` may set, for `cargo::rustc-check-cfg`.
pub fn all_cfgs() -> Vec<String> {
    let mut out: Vec<String> = PROBES.iter().map(|(c, _)| c.to_string()).collect();
    out.push("sdk_facades".to_string());
    for (prefix, _, fields) in FIELDS {
        out.extend(fields.iter().map(|f| format!("{prefix}{f}")));
    }
    out
}
