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
//! With capability `surface.handlers.called`, every method of a `Nothing` registered through
//! `surfaceHandlers` first reports the call (`surface.handler.called {session, handler}`), then
//! answers. Where "nothing" is the trait's own default method (SessionHooks, SessionFsProvider,
//! CanvasHandler's on_action / on_close), `Nothing` overrides it to report and then answers with
//! what that default answers, by calling it on [`Defaults`], a type that overrides nothing.
//!
//! "Nothing" answers the language's empty value: `None`, an empty list, a type's `Default`, the
//! trait's own default methods where every method has one (SessionHooks, SessionFsProvider). A
//! result type with neither (an enum without `Default`) answers its declining variant
//! (`Cancelled`, `No`, `NoResult`), and a struct without `Default` its fields' empty values.

#![allow(dead_code)]

use std::sync::Arc;

use async_trait::async_trait;
use github_copilot_sdk::session_fs::FsError;
use serde_json::json;

use crate::emit_event;
use crate::want::Want;

/// The callback that does nothing, for every handler trait below. One registered through
/// `surfaceHandlers` knows its session and handler name and reports each call under them; the
/// one a definition gets (`blank_command_definition`) reports nothing.
#[derive(Clone, Default)]
pub struct Nothing {
    by: Option<Arc<(String, String)>>,
}

impl Nothing {
    /// A callback that reports its calls as `handler` of the session `session` (driver handles).
    pub fn reporting(session: &str, handler: &str) -> Self {
        Nothing {
            by: Some(Arc::new((session.to_string(), handler.to_string()))),
        }
    }

    /// `surface.handler.called`, before the callback answers.
    fn called(&self) {
        if let Some(by) = &self.by {
            emit_event(
                "surface.handler.called",
                json!({ "session": by.0, "handler": by.1 }),
            );
        }
    }
}

/// A type that overrides none of the traits' default methods: `Nothing` answers with what they
/// answer after it reported the call.
struct Defaults;

/// `Nothing` as a `T` (a `dyn` handler trait of the crate).
pub trait Callback<T: ?Sized> {
    fn arc(self) -> Arc<T>;
}

/// An optional handler field (`Option<Arc<dyn Trait>>`): filled with `by` unless the driver set it
/// already (its permission handler keeps the driver's own: `Some(false)`, a kept name).
pub trait Optional<T> {
    fn fill(&self, slot: &mut T, by: Nothing) -> Option<bool>;
}

impl<T: ?Sized> Optional<Option<Arc<T>>> for &Want<Option<Arc<T>>>
where
    Nothing: Callback<T>,
{
    fn fill(&self, slot: &mut Option<Arc<T>>, by: Nothing) -> Option<bool> {
        if slot.is_some() {
            return Some(false);
        }
        *slot = Some(by.arc());
        Some(true)
    }
}

/// A required handler field (`Arc<dyn Trait>`).
pub trait Required<T> {
    fn fill(&self, slot: &mut T, by: Nothing) -> Option<bool>;
}

impl<T: ?Sized> Required<Arc<T>> for &Want<Arc<T>>
where
    Nothing: Callback<T>,
{
    fn fill(&self, slot: &mut Arc<T>, by: Nothing) -> Option<bool> {
        *slot = by.arc();
        Some(true)
    }
}

/// Any other field type: the driver has no callback of it.
pub trait Neither<T> {
    fn fill(&self, slot: &mut T, by: Nothing) -> Option<bool>;
}

impl<T> Neither<T> for Want<T> {
    fn fill(&self, _: &mut T, _: Nothing) -> Option<bool> {
        None
    }
}

macro_rules! callback {
    ($($cfg:meta => $($trait:ident)::+;)*) => {
        $(
            #[cfg($cfg)]
            impl Callback<dyn $($trait)::+> for Nothing {
                fn arc(self) -> Arc<dyn $($trait)::+> {
                    Arc::new(self)
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

impl github_copilot_sdk::hooks::SessionHooks for Defaults {}

/// Every hook reaches `on_hook` (the default `on_hook_with_actor` delegates to it), answered by
/// the trait's default dispatch: no output.
#[async_trait]
impl github_copilot_sdk::hooks::SessionHooks for Nothing {
    async fn on_hook(
        &self,
        event: github_copilot_sdk::hooks::HookEvent,
    ) -> github_copilot_sdk::hooks::HookOutput {
        self.called();
        Defaults.on_hook(event).await
    }
}

impl github_copilot_sdk::session_fs::SessionFsProvider for Defaults {}

/// Each operation answers as the trait's default does ("… not supported"); `sqlite()` and
/// `binary()` keep their default `None` (no provider of their own to call).
#[async_trait]
impl github_copilot_sdk::session_fs::SessionFsProvider for Nothing {
    async fn read_file(&self, path: &str) -> Result<String, FsError> {
        self.called();
        Defaults.read_file(path).await
    }

    async fn write_file(&self, path: &str, content: &str, mode: Option<i64>) -> Result<(), FsError> {
        self.called();
        Defaults.write_file(path, content, mode).await
    }

    async fn append_file(
        &self,
        path: &str,
        content: &str,
        mode: Option<i64>,
    ) -> Result<(), FsError> {
        self.called();
        Defaults.append_file(path, content, mode).await
    }

    async fn exists(&self, path: &str) -> Result<bool, FsError> {
        self.called();
        Defaults.exists(path).await
    }

    async fn stat(&self, path: &str) -> Result<github_copilot_sdk::session_fs::FileInfo, FsError> {
        self.called();
        Defaults.stat(path).await
    }

    async fn mkdir(&self, path: &str, recursive: bool, mode: Option<i64>) -> Result<(), FsError> {
        self.called();
        Defaults.mkdir(path, recursive, mode).await
    }

    async fn readdir(&self, path: &str) -> Result<Vec<String>, FsError> {
        self.called();
        Defaults.readdir(path).await
    }

    async fn readdir_with_types(
        &self,
        path: &str,
    ) -> Result<Vec<github_copilot_sdk::session_fs::DirEntry>, FsError> {
        self.called();
        Defaults.readdir_with_types(path).await
    }

    async fn rm(&self, path: &str, recursive: bool, force: bool) -> Result<(), FsError> {
        self.called();
        Defaults.rm(path, recursive, force).await
    }

    async fn rename(&self, src: &str, dest: &str) -> Result<(), FsError> {
        self.called();
        Defaults.rename(src, dest).await
    }
}

#[async_trait]
impl github_copilot_sdk::transforms::SystemMessageTransform for Nothing {
    fn section_ids(&self) -> Vec<String> {
        self.called();
        Vec::new()
    }

    async fn transform_section(
        &self,
        _section_id: &str,
        _content: &str,
        _ctx: github_copilot_sdk::transforms::TransformContext,
    ) -> Option<String> {
        self.called();
        None
    }
}

#[async_trait]
impl github_copilot_sdk::CommandHandler for Nothing {
    async fn on_command(
        &self,
        _ctx: github_copilot_sdk::CommandContext,
    ) -> Result<(), github_copilot_sdk::Error> {
        self.called();
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
        self.called();
        github_copilot_sdk::handler::PermissionResult::NoResult
    }
}

#[cfg(all(sdk_handler_traits, not(sdk_user_input_request_id)))]
#[async_trait]
impl github_copilot_sdk::handler::UserInputHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _question: String,
        _choices: Option<Vec<String>>,
        _allow_freeform: Option<bool>,
    ) -> Option<github_copilot_sdk::handler::UserInputResponse> {
        self.called();
        None
    }
}

/// The same, where the trait also hands the request's id (1.0.29 previews).
#[cfg(all(sdk_handler_traits, sdk_user_input_request_id))]
#[async_trait]
impl github_copilot_sdk::handler::UserInputHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _request_id: Option<github_copilot_sdk::RequestId>,
        _question: String,
        _choices: Option<Vec<String>>,
        _allow_freeform: Option<bool>,
    ) -> Option<github_copilot_sdk::handler::UserInputResponse> {
        self.called();
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
        self.called();
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
        self.called();
        github_copilot_sdk::handler::McpAuthResult::Cancelled
    }
}

#[cfg(all(sdk_cb_exit_plan_mode, not(sdk_exit_plan_request_id)))]
#[async_trait]
impl github_copilot_sdk::handler::ExitPlanModeHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _data: github_copilot_sdk::ExitPlanModeData,
    ) -> github_copilot_sdk::handler::ExitPlanModeResult {
        self.called();
        Default::default()
    }
}

/// The same, where the trait also hands the request's id (1.0.29 previews).
#[cfg(all(sdk_cb_exit_plan_mode, sdk_exit_plan_request_id))]
#[async_trait]
impl github_copilot_sdk::handler::ExitPlanModeHandler for Nothing {
    async fn handle(
        &self,
        _session_id: github_copilot_sdk::SessionId,
        _request_id: Option<github_copilot_sdk::RequestId>,
        _data: github_copilot_sdk::ExitPlanModeData,
    ) -> github_copilot_sdk::handler::ExitPlanModeResult {
        self.called();
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
        self.called();
        github_copilot_sdk::handler::AutoModeSwitchResponse::No
    }
}

#[cfg(sdk_cb_canvas)]
#[async_trait]
impl github_copilot_sdk::canvas::CanvasHandler for Defaults {
    async fn on_open(
        &self,
        _ctx: crate::compat::generated::rpc::CanvasProviderOpenRequest,
    ) -> github_copilot_sdk::canvas::CanvasResult<
        crate::compat::generated::rpc::CanvasProviderOpenResult,
    > {
        Ok(Default::default())
    }
}

/// `on_open` answers the result's `Default`; `on_action` / `on_close` what the trait's defaults
/// answer.
#[cfg(sdk_cb_canvas)]
#[async_trait]
impl github_copilot_sdk::canvas::CanvasHandler for Nothing {
    async fn on_open(
        &self,
        ctx: crate::compat::generated::rpc::CanvasProviderOpenRequest,
    ) -> github_copilot_sdk::canvas::CanvasResult<
        crate::compat::generated::rpc::CanvasProviderOpenResult,
    > {
        self.called();
        Defaults.on_open(ctx).await
    }

    async fn on_action(
        &self,
        ctx: crate::compat::generated::rpc::CanvasProviderInvokeActionRequest,
    ) -> github_copilot_sdk::canvas::CanvasResult<serde_json::Value> {
        self.called();
        Defaults.on_action(ctx).await
    }

    async fn on_close(
        &self,
        ctx: crate::compat::generated::rpc::CanvasProviderCloseRequest,
    ) -> github_copilot_sdk::canvas::CanvasResult<()> {
        self.called();
        Defaults.on_close(ctx).await
    }
}

#[cfg(sdk_cb_skill_provider)]
#[async_trait]
impl github_copilot_sdk::SkillProvider for Nothing {
    async fn list_skills(
        &self,
    ) -> Result<Vec<github_copilot_sdk::SkillProviderDescriptor>, github_copilot_sdk::Error> {
        self.called();
        Ok(Vec::new())
    }

    async fn read_skill(&self, _name: &str) -> Result<Option<String>, github_copilot_sdk::Error> {
        self.called();
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
        self.called();
        Ok(github_copilot_sdk::GitHubTokenProviderResult::Cancelled)
    }
}

/// A `CommandDefinition` whose fields the harness's object sets (capability surface.callbacks):
/// the crate's constructor takes the handler, which a JSON value cannot hold, so it is `Nothing`.
#[cfg(sdk_cb_command_definition)]
pub fn blank_command_definition() -> github_copilot_sdk::CommandDefinition {
    github_copilot_sdk::CommandDefinition::new(
        String::new(),
        <Nothing as Callback<dyn github_copilot_sdk::CommandHandler>>::arc(Nothing::default()),
    )
}
