//! Tests of the build scripts' generators on small crates written here: what they read from a
//! crate's source (build_syntax.rs) and what they write from it (build_rpc.rs, build_byname.rs).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::build_syntax::{self, Origin, Sdk};
use crate::{build_byname, build_rpc};

/// A crate folder under the temporary directory holding `files` (path under `src/`, text).
pub(crate) fn write_crate(files: &[(&str, &str)]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "rust-buildtests-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join("src").join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// The generators run on a crate: (rpc_dispatch.rs, byname.rs).
fn generate(dir: &Path, driver_src: &str) -> (String, String) {
    let sdk = Sdk::read(Some(&dir.join("src")));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let requests = build_rpc::generate(sdk.rpc.as_ref(), &build_byname::deserializable(&sdk), &out.join("rpc_dispatch.rs"));
    let owners: Vec<&str> = build_byname::REQUEST_OWNERS.iter().map(|r| r.1).collect();
    build_byname::generate(&sdk, &requests, driver_src, &owners, &out.join("byname.rs"));
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
    let got = (read("rpc_dispatch.rs"), read("byname.rs"));
    let _ = std::fs::remove_dir_all(dir);
    got
}

const RPC: &str = r#"
use super::api_types::*;
use super::session_events::{SessionMode};

pub struct ClientRpc<'a> { client: &'a Client }

impl<'a> ClientRpc<'a> {
    /// The account namespace.
    pub fn account(&self) -> ClientRpcAccount<'a> {
        ClientRpcAccount { client: self.client }
    }
}

impl<'a> ClientRpcAccount<'a> {
    /// Reads the quota.
    ///
    /// Wire method: `account.getQuota`.
    pub async fn get_quota(&self, params: AccountGetQuotaRequest) -> Result<AccountGetQuotaResult, Error> {
        todo!()
    }

    /// Wire method: `account.internal`.
    pub(crate) async fn internal(&self, params: AccountGetQuotaRequest) -> Result<(), Error> {
        todo!()
    }

    /// Wire method: `account.logout`.
    pub async fn logout(&self) -> Result<(), Error> {
        todo!()
    }
}
"#;

const MOD_RS: &str = "pub mod api_types;\npub mod rpc;\npub mod session_events;\npub use session_events::*;\n";

/// The api types of RPC, on one file, laid out as rustfmt writes them.
const API_TYPES: &str = r#"
use serde::{Deserialize, Serialize};

/// Asks for the quota.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountGetQuotaRequest {
    /// Which quota.
    #[serde(
        rename = "quota_kind",
        skip_serializing_if = "Option::is_none"
    )]
    pub quota_kind: Option<QuotaKind>,
    pub names: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum QuotaKind {
    #[serde(rename = "chat")]
    Chat,
    Premium,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AccountGetQuotaResult {}
"#;

/// The same declarations, formatted otherwise (one line each): a parser reads them the same.
const API_TYPES_ONE_LINE: &str = r#"use serde::{Deserialize, Serialize};
/// Asks for the quota.
#[derive(Debug, Clone, Default, Serialize, Deserialize)] #[serde(rename_all = "camelCase")] pub struct AccountGetQuotaRequest { #[serde(rename = "quota_kind", skip_serializing_if = "Option::is_none")] pub quota_kind: Option<QuotaKind>, pub names: Vec<String> }
#[derive(Debug, Clone, Serialize, Deserialize)] pub enum QuotaKind { #[serde(rename = "chat")] Chat, Premium }
#[derive(Debug, Clone, Default, Serialize, Deserialize)] pub struct AccountGetQuotaResult {}
"#;

#[test]
fn dispatch_has_the_public_calls_by_wire_method() {
    let dir = write_crate(&[
        ("lib.rs", "pub mod types;\n"),
        ("types.rs", ""),
        ("generated/mod.rs", MOD_RS),
        ("generated/api_types.rs", API_TYPES),
        ("generated/session_events.rs", ""),
        ("generated/rpc.rs", RPC),
    ]);
    let (dispatch, _) = generate(&dir, "");
    assert!(dispatch.contains(r#""account.getQuota" => match typed!(AccountGetQuotaRequest, params) {"#), "{dispatch}");
    assert!(dispatch.contains("finish(rpc.account().get_quota(req).await, lost)"), "{dispatch}");
    assert!(dispatch.contains(r#""account.logout" => finish(rpc.account().logout().await, untyped(params)),"#), "{dispatch}");
    assert!(!dispatch.contains("account.internal"), "a pub(crate) call is not public API: {dispatch}");
    assert!(dispatch.contains("use crate::compat::generated::session_events::{SessionMode};"), "{dispatch}");
    assert!(dispatch.contains(r#"pub(crate) const CLIENT_METHODS: &[&str] = &["account.getQuota", "account.logout"];"#), "{dispatch}");
}

#[test]
fn builders_do_not_depend_on_the_layout() {
    let files = |api: &'static str| {
        write_crate(&[
            ("lib.rs", ""),
            ("generated/mod.rs", MOD_RS),
            ("generated/api_types.rs", api),
            ("generated/session_events.rs", ""),
            ("generated/rpc.rs", RPC),
        ])
    };
    // The driver's source names the result type: a builder root.
    let (d1, b1) = generate(&files(API_TYPES), "AccountGetQuotaResult");
    let (d2, b2) = generate(&files(API_TYPES_ONE_LINE), "AccountGetQuotaResult");
    assert_eq!(d1, d2);
    assert_eq!(b1, b2);
    // The attribute spread over lines is read: the field is skipped when None, and also found
    // under its rename; the variant under its rename too.
    assert!(b1.contains(r#"quota_kind: take(m, "quotakind", p, b, Skip::None)?,"#), "{b1}");
    assert!(b1.contains(r#"names: take(m, "names", p, b, Skip::Never)?,"#), "{b1}");
    assert!(b1.contains(r#""chat" => Self::Chat,"#), "{b1}");
    // An empty braced struct is a struct with no fields, built by name (not serde's).
    assert!(b1.contains("impl ByName for AccountGetQuotaResult"), "{b1}");
    assert!(b1.contains("pub(crate) const SERDE_TYPES: &[&str] = &[];"), "{b1}");
}

/// 1.0.29-preview.4's layout: `generated/mod.rs` reads `api_types` from a facade file that
/// re-exports, by name, from a module whose declarations are in other files (`#[path]`).
#[test]
fn a_generated_module_split_into_files_is_read_whole() {
    let dir = write_crate(&[
        ("lib.rs", ""),
        (
            "generated/mod.rs",
            "#[path = \"api_facade.rs\"]\npub mod api_types;\npub mod rpc;\n#[path = \"event_facade.rs\"]\npub mod session_events;\n",
        ),
        (
            "generated/api_facade.rs",
            "#[path = \"api_types.rs\"]\nmod payloads;\npub use payloads::{AccountGetQuotaRequest, AccountGetQuotaResult, QuotaKind, CanvasAction, AbortReason};\npub(crate) use payloads::Hidden;\n",
        ),
        (
            "generated/api_types.rs",
            "pub use super::session_events::{AbortReason};\n#[path = \"api_domain_shared.rs\"]\nmod sdk_api_shared;\npub use sdk_api_shared::{AccountGetQuotaRequest, AccountGetQuotaResult, QuotaKind, CanvasAction, Hidden};\n",
        ),
        (
            "generated/api_domain_shared.rs",
            &format!("{API_TYPES}\n#[derive(Default, Deserialize)]\npub struct CanvasAction {{ pub name: String }}\n#[derive(Default, Deserialize)]\npub struct Hidden {{ pub x: String }}\n"),
        ),
        ("generated/event_facade.rs", "#[path = \"session_events.rs\"]\nmod payloads;\npub use payloads::*;\n"),
        ("generated/session_events.rs", "#[derive(Deserialize)]\npub enum AbortReason { UserAbort }\n"),
        ("generated/rpc.rs", RPC),
    ]);
    let sdk = Sdk::read(Some(&dir.join("src")));
    let public = sdk.api.as_ref().unwrap().public();
    assert!(matches!(public.get("CanvasAction"), Some(Origin::File(_))), "{public:?}");
    assert_eq!(public.get("AbortReason"), Some(&Origin::Foreign("super::session_events".into())));
    assert_eq!(public.get("Hidden"), None, "a pub(crate) re-export is not public");
    let (dispatch, byname) = generate(&dir, "fn f() { by_name!(CanvasAction, &v) }");
    assert!(dispatch.contains("typed!(AccountGetQuotaRequest, params)"), "{dispatch}");
    assert!(byname.contains("impl ByName for CanvasAction {"), "{byname}");
    assert!(byname.contains("impl ByName for AccountGetQuotaRequest {"), "{byname}");
    assert!(!byname.contains("impl ByName for Hidden"), "the driver cannot name it: {byname}");
}

#[test]
fn serde_attributes_are_read() {
    let item: syn::ItemStruct = syn::parse_str(
        r#"struct S {
            #[serde(rename(serialize = "out", deserialize = "in"), alias = "other", default)]
            #[serde(skip_serializing_if = "Vec::is_empty", flatten)]
            a: Vec<u8>,
            #[serde(default = "f", unknown_key = "x", with = "y")]
            b: u8,
        }"#,
    )
    .unwrap();
    let a = build_syntax::serde(&item.fields.iter().next().unwrap().attrs);
    assert_eq!(a.rename.as_deref(), Some("out"));
    assert_eq!(a.aliases, vec!["in".to_string(), "other".to_string()]);
    assert_eq!(a.skip_if.as_deref(), Some("Vec::is_empty"));
    assert!(a.default && a.flatten);
    let b = build_syntax::serde(&item.fields.iter().nth(1).unwrap().attrs);
    assert!(b.default);
    assert_eq!(b.rename, None);
}

#[test]
fn types_print_as_rustfmt_writes_them() {
    for (src, want) in [
        ("Option < Vec < String > >", "Option<Vec<String>>"),
        ("HashMap<String,serde_json::Value>", "HashMap<String, serde_json::Value>"),
        ("crate :: generated :: api_types :: X", "crate::generated::api_types::X"),
        ("Arc<dyn Fn(&str) -> bool + Send + Sync>", "Arc<dyn Fn(&str) -> bool + Send + Sync>"),
        ("impl Into<String>", "impl Into<String>"),
        ("&'a str", "&'a str"),
        ("Vec<(OsString, OsString)>", "Vec<(OsString, OsString)>"),
    ] {
        let ty: syn::Type = syn::parse_str(src).unwrap();
        assert_eq!(build_syntax::type_string(&ty), want, "{src}");
    }
}

#[test]
fn use_trees_are_read_whole() {
    let u: syn::ItemUse = syn::parse_str("pub use a::b::{C, d::{E, F}, g::*, H as I};").unwrap();
    let got: BTreeSet<(String, String)> = build_syntax::use_names(&u.tree).into_iter().collect();
    let want: BTreeSet<(String, String)> = [("a::b", "C"), ("a::b::d", "E"), ("a::b::d", "F"), ("a::b::g", "*")]
        .into_iter()
        .map(|(p, n)| (p.to_string(), n.to_string()))
        .collect();
    assert_eq!(got, want);
}

/// build_hooks.rs: each HookEvent variant's input declared under the keys serde reads (a rename,
/// else the struct's rename_all), Option as optional, a non-plain type left out; the output built
/// field by field from its Default.
#[test]
fn hooks_are_read_from_hooks_rs() {
    let dir = write_crate(&[(
        "hooks.rs",
        r#"
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseInput {
    pub session_id: String,
    pub timestamp: f64,
    #[serde(rename = "cwd")]
    pub working_directory: PathBuf,
    pub tool_args: Value,
    pub stop_reason: Option<String>,
    pub odd: crate::Odd,
}
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreToolUseOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<String>,
}
pub enum HookEvent { PreToolUse { input: PreToolUseInput, ctx: HookContext } }
pub enum HookOutput { None, PreToolUse(PreToolUseOutput) }
"#,
    )]);
    let out = dir.join("hooks_gen.rs");
    crate::build_hooks::generate(Some(&dir.join("src")), &out);
    let code = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    for (wire, shape, optional) in [
        ("sessionId", "string", false),
        ("timestamp", "number", false),
        ("cwd", "string", false),
        ("toolArgs", "any", false),
        ("stopReason", "string", true),
    ] {
        let want = format!("\"wire\":\"{wire}\",");
        let at = code.find(&want).unwrap_or_else(|| panic!("{wire} not declared: {code}"));
        let rest = &code[at..];
        assert!(rest.contains(&format!("\"shape\":\"{shape}\",\"optional\":{optional}")), "{wire}: {rest}");
    }
    assert!(!code.contains("\"wire\":\"odd\""), "a non-plain type is left out: {code}");
    assert!(code.contains("HookEvent::PreToolUse { input, ctx }"), "{code}");
    assert!(code.contains("if let Some(v) = &input.stop_reason"), "{code}");
    assert!(code.contains("\"permissionDecision\" => if v.is_null()"), "{code}");
    assert!(code.contains("pub const HOOK_EVENTS: bool = true;"));
}

/// `convert`'s table: every struct and data enum of the generated modules that serde both writes
/// and reads, found in the source (not named by the driver), round-tripped where built by name
/// and otherwise answered with why; unit enums (strings on the wire) and types serde only reads
/// are not in it.
#[test]
fn convert_covers_every_serde_type_of_the_generated_modules() {
    let events = r#"
use serde::{Deserialize, Serialize};
#[derive(Serialize, Deserialize)]
pub struct AbortData { pub reason: String }
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
pub enum PromptRequest { A(AbortData), B(String) }
#[derive(Serialize, Deserialize)]
pub enum Mode { Plan, Chat }
#[derive(Serialize, Deserialize)]
pub struct Sealed { pub name: String, secret: String }
#[derive(Deserialize)]
pub struct ReadOnly { pub x: String }
"#;
    let dir = write_crate(&[
        ("lib.rs", ""),
        ("generated/mod.rs", "pub mod api_types;\npub mod rpc;\npub mod session_events;\n"),
        ("generated/api_types.rs", &format!("pub use super::session_events::{{Mode}};\n{API_TYPES}")),
        ("generated/session_events.rs", events),
        ("generated/rpc.rs", RPC),
    ]);
    let (_, byname) = generate(&dir, "");
    for ty in ["AccountGetQuotaRequest", "AccountGetQuotaResult"] {
        assert!(byname.contains(&format!("{ty:?} => crate::convert::roundtrip::<{ty}>(v),")), "{ty}: {byname}");
    }
    // A session-event type the api types do not re-export: named by its module's path.
    assert!(
        byname.contains(r#""AbortData" => crate::convert::roundtrip::<crate::compat::generated::session_events::AbortData>(v),"#),
        "{byname}"
    );
    assert!(byname.contains(r#""PromptRequest" => crate::convert::not_by_name("PromptRequest", "a tagged or untagged union"),"#), "{byname}");
    assert!(byname.contains(r#""Sealed" => crate::convert::not_by_name("Sealed", "private fields with neither Default nor a new(…) of its fields"),"#), "{byname}");
    for absent in ["\"Mode\" =>", "\"QuotaKind\" =>", "\"ReadOnly\" =>"] {
        assert!(!byname.contains(absent), "{absent}: {byname}");
    }
    assert!(byname.contains("pub(crate) const CONVERT_TYPES: (usize, usize) = (3, 5);"), "{byname}");
}

/// A crate without generated modules has nothing to convert: the capability is false.
#[test]
fn convert_is_empty_without_generated_modules() {
    let dir = write_crate(&[("lib.rs", "pub mod types;\n"), ("types.rs", "")]);
    let (_, byname) = generate(&dir, "");
    assert!(byname.contains("pub(crate) const CONVERT_TYPES: (usize, usize) = (0, 0);"), "{byname}");
}
