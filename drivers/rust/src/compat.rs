//! The paths that differ between releases of the crate, each picked by a cfg build.rs sets from
//! the crate's own source (so one driver builds against every published 1.x release):
//! - `sdk_error_kind` (1.0.0-beta.9 on): `Error` is a struct with `kind() -> ErrorKind` and
//!   `Error::with_message`, and `subscription::RecvError::kind() -> RecvErrorKind`. Before, `Error`
//!   and `RecvError` are plain enums (`Error::Session(SessionError::AgentError(String))`,
//!   `RecvError::Lagged(Lagged)`).
//! - `sdk_facades` (1.0.0-beta.12 on): the generated layer is re-exported as
//!   `github_copilot_sdk::rpc` / `session_events`; before, it is only `generated::rpc` /
//!   `generated::session_events` (same types, public too).

use github_copilot_sdk::subscription::RecvError;
use github_copilot_sdk::Error;

/// The crate's generated layer, wherever this release exports it.
pub(crate) mod generated {
    #[cfg(sdk_facades)]
    pub(crate) use github_copilot_sdk::{rpc, session_events};
    #[cfg(not(sdk_facades))]
    pub(crate) use github_copilot_sdk::generated::session_events;
    /// What the later `rpc` facade re-exports: the wrappers and their request/result types.
    #[cfg(not(sdk_facades))]
    #[allow(unused_imports)]
    pub(crate) mod rpc {
        pub(crate) use github_copilot_sdk::generated::api_types::*;
        pub(crate) use github_copilot_sdk::generated::rpc::*;
    }
}

/// `Error::<variant>` (e.g. `Error::Rpc`, `Error::Session`): the head of the error kind's Debug
/// form, or of the error enum's own Debug form in releases without `ErrorKind`.
pub(crate) fn error_type(error: &Error) -> String {
    #[cfg(sdk_error_kind)]
    let kind = format!("{:?}", error.kind());
    #[cfg(not(sdk_error_kind))]
    let kind = format!("{error:?}");
    let head = kind.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("");
    format!("Error::{head}")
}

/// The error a failing tool handler returns: the session's agent error with the message.
pub(crate) fn agent_error(message: String) -> Error {
    #[cfg(sdk_error_kind)]
    {
        use github_copilot_sdk::{ErrorKind, SessionErrorKind};
        Error::with_message(ErrorKind::Session(SessionErrorKind::AgentError), message)
    }
    #[cfg(not(sdk_error_kind))]
    {
        Error::Session(github_copilot_sdk::SessionError::AgentError(message))
    }
}

/// An invalid-configuration error with the message.
#[cfg_attr(not(sdk_clear_context), allow(dead_code))]
pub(crate) fn config_error(message: String) -> Error {
    #[cfg(sdk_error_kind)]
    {
        Error::with_message(github_copilot_sdk::ErrorKind::InvalidConfig, message)
    }
    #[cfg(not(sdk_error_kind))]
    {
        Error::InvalidConfig(message)
    }
}

/// How far the subscriber fell behind, when that is the error (any other error ends it).
pub(crate) fn lagged(error: &RecvError) -> Option<String> {
    #[cfg(sdk_error_kind)]
    {
        match error.kind() {
            github_copilot_sdk::subscription::RecvErrorKind::Lagged(lagged) => Some(format!("{lagged:?}")),
            _ => None,
        }
    }
    #[cfg(not(sdk_error_kind))]
    {
        match error {
            RecvError::Lagged(lagged) => Some(format!("{lagged:?}")),
            _ => None,
        }
    }
}
