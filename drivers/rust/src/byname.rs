//! Builds the crate's generated request types from the harness's JSON by field name, as an
//! application writes a struct literal (drivers/PROTOCOL.md "Building SDK values"): the impls
//! of `ByName` for the generated types are written by build_byname.rs from the crate's own
//! source; this file holds the trait, the impls for the standard types, and the bookkeeping of
//! what could not be carried (`unrepresentable`) and what only serde could build (the tally).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A value of the SDK's type built from JSON by name. `None`: it cannot be built (the pointer is
/// recorded as lost).
pub(crate) trait ByName: Sized {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self>;
    /// The value of an absent key: `None` where the type needs one (a required field), as
    /// serde's "missing field".
    fn absent(_: &mut Build) -> Option<Self> {
        None
    }
}

/// One build: the params pointers the type cannot carry as given (a key no field is named for,
/// a value of another JSON type), and those its fields' declared encoding leaves out of the wire
/// (`skip_serializing_if`).
#[derive(Default)]
pub(crate) struct Build {
    pub(crate) lost: BTreeSet<String>,
    /// The part of `lost` that is keys no field is named for (the rest: values of another type).
    pub(crate) unknown: BTreeSet<String>,
    pub(crate) skipped: BTreeSet<String>,
    /// Keys of required fields the value does not give (why a build failed: convert's message).
    pub(crate) missing: BTreeSet<String>,
}

/// Why a value built by name is refused: the pointers of values of another type than their
/// field's, else of keys no field is named for. A value its encoding leaves out is set: the wire
/// shows it.
pub(crate) enum Refused {
    Mistyped(Vec<String>),
    Unknown(Vec<String>),
}

/// `v` as the SDK's `T`, built by name as the application writes it.
pub(crate) fn build<T: ByName>(v: &Value) -> Result<T, Refused> {
    let mut b = Build::default();
    let t = T::by_name(v, "", &mut b);
    let mistyped: Vec<String> = b.lost.difference(&b.unknown).cloned().collect();
    match t {
        _ if !mistyped.is_empty() => Err(Refused::Mistyped(mistyped)),
        None => Err(Refused::Mistyped(vec![String::new()])),
        Some(_) if !b.unknown.is_empty() => Err(Refused::Unknown(b.unknown.into_iter().collect())),
        Some(t) => Ok(t),
    }
}


/// A type the generator wrote no by-name builder for (build_byname.rs did not find it in the
/// crate's source, or found it but cannot build it): the value is unrepresentable, named so, and
/// the driver still compiles against the release (PROTOCOL.md "Building SDK values").
#[derive(Debug)]
pub(crate) struct NoBuilder(pub(crate) &'static str);

impl std::fmt::Display for NoBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the driver has no by-name builder for {} in this SDK release", self.0)
    }
}

// Whether a concrete type has a builder is chosen at compile time (autoref specialization on
// crate::want::Want, as src/surface.rs does): `(&&want::<T>()).try_by_name(..)` resolves to
// `Buildable` (a method of `&&Want<T>`) when T: ByName and, one dereference later, to
// `Unbuildable` (of `&Want<T>`) otherwise, so the driver's source may name a
// type of the crate that a release's generator does not cover without a compile error.
pub(crate) trait Buildable<T> {
    fn try_by_name(&self, v: &Value, p: &str, b: &mut Build) -> Result<Option<T>, NoBuilder>;
}

impl<T: ByName> Buildable<T> for &crate::want::Want<T> {
    fn try_by_name(&self, v: &Value, p: &str, b: &mut Build) -> Result<Option<T>, NoBuilder> {
        Ok(T::by_name(v, p, b))
    }
}

pub(crate) trait Unbuildable<T> {
    fn try_by_name(&self, v: &Value, p: &str, b: &mut Build) -> Result<Option<T>, NoBuilder>;
}

impl<T> Unbuildable<T> for crate::want::Want<T> {
    fn try_by_name(&self, _: &Value, p: &str, b: &mut Build) -> Result<Option<T>, NoBuilder> {
        b.lost.insert(p.to_string());
        Err(NoBuilder(std::any::type_name::<T>()))
    }
}

/// `$t` built by name from `$v` into the `Build` `$b`: `Err(NoBuilder)` when the generator wrote
/// no builder for `$t` (a concrete type: the choice is made where the macro is used).
macro_rules! by_name_of {
    ($t:ty, $v:expr, $b:expr) => {{
        #[allow(unused_imports)]
        use $crate::byname::{Buildable as _, Unbuildable as _};
        (&&$crate::want::want::<$t>()).try_by_name($v, "", $b)
    }};
}
pub(crate) use by_name_of;

/// What a field's declared `skip_serializing_if` leaves out of the wire.
#[allow(dead_code)]
#[derive(Clone, Copy)]
pub(crate) enum Skip {
    Never,
    None,
    Empty,
    Other,
}

impl Build {
    /// Every pointer that does not reach the wire as given: what the type cannot carry and what
    /// its encoding leaves out (a generated request's or handler result's `unrepresentable`).
    pub(crate) fn all_lost(self) -> Vec<String> {
        self.lost.union(&self.skipped).cloned().collect()
    }
    pub(crate) fn lose<T>(&mut self, p: &str) -> Option<T> {
        self.lost.insert(p.to_string());
        None
    }
    pub(crate) fn object<'a>(&mut self, v: &'a Value, p: &str) -> Option<&'a Map<String, Value>> {
        match v.as_object() {
            Some(m) => Some(m),
            None => self.lose(p),
        }
    }
    pub(crate) fn string<'a>(&mut self, v: &'a Value, p: &str) -> Option<&'a str> {
        match v.as_str() {
            Some(s) => Some(s),
            None => self.lose(p),
        }
    }
    /// An internally tagged value: the folded tag, and the object without it (the variant's
    /// own fields). The tag's key is the enum's declared one: no Rust name stands for it.
    pub(crate) fn tagged(&mut self, v: &Value, p: &str, tag: &str) -> Option<(String, Value)> {
        let m = self.object(v, p)?;
        let Some(t) = m.get(tag) else {
            return self.lose(&pointer(p, tag));
        };
        let t = fold(self.string(t, &pointer(p, tag))?);
        let mut rest = m.clone();
        rest.remove(tag);
        Some((t, Value::Object(rest)))
    }
    /// Keys of `m` that no field is named for.
    pub(crate) fn unknown(&mut self, m: &Map<String, Value>, fields: &[&str], p: &str) {
        for k in m.keys() {
            if !fields.iter().any(|f| named(f, &fold(k))) {
                self.lost.insert(pointer(p, k));
                self.unknown.insert(pointer(p, k));
            }
        }
    }
    /// Builds `v` with serde, for a type no field name reaches (the type and why are in
    /// SERDE_TYPES, which hello reports as `driver.builtBy`).
    pub(crate) fn serde<T: DeserializeOwned>(&mut self, v: &Value, p: &str) -> Option<T> {
        match serde_json::from_value(v.clone()) {
            Ok(t) => Some(t),
            Err(_) => self.lose(p),
        }
    }
}


/// How a wire key is matched to a Rust name: its letters and digits, case ignored.
pub(crate) fn fold(s: &str) -> String {
    s.trim_start_matches("r#")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn pointer(p: &str, k: &str) -> String {
    format!("{p}/{}", k.replace('~', "~0").replace('/', "~1"))
}

/// Whether the folded wire key `k` names the field whose keys are `key`: its folded name, or
/// `name|rename` for a field whose serde rename is another word (build_byname.rs `field_key`).
fn named(key: &str, k: &str) -> bool {
    key.split('|').any(|x| x == k)
}

/// The key of `m` for the field `key`: one named as the field first, else its documented rename.
fn find<'a>(m: &'a Map<String, Value>, key: &str) -> Option<(&'a String, &'a Value)> {
    key.split('|').find_map(|x| m.iter().find(|(k, _)| fold(k) == x))
}

/// The field whose folded name is `key`: built from its value, or its type's absent value.
pub(crate) fn take<T: ByName>(m: &Map<String, Value>, key: &str, p: &str, b: &mut Build, skip: Skip) -> Option<T> {
    let Some((k, v)) = find(m, key) else {
        let absent = T::absent(b);
        if absent.is_none() {
            b.missing.insert(pointer(p, key));
        }
        return absent;
    };
    let ptr = pointer(p, k);
    // What the field's declared encoding leaves out cannot reach the wire as given.
    let dropped = match skip {
        Skip::None => v.is_null(),
        Skip::Empty => v.as_array().is_some_and(Vec::is_empty) || v.as_object().is_some_and(Map::is_empty),
        Skip::Never | Skip::Other => false,
    };
    if dropped {
        b.skipped.insert(ptr.clone());
    }
    match T::by_name(v, &ptr, b) {
        Some(t) => Some(t),
        None => T::absent(b),
    }
}

/// A field with `#[serde(default)]`: its type's default when absent.
pub(crate) fn take_or_default<T: ByName + Default>(m: &Map<String, Value>, key: &str, p: &str, b: &mut Build, skip: Skip) -> Option<T> {
    take(m, key, p, b, skip).or_else(|| Some(T::default()))
}

/// A field of a `#[non_exhaustive]` struct, assigned on its `Default` (or constructed) value: set
/// when the key is given and its value builds; otherwise the value keeps what it had.
pub(crate) fn set<T: ByName>(slot: &mut T, m: &Map<String, Value>, key: &str, p: &str, b: &mut Build, skip: Skip) {
    if find(m, key).is_some() {
        if let Some(t) = take(m, key, p, b, skip) {
            *slot = t;
        }
    }
}

impl<T: ByName> ByName for Option<T> {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        if v.is_null() {
            return Some(None);
        }
        Some(T::by_name(v, p, b))
    }
    fn absent(_: &mut Build) -> Option<Self> {
        Some(None)
    }
}

impl<T: ByName> ByName for Box<T> {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        T::by_name(v, p, b).map(Box::new)
    }
}

impl<T: ByName> ByName for Vec<T> {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        let Some(a) = v.as_array() else { return b.lose(p) };
        let mut out = Vec::with_capacity(a.len());
        for (i, e) in a.iter().enumerate() {
            let ptr = format!("{p}/{i}");
            match T::by_name(e, &ptr, b) {
                Some(t) => out.push(t),
                None => {
                    b.lost.insert(ptr);
                }
            }
        }
        Some(out)
    }
}

/// A JSON object as any map the SDK declares, entry by entry in the order serde_json's Map hands
/// the keys (which an IndexMap keeps); an entry its type cannot carry is lost under its pointer.
fn map_by_name<T: ByName, M: FromIterator<(String, T)>>(v: &Value, p: &str, b: &mut Build) -> Option<M> {
    let m = b.object(v, p)?;
    let mut out = Vec::with_capacity(m.len());
    for (k, e) in m {
        let ptr = pointer(p, k);
        match T::by_name(e, &ptr, b) {
            Some(t) => out.push((k.clone(), t)),
            None => {
                b.lost.insert(ptr);
            }
        }
    }
    Some(out.into_iter().collect())
}

impl<T: ByName> ByName for HashMap<String, T> {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        map_by_name(v, p, b)
    }
}

impl<T: ByName> ByName for BTreeMap<String, T> {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        map_by_name(v, p, b)
    }
}

#[cfg(sdk_indexmap)]
impl<T: ByName> ByName for github_copilot_sdk::IndexMap<String, T> {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        map_by_name(v, p, b)
    }
}

impl ByName for std::path::PathBuf {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        b.string(v, p).map(Self::from)
    }
}

impl ByName for Value {
    fn by_name(v: &Value, _: &str, _: &mut Build) -> Option<Self> {
        Some(v.clone())
    }
    fn absent(_: &mut Build) -> Option<Self> {
        Some(Value::Null)
    }
}

impl ByName for String {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        b.string(v, p).map(str::to_string)
    }
}

impl ByName for bool {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        match v.as_bool() {
            Some(x) => Some(x),
            None => b.lose(p),
        }
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl ByName for $t {
            fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
                let n = v.as_i64().map(i128::from).or_else(|| v.as_u64().map(i128::from));
                match n.and_then(|n| <$t>::try_from(n).ok()) {
                    Some(x) => Some(x),
                    None => b.lose(p),
                }
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl ByName for $t {
            fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
                match v.as_f64() {
                    Some(x) => Some(x as $t),
                    None => b.lose(p),
                }
            }
        }
    )*};
}
floats!(f32, f64);

impl ByName for github_copilot_sdk::SessionId {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        b.string(v, p).map(github_copilot_sdk::SessionId::new)
    }
}

impl ByName for github_copilot_sdk::RequestId {
    fn by_name(v: &Value, p: &str, b: &mut Build) -> Option<Self> {
        b.string(v, p).map(github_copilot_sdk::RequestId::new)
    }
}

/// The generated impls: in a module of their own, which sees the generated layer as the
/// dispatch table does.
#[allow(deprecated)] // a deprecated field is still one the application may set
mod generated {
    #[allow(unused_imports)]
    use super::{fold, set, take, take_or_default, Build, ByName, Skip};
    #[allow(unused_imports)]
    use crate::compat::generated::rpc::*;
    #[allow(unused_imports)]
    use serde_json::Value;
    include!(concat!(env!("OUT_DIR"), "/byname.rs"));
}
pub(crate) use generated::{convert_table, BY_NAME_TYPES, CONVERT_TYPES, SERDE_TYPES};
