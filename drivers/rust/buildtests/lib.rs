//! The Rust driver's build-script generators, included by path as build.rs includes them, so
//! their logic is tested (tests.rs) without building the SDK crate.

#[path = "../build_api.rs"]
pub mod build_api;
#[path = "../build_byname.rs"]
pub mod build_byname;
#[path = "../build_hooks.rs"]
pub mod build_hooks;
#[path = "../build_rpc.rs"]
pub mod build_rpc;
#[path = "../build_surface.rs"]
pub mod build_surface;
#[path = "../build_syntax.rs"]
pub mod build_syntax;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_api;
