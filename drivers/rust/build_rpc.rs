//! Generates the dispatch table behind the `rpc` / `rpcBatch` commands (src/rpc.rs) from the
//! resolved SDK's own `src/generated/rpc.rs`, so the table grows with the crate and no method is
//! listed by hand.
//!
//! The crate's generated layer is a tree of view structs: `ClientRpc<'a>` (from `Client::rpc()`)
//! and `SessionRpc<'a>` (from `Session::rpc()`), with accessors `pub fn ns(&self) -> Child<'a>`
//! and calls `pub async fn name(&self[, params: Request]) -> Result<Response, Error>`, each
//! documented with "Wire method: `name`". For every public call this writes one match arm
//! `"<wire method>" => …` that reaches the call through the accessor chain, builds the params
//! into the request type by field name (src/byname.rs) and serialises the typed response with
//! serde. The file is read with a parser (build_syntax.rs), so its layout does not matter.
//! Where one wire method has several public calls (`get_quota` / `get_quota_with_params`,
//! `discover` / `discover_with_options`), the one taking the widest request that JSON can build
//! is used: `*_with_options` (documented as accepting inputs added later) when its type derives
//! `Deserialize` (read from the generated `api_types` module, all of its files; most `*Options`
//! are builder-style, Serialize only),
//! then one whose request derives `Deserialize`, then the one without a request.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use syn::{FnArg, ImplItem, Item, Pat, ReturnType, Visibility};

use crate::build_syntax::{doc, self_name, type_string, use_names};

struct Call {
    group: String,
    name: String,
    params: Option<String>,
}

/// Reads `rpc` (the crate's `generated/rpc.rs`, parsed) and writes `out` (an included Rust
/// file); `deserializable`: the request types of the generated layer that derive `Deserialize`.
/// Without the source, an empty table. Returns the request types the table builds
/// (build_byname.rs writes how).
pub fn generate(rpc: Option<&syn::File>, deserializable: &BTreeSet<String>, out: &Path) -> BTreeSet<String> {
    let mut requests = BTreeSet::new();
    let items: &[Item] = rpc.map_or(&[], |f| &f.items);
    let mut accessors: HashMap<String, Vec<(String, String)>> = HashMap::new(); // parent -> (fn, child)
    let mut calls: BTreeMap<String, Vec<Call>> = BTreeMap::new(); // wire method -> calls
    // The view structs' impls (`impl<'a> Group<'a>`): accessors `pub fn ns(&self) -> Child<'a>`
    // and calls `pub async fn name(&self[, params: Request])`, documented "Wire method: `m`".
    // A `pub(crate)` call is internal, not public API.
    for item in items {
        let Item::Impl(imp) = item else { continue };
        if imp.trait_.is_some() || imp.generics.lifetimes().next().is_none() {
            continue;
        }
        let Some(group) = self_name(&imp.self_ty) else { continue };
        for it in &imp.items {
            let ImplItem::Fn(f) = it else { continue };
            if !matches!(f.vis, Visibility::Public(_)) {
                continue;
            }
            let name = f.sig.ident.to_string();
            if f.sig.asyncness.is_none() {
                if let (1, ReturnType::Type(_, ty)) = (f.sig.inputs.len(), &f.sig.output) {
                    if let (Some(FnArg::Receiver(_)), Some(child)) = (f.sig.inputs.first(), self_name(ty)) {
                        accessors.entry(group.clone()).or_default().push((name, child));
                    }
                }
                continue;
            }
            let wire = doc(&f.attrs)
                .iter()
                .find_map(|l| l.trim().strip_prefix("Wire method: `").and_then(|r| r.split('`').next()).map(str::to_string));
            let params = f.sig.inputs.iter().find_map(|a| match a {
                FnArg::Typed(t) => match &*t.pat {
                    Pat::Ident(i) if i.ident == "params" => Some(type_string(&t.ty)),
                    _ => None,
                },
                _ => None,
            });
            if let Some(w) = wire {
                calls.entry(w).or_default().push(Call { group: group.clone(), name, params });
            }
        }
    }

    // Accessor chains from each root, breadth first.
    let mut chains: HashMap<String, (String, String)> = HashMap::new(); // group -> (root, chain)
    for root in ["ClientRpc", "SessionRpc"] {
        let mut queue = VecDeque::from([(root.to_string(), String::new())]);
        while let Some((g, chain)) = queue.pop_front() {
            if chains.contains_key(&g) {
                continue;
            }
            chains.insert(g.clone(), (root.to_string(), chain.clone()));
            for (f, child) in accessors.get(&g).into_iter().flatten() {
                queue.push_back((child.clone(), format!("{chain}.{f}()")));
            }
        }
    }

    // The session-event types rpc.rs imports, reached where the driver names that module.
    let session_events_use: String = items
        .iter()
        .filter_map(|it| match it {
            Item::Use(u) => Some(use_names(&u.tree)),
            _ => None,
        })
        .flatten()
        .filter(|(path, name)| path == "super::session_events" && name != "*")
        .map(|(_, name)| name)
        .collect::<Vec<_>>()
        .join(", ");
    let session_events_use = if session_events_use.is_empty() {
        String::new()
    } else {
        format!("use crate::compat::generated::session_events::{{{session_events_use}}};")
    };

    let mut arms: BTreeMap<&str, String> = BTreeMap::new(); // root -> match arms
    let mut names: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (w, cs) in &calls {
        let rank = |c: &Call| match (&c.params, c.name.ends_with("_with_options")) {
            (Some(_), true) => 0,
            (Some(_), false) => 1,
            (None, _) => 2,
        };
        let buildable = |c: &&Call| c.params.as_ref().is_none_or(|t| deserializable.contains(t.as_str()));
        let Some(call) = cs
            .iter()
            .filter(|c| chains.contains_key(&c.group))
            .filter(buildable)
            .min_by_key(|c| rank(c))
        else {
            continue;
        };
        let (root, chain) = &chains[&call.group];
        let root: &str = if root == "ClientRpc" {
            "client"
        } else {
            "session"
        };
        let arm = arms.entry(root).or_default();
        let name = &call.name;
        if let Some(t) = &call.params {
            requests.insert(t.clone());
        }
        match &call.params {
            Some(t) => writeln!(
                arm,
                "        {w:?} => match typed!({t}, params) {{\n            Ok((req, lost)) => finish(rpc{chain}.{name}(req).await, lost),\n            Err(e) => Err(e),\n        }},"
            ),
            None => writeln!(arm, "        {w:?} => finish(rpc{chain}.{name}().await, untyped(params)),"),
        }
        .unwrap();
        names.entry(root).or_default().push(w.clone());
    }

    let mut code = String::new();
    code.push_str(
        "// @generated by build_rpc.rs from the SDK's src/generated/rpc.rs; do not edit.\n",
    );
    code.push_str("#[allow(unused_imports)]\nuse crate::compat::generated::rpc::*;\n");
    code.push_str("#[allow(unused_imports)]\n");
    code.push_str(&session_events_use);
    code.push('\n');
    for (root, rpc_expr, recv) in [
        (
            "client",
            "client.rpc()",
            "client: &github_copilot_sdk::Client",
        ),
        (
            "session",
            "session.rpc()",
            "session: &github_copilot_sdk::session::Session",
        ),
    ] {
        let list = names.get(root).cloned().unwrap_or_default();
        writeln!(
            code,
            "/// Wire methods with a public generated call on the {root}."
        )
        .unwrap();
        writeln!(
            code,
            "#[allow(dead_code)]\npub(crate) const {}_METHODS: &[&str] = &{list:?};",
            root.to_uppercase()
        )
        .unwrap();
        writeln!(
            code,
            "/// Calls the generated wrapper for `method`; `None` when the crate has none.\n\
             #[allow(unused_variables)]\n\
             pub(crate) async fn call_{root}({recv}, method: &str, params: &serde_json::Value) -> Option<Called> {{\n    \
             let rpc = {rpc_expr};\n    Some(match method {{\n{}        _ => return None,\n    }})\n}}\n",
            arms.get(root).map(String::as_str).unwrap_or("")
        )
        .unwrap();
    }
    std::fs::write(out, code).expect("write the generated rpc dispatch");
    requests
}
