//! Callbacks that do nothing (PROTOCOL.md "Surface"): `surfaceHandlers` registers one per handler
//! field of SessionConfig / ResumeSessionConfig named (capability `surface.handlers`), and a
//! definition whose type requires a callback (a `CommandDefinition`'s handler) gets one when the
//! harness builds it from `fields` (capability `surface.callbacks`).
//!
//! Rust has no reflection that could build a value of an arbitrary `dyn Trait`, so [`Nothing`]
//! implements each of the crate's handler traits here, one impl per trait, each behind the cfg
//! build.rs sets when the crate declares that trait with the signature written here. The setters
//! build.rs generates (`set_create_handler`, `set_resume_handler`) pick, per field type, whether
//! `Nothing` is a callback of that type (autoref specialization, as surface.rs does for serde): a
//! handler field of a trait not listed here is `unsupported`, never a compile error.
//!
//! "Nothing" answers the language's empty value: `None`, an empty list, a type's `Default`, the
//! trait's own default methods where every method has one (SessionHooks, SessionFsProvider). A
//! result type with neither (an enum without `Default`) answers its declining variant
//! (`Cancelled`, `No`, `NoResult`), and a struct without `Default` its fields' empty values.

#![allow(dead_code)]

use std::sync::Arc;

use async_trait::async_trait;

use crate::surface::Want;

/// The callback that does nothing, for every handler trait below.
pub struct Nothing;

/// `Nothing` as a `T` (a `dyn` handler trait of the crate).
pub trait Callback<T: ?Sized> {
    fn arc() -> Arc<T>;
}

/// An optional handler field (`Option<Arc<dyn Trait>>`): filled with `Nothing` unless the driver
/// set it already (its permission handler keeps the driver's own).
pub trait Optional<T> {
    fn fill(&self, slot: &mut T) -> Option<()>;
}

impl<T: ?Sized> Optional<Option<Arc<T>>> for &Want<Option<Arc<T>>>
where
    Nothing: Callback<T>,
{
    fn fill(&self, slot: &mut Option<Arc<T>>) -> Option<()> {
        if slot.is_none() {
            *slot = Some(<Nothing as Callback<T>>::arc());
        }
        Some(())
    }
}

/// A required handler field (`Arc<dyn Trait>`).
pub trait Required<T> {
    fn fill(&self, slot: &mut T) -> Option<()>;
}

impl<T: ?Sized> Required<Arc<T>> for &Want<Arc<T>>
where
    Nothing: Callback<T>,
{
    fn fill(&self, slot: &mut Arc<T>) -> Option<()> {
        *slot = <Nothing as Callback<T>>::arc();
        Some(())
    }
}

/// Any other field type: the driver has no callback of it.
pub trait Neither<T> {
    fn fill(&self, slot: &mut T) -> Option<()>;
}

impl<T> Neither<T> for Want<T> {
    fn fill(&self, _: &mut T) -> Option<()> {
        None
    }
}

macro_rules! callback {
    ($($cfg:meta => $($trait:ident)::+;)*) => {
        $(
            #[cfg($cfg)]
            impl Callback<dyn $($trait)::+> for Nothing {
                fn arc() -> Arc<dyn $($trait)::+> {
                    Arc::new(Nothing)
                }
            }
        )*
    };
}

callback! {
    all() => github_copilot_sdk::hooks::SessionHooks;
    all() => github_copilot_sdk::session_fs::SessionFsProvider;
    all() => github_copilot_sdk::transforms::SystemMessageTransform;
    all() => github_copilot_sdk::CommandHandler;
    sdk_cb_permission => github_copilot_sdk::handler::PermissionHandler;
    sdk_handler_traits => github_copilot_sdk::handler::UserInputHandler;
    sdk_handler_traits => github_copilot_sdk::handler::ElicitationHandler;
    sdk_cb_mcp_auth => github_copilot_sdk::handler::McpAuthHandler;
    sdk_cb_exit_plan_mode => github_copilot_sdk::handler::ExitPlanModeHandler;
    sdk_cb_auto_mode_switch => github_copilot_sdk::handler::AutoModeSwitchHandler;
    sdk_cb_canvas => github_copilot_sdk::canvas::CanvasHandler;
    sdk_cb_skill_provider => github_copilot_sdk::SkillProvider;
    sdk_cb_github_token_provider => github_copilot_sdk::GitHubTokenProvider;
}

/// Every hook keeps the trait's default (no output).
impl github_copilot_sdk::hooks::SessionHooks for Nothing {}

/// Every method keeps the trait's default.
impl github_copilot_sdk::session_fs::SessionFsProvider for Nothing {}

#[async_trait]
impl github_copilot_sdk::transforms::SystemMessageTransform for Nothing {
    fn section_ids(&self) -> Vec<String> {
        Vec::new()
    }

    async fn transform_section(
        &self,
        _section_id: &str,
        _content: &str,
        _ctx: github_copilot_sdk::transforms::TransformContext,
    ) -> Option<String> {
        None
    }
}

#[async_trait]
impl github_copilot_sdk::CommandHandler for Nothing {
    async fn on_command(
        &self,
        _ctx: github_copilot_sdk::CommandContext,
    ) -> Result<(), github_copilot_sdk::Error> {
        Ok(())
    }
}

#[cfg(sdk_cb_permission)]
#[async_trait]
impl github_copilot_sdk::handler::PermissionHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _request_id: github_copilot_sdk::RequestId,
        _data: github_copilot_sdk::PermissionRequestData,
    ) -> github_copilot_sdk::handler::PermissionResult {
        github_copilot_sdk::handler::PermissionResult::NoResult
    }
}

#[cfg(sdk_handler_traits)]
#[async_trait]
impl github_copilot_sdk::handler::UserInputHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _question: String,
        _choices: Option<Vec<String>>,
        _allow_freeform: Option<bool>,
    ) -> Option<github_copilot_sdk::handler::UserInputResponse> {
        None
    }
}

#[cfg(sdk_handler_traits)]
#[async_trait]
impl github_copilot_sdk::handler::ElicitationHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _request_id: github_copilot_sdk::RequestId,
        _request: github_copilot_sdk::ElicitationRequest,
    ) -> github_copilot_sdk::ElicitationResult {
        github_copilot_sdk::ElicitationResult {
            action: String::new(),
            content: None,
        }
    }
}

#[cfg(sdk_cb_mcp_auth)]
#[async_trait]
impl github_copilot_sdk::handler::McpAuthHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _request_id: github_copilot_sdk::RequestId,
        _request: github_copilot_sdk::handler::McpAuthRequest,
    ) -> github_copilot_sdk::handler::McpAuthResult {
        github_copilot_sdk::handler::McpAuthResult::Cancelled
    }
}

#[cfg(sdk_cb_exit_plan_mode)]
#[async_trait]
impl github_copilot_sdk::handler::ExitPlanModeHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _data: github_copilot_sdk::ExitPlanModeData,
    ) -> github_copilot_sdk::handler::ExitPlanModeResult {
        Default::default()
    }
}

#[cfg(sdk_cb_auto_mode_switch)]
#[async_trait]
impl github_copilot_sdk::handler::AutoModeSwitchHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _error_code: Option<String>,
        _retry_after_seconds: Option<f64>,
    ) -> github_copilot_sdk::handler::AutoModeSwitchResponse {
        github_copilot_sdk::handler::AutoModeSwitchResponse::No
    }
}

#[cfg(sdk_cb_canvas)]
#[async_trait]
impl github_copilot_sdk::canvas::CanvasHandler for Nothing {
    async fn on_open(
        &self,
        _ctx: crate::compat::generated::rpc::CanvasProviderOpenRequest,
    ) -> github_copilot_sdk::canvas::CanvasResult<
        crate::compat::generated::rpc::CanvasProviderOpenResult,
    > {
        Ok(Default::default())
    }
}

#[cfg(sdk_cb_skill_provider)]
#[async_trait]
impl github_copilot_sdk::SkillProvider for Nothing {
    async fn list_skills(
        &self,
    ) -> Result<Vec<github_copilot_sdk::SkillProviderDescriptor>, github_copilot_sdk::Error> {
        Ok(Vec::new())
    }

    async fn read_skill(&self, _name: &str) -> Result<Option<String>, github_copilot_sdk::Error> {
        Ok(None)
    }
}

#[cfg(sdk_cb_github_token_provider)]
#[async_trait]
impl github_copilot_sdk::GitHubTokenProvider for Nothing {
    async fn get_token(
        &self,
        _args: github_copilot_sdk::GitHubTokenProviderArgs,
    ) -> Result<github_copilot_sdk::GitHubTokenProviderResult, github_copilot_sdk::Error> {
        Ok(github_copilot_sdk::GitHubTokenProviderResult::Cancelled)
    }
}

/// A `CommandDefinition` whose fields the harness's object sets (capability surface.callbacks):
/// the crate's constructor takes the handler, which a JSON value cannot hold, so it is `Nothing`.
#[cfg(sdk_cb_command_definition)]
pub fn blank_command_definition() -> github_copilot_sdk::CommandDefinition {
    github_copilot_sdk::CommandDefinition::new(
        String::new(),
        <Nothing as Callback<dyn github_copilot_sdk::CommandHandler>>::arc(),
    )
}
