//! The `convert` command (PROTOCOL.md "Generated RPC layer", Converters): a value of one of the
//! crate's generated types (every type of its generated `api_types` / `session_events` modules
//! that derives `Serialize` and `Deserialize`, found by build_byname.rs in the crate's source),
//! built by name as an application writes it (src/byname.rs), written with
//! `serde_json::to_value`, read back with `serde_json::from_value` and written again: the public
//! converters a Rust application calls on them.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::byname::{Build, ByName, CONVERT_TYPES};
use crate::{Outcome, SDK_NAME, SDK_VERSION};

/// `{"values": [{"type", "value"}, …]}`: one outcome per value, in order.
pub(crate) fn convert(args: &Value) -> Outcome {
    let Some(values) = args.get("values").and_then(Value::as_array) else {
        return Err(crate::driver_error("convert needs values, a list"));
    };
    let outcomes: Vec<Value> = values
        .iter()
        .map(|v| {
            let name = v.get("type").and_then(Value::as_str).unwrap_or_default();
            let value = v.get("value").unwrap_or(&Value::Null);
            crate::byname::convert_table(name, value).unwrap_or_else(|| {
                json!({"outcome": "unsupported", "reason": format!(
                    "{SDK_NAME} {SDK_VERSION}: the generated modules declare no type {name} that derives Serialize and Deserialize")})
            })
        })
        .collect();
    Ok(json!({"outcomes": outcomes}))
}

fn error(kind: &str, message: String) -> Value {
    json!({"type": kind, "message": message})
}

/// A value built by name into `T`, written, read back and written again.
pub(crate) fn roundtrip<T: ByName + Serialize + DeserializeOwned>(v: &Value) -> Value {
    let mut b = Build::default();
    let Some(built) = T::by_name(v, "", &mut b) else {
        // A required field the value does not give (the type requires what the schema does
        // not), or a value a field's type cannot hold: no value to convert.
        return json!({"outcome": "error", "error": error("DriverError", format!(
            "cannot build {} by name: required fields not given {:?}, values its fields cannot hold {:?}",
            std::any::type_name::<T>(), b.missing, b.lost))});
    };
    let written = match serde_json::to_value(&built) {
        Ok(w) => w,
        Err(e) => return json!({"outcome": "error", "error": error("serde_json::Error", e.to_string())}),
    };
    let mut out = json!({"outcome": "ok", "json": written, "unrepresentable": b.all_lost()});
    match serde_json::from_value::<T>(out["json"].clone()).and_then(|back| serde_json::to_value(&back)) {
        Ok(back) => out["back"] = back,
        Err(e) => out["readError"] = error("serde_json::Error", e.to_string()),
    }
    out
}

/// A generated type the driver cannot build by name (a union no field name chooses, a struct
/// with private fields and no constructor): not built, so not judged, and named with why.
pub(crate) fn not_by_name(name: &str, why: &str) -> Value {
    json!({"outcome": "error", "error": error("DriverError", format!(
        "{SDK_NAME} {SDK_VERSION}: cannot build {name} by name: {why}"))})
}

/// hello's `convert.roundtrip`: true when the build found generated types to convert.
pub(crate) fn capability() -> (bool, String) {
    let (by_name, all) = CONVERT_TYPES;
    if all == 0 {
        return (false, format!(
            "{SDK_NAME} {SDK_VERSION}: the crate's source has no generated api_types / session_events module whose types derive Serialize and Deserialize"
        ));
    }
    (true, format!(
        "{SDK_NAME} {SDK_VERSION}: {all} types of the generated api_types / session_events modules derive Serialize and Deserialize \
         (read from the crate's source at build time); {by_name} built by name (struct literal, or Default / new and field assignment), \
         written with serde_json::to_value and read back with serde_json::from_value; the other {} are unions or structs no name builds, \
         answered as not built", all - by_name
    ))
}
