//! Generates the dispatch table behind the `rpc` / `rpcBatch` commands (src/rpc.rs) from the
//! resolved SDK's own `src/generated/rpc.rs`, so the table grows with the crate and no method is
//! listed by hand.
//!
//! The crate's generated layer is a tree of view structs: `ClientRpc<'a>` (from `Client::rpc()`)
//! and `SessionRpc<'a>` (from `Session::rpc()`), with accessors `pub fn ns(&self) -> Child<'a>`
//! and calls `pub async fn name(&self[, params: Request]) -> Result<Response, Error>`, each
//! documented with "Wire method: `name`". For every public call this writes one match arm
//! `"<wire method>" => …` that reaches the call through the accessor chain, deserialises the
//! params into the request type with serde and serialises the typed response with serde.
//! Where one wire method has several public calls (`get_quota` / `get_quota_with_params`,
//! `discover` / `discover_with_options`), the one taking the widest request that JSON can build
//! is used: `*_with_options` (documented as accepting inputs added later) when its type derives
//! `Deserialize` (read from `api_types.rs`; most `*Options` are builder-style, Serialize only),
//! then one whose request derives `Deserialize`, then the one without a request.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

struct Call {
    group: String,
    name: String,
    params: Option<String>,
}

/// Reads `rpc_rs` and writes `out` (an included Rust file). Without the source, an empty table.
/// Returns the request types the table builds (build_byname.rs writes how).
pub fn generate(rpc_rs: Option<&Path>, out: &Path) -> std::collections::BTreeSet<String> {
    let mut requests = std::collections::BTreeSet::new();
    let text = rpc_rs
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
    let types = rpc_rs
        .and_then(|p| std::fs::read_to_string(p.with_file_name("api_types.rs")).ok())
        .unwrap_or_default();
    let deserializable = deserializable_types(&types);
    let mut accessors: HashMap<String, Vec<(String, String)>> = HashMap::new(); // parent -> (fn, child)
    let mut calls: BTreeMap<String, Vec<Call>> = BTreeMap::new(); // wire method -> calls
    let mut group = String::new();
    let mut wire: Option<String> = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(rest) = line.strip_prefix("impl<'a> ") {
            group = rest.split('<').next().unwrap_or("").to_string();
        } else if let Some(rest) = line.strip_prefix("/// Wire method: `") {
            wire = rest.split('`').next().map(str::to_string);
        } else if let Some(rest) = line.strip_prefix("pub fn ") {
            // pub fn ns(&self) -> Child<'a> {
            if let Some((name, tail)) = rest.split_once("(&self) -> ") {
                let child = tail.split('<').next().unwrap_or("").trim().to_string();
                accessors
                    .entry(group.clone())
                    .or_default()
                    .push((name.to_string(), child));
            }
        } else if let Some(rest) = line.strip_prefix("pub async fn ") {
            // The signature may span lines up to the opening brace.
            let mut sig = rest.to_string();
            while !sig.trim_end().ends_with('{') && i + 1 < lines.len() {
                i += 1;
                sig.push(' ');
                sig.push_str(lines[i].trim());
            }
            let name = sig.split('(').next().unwrap_or("").to_string();
            let args = sig.split_once('(').map(|(_, a)| a).unwrap_or("");
            let args = args.split(')').next().unwrap_or("");
            let params = args
                .split(',')
                .map(str::trim)
                .find_map(|a| a.strip_prefix("params:"))
                .map(|t| t.trim().to_string());
            if let Some(w) = wire.take() {
                calls.entry(w).or_default().push(Call {
                    group: group.clone(),
                    name,
                    params,
                });
            }
        } else if line.starts_with("pub(crate) async fn ") || line.starts_with("pub(crate) fn ") {
            wire = None; // internal: not public API
        }
        i += 1;
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

    let session_events_use = text
        .lines()
        .find(|l| l.starts_with("use super::session_events::"))
        .map(|l| {
            l.replace(
                "use super::session_events::",
                "use crate::compat::generated::session_events::",
            )
        })
        .unwrap_or_default();

    let mut arms: BTreeMap<&str, String> = BTreeMap::new(); // root -> match arms
    let mut names: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (w, cs) in &calls {
        let rank = |c: &Call| match (&c.params, c.name.ends_with("_with_options")) {
            (Some(_), true) => 0,
            (Some(_), false) => 1,
            (None, _) => 2,
        };
        let buildable = |c: &&Call| {
            c.params
                .as_ref()
                .is_none_or(|t| deserializable.contains(t.as_str()))
        };
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
                "        {w:?} => match typed::<{t}>(params) {{\n            Ok((req, lost)) => finish(rpc{chain}.{name}(req).await, lost),\n            Err(e) => Err(e),\n        }},"
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

/// Names of the `pub struct` / `pub enum` items whose derive list has `Deserialize`.
fn deserializable_types(text: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let mut derives_deserialize = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("#[derive(") {
            derives_deserialize |= line.contains("Deserialize");
        } else if let Some(rest) = line
            .strip_prefix("pub struct ")
            .or_else(|| line.strip_prefix("pub enum "))
        {
            if derives_deserialize {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
            derives_deserialize = false;
        } else if line.starts_with("pub ") || line.starts_with("impl") {
            derives_deserialize = false;
        }
    }
    out
}
