//! The marker both kinds of generated setters specialise on (autoref specialization): a field is
//! set from JSON by serde (src/surface.rs: `Strict`, `Plain`, `Not`) and a handler field is filled
//! with a callback that does nothing (src/callbacks.rs: `Optional`, `Required`, `Neither`), each
//! chosen per concrete field type by how many references the call goes through. Its own module,
//! so that surface.rs (which registers callbacks) and callbacks.rs share it without importing
//! each other.

use std::marker::PhantomData;

/// The type of a field, for choosing how to set it.
pub struct Want<T>(PhantomData<T>);

/// The marker of a type named, not held (src/byname.rs `by_name_of!`).
pub fn want<T>() -> Want<T> {
    Want(PhantomData)
}

pub fn want_of<T>(_: &T) -> Want<T> {
    Want(PhantomData)
}

/// The type of a field of `C`, without a value of `C` (hello's tally of how fields are set).
pub fn want_field<C, T>(_: fn(&C) -> &T) -> Want<T> {
    Want(PhantomData)
}
