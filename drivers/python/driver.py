"""Conformance driver for the GitHub Copilot Python SDK (PyPI ``github-copilot-sdk``).

Reads protocol commands (one JSON object per line) on stdin and answers on stdout, as described in
drivers/PROTOCOL.md. Every command maps to one idiomatic call of the installed SDK; the driver never
emulates a feature the SDK lacks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import inspect
import json
import logging
import os
import sys
import threading
import time
import traceback
from importlib.metadata import PackageNotFoundError, version as dist_version
from typing import Any, Callable

DIST = "github-copilot-sdk"
PROTOCOL_VERSION = 1

# --- stdout guard ----------------------------------------------------------------------------
# Keep a private handle on the real stdout for protocol lines, then point file descriptor 1 and
# sys.stdout at stderr so nothing the SDK (or anything it spawns) prints can corrupt the protocol.
_proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
sys.stdout = sys.stderr
_write_lock = threading.Lock()


def emit(obj: dict[str, Any]) -> None:
    line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, default=str)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (an escaped half pair the runtime sent) cannot be UTF-8: escape it.
        line = json.dumps(obj, separators=(",", ":"), ensure_ascii=True, default=str)
    with _write_lock:
        _proto.write(line + "\n")
        _proto.flush()


def log(msg: str) -> None:
    print(f"[python-driver] {msg}", file=sys.stderr, flush=True)


logging.basicConfig(
    stream=sys.stderr,
    level=getattr(logging, os.environ.get("CONFORMANCE_DRIVER_LOG", "WARNING").upper(), logging.WARNING),
    format="%(asctime)s %(levelname)s %(name)s: %(message)s",
)

# The SDK would switch to an in-process runtime with this set; the harness needs the wire.
if os.environ.pop("COPILOT_SDK_DEFAULT_CONNECTION", None) is not None:
    log("COPILOT_SDK_DEFAULT_CONNECTION was set; removed it")

# --- the SDK ---------------------------------------------------------------------------------
import copilot  # noqa: E402
from copilot import CopilotClient, define_tool  # noqa: E402
from copilot.session import CopilotSession, PermissionHandler  # noqa: E402
from copilot.tools import Tool, ToolInvocation, ToolResult  # noqa: E402

import rpc as generated_rpc  # noqa: E402  (next to this file: the generic generated-layer call)
import surface as _surface  # noqa: E402  (beside this file: PROTOCOL.md "Surface")
import handlers as _handlers  # noqa: E402  (beside this file: runtime-to-SDK handlers)
import holds as _holds  # noqa: E402  (beside this file: held handlers)
import byname  # noqa: E402  (beside this file: SDK values built by field name)
import convert as _convert  # noqa: E402  (beside this file: the generated types' converters)

# How the SDK tells a held tool handler that its call was resolved ("" when it cannot).
TOOL_CANCEL_WAY = _holds.tool_cancel_way()
REQUEST_CANCEL_WAYS = {kind: _holds.request_cancel_way(kind) for kind in _holds.REQUEST_HANDLERS}

try:
    from copilot import RuntimeConnection
except ImportError:  # older SDKs configured the connection with cli_url / cli_path
    RuntimeConnection = None  # type: ignore[assignment,misc]

# Releases before RuntimeConnection (1.0.0b1 … 1.0.0b6) take the connection as CopilotClient's
# first argument: ExternalServerConfig(url, tcp_connection_token=…) or SubprocessConfig(cli_path, env=…).
ExternalServerConfig = getattr(copilot, "ExternalServerConfig", None) if RuntimeConnection is None else None
SubprocessConfig = getattr(copilot, "SubprocessConfig", None) if RuntimeConnection is None else None

try:
    from copilot.rpc import HistoryClearContextRequest
except ImportError:
    HistoryClearContextRequest = None  # type: ignore[assignment,misc]

try:
    SDK_VERSION = dist_version(DIST)
except PackageNotFoundError:
    SDK_VERSION = getattr(copilot, "__version__", "unknown")

SDK_LABEL = f"{DIST} {SDK_VERSION}"
SOURCE = os.environ.get("CONFORMANCE_SDK_SOURCE") or f"pypi:{DIST}@{SDK_VERSION}"

# Protocol tool option -> keyword argument of define_tool / field of Tool.
OPTION_KWARGS = {
    "description": "description",
    "isTerminal": "is_terminal",
    "overridesBuiltInTool": "overrides_built_in_tool",
    "skipPermission": "skip_permission",
    "defer": "defer",
    "metadata": "metadata",
    "parameters": "parameters",
}
DEFINE_TOOL_KWARGS = set(inspect.signature(define_tool).parameters)
TOOL_FIELDS = set(getattr(Tool, "__dataclass_fields__", {}))


def _has_clear_context() -> bool:
    if HistoryClearContextRequest is None:
        return False
    try:
        from copilot.generated.rpc import HistoryApi

        return hasattr(HistoryApi, "clear_context")
    except ImportError:
        return False


def _has_rpc_tools_set() -> bool:
    try:
        from copilot.generated.rpc import ToolsApi, ToolsSetRequest  # noqa: F401

        return hasattr(ToolsApi, "set")
    except ImportError:
        return False


HAS_SET_TOOLS = hasattr(CopilotSession, "set_tools")
HAS_CLEAR_CONTEXT = _has_clear_context()
HAS_RPC_TOOLS_SET = _has_rpc_tools_set()
HAS_FOR_URI = RuntimeConnection is not None and hasattr(RuntimeConnection, "for_uri")
HAS_FOR_STDIO = RuntimeConnection is not None and hasattr(RuntimeConnection, "for_stdio")
HAS_EXTERNAL_CONFIG = ExternalServerConfig is not None
HAS_SUBPROCESS_CONFIG = SubprocessConfig is not None
# connect's requestHandler: a CopilotRequestHandler subclass passed as CopilotClient(request_handler=)
HAS_REQUEST_HANDLER = hasattr(copilot, "CopilotRequestHandler") and "request_handler" in set(
    inspect.signature(CopilotClient.__init__).parameters)


def request_handler_missing() -> str:
    """The symbol whose absence makes rpc.requestHandler false."""
    if not hasattr(copilot, "CopilotRequestHandler"):
        return "copilot.CopilotRequestHandler"
    return "copilot.CopilotClient(request_handler)"


def capabilities() -> tuple[dict[str, bool], dict[str, str]]:
    def opt(kw: str) -> bool:
        return kw in DEFINE_TOOL_KWARGS and kw in TOOL_FIELDS

    caps = {
        "transport.tcp": HAS_FOR_URI or HAS_EXTERNAL_CONFIG,
        "transport.stdio": HAS_FOR_STDIO or HAS_SUBPROCESS_CONFIG,
        "session.resume": hasattr(CopilotClient, "resume_session"),
        "tool.isTerminal": opt("is_terminal"),
        "tool.isTerminal.explicitFalse": False,
        "tool.overridesBuiltInTool": opt("overrides_built_in_tool"),
        "tool.skipPermission": opt("skip_permission"),
        "tool.defer": opt("defer"),
        "tool.metadata": opt("metadata"),
        "session.setTools": HAS_SET_TOOLS,
        "session.clearContext": HAS_CLEAR_CONTEXT,
        "session.rpc.tools.set": HAS_RPC_TOOLS_SET,
        "events": True,
    }
    notes = {
        "tool.isTerminal.explicitFalse": (
            f"{SDK_LABEL}: is_terminal is a plain bool defaulting to False and the SDK sends "
            "isTerminal only when it is True, so an explicit False looks exactly like unset"
        ),
        "tool.overridesBuiltInTool": (
            f"{SDK_LABEL}: a plain bool defaulting to False; sent only when True"
        ),
        "tool.skipPermission": f"{SDK_LABEL}: a plain bool defaulting to False; sent only when True",
    }
    for cap, kw in (
        ("tool.isTerminal", "is_terminal"),
        ("tool.defer", "defer"),
        ("tool.metadata", "metadata"),
    ):
        if not caps[cap]:
            notes[cap] = f"{SDK_LABEL}: define_tool has no {kw} option"
    if not caps["session.setTools"]:
        notes["session.setTools"] = f"{SDK_LABEL}: CopilotSession has no set_tools"
    if not caps["session.clearContext"]:
        notes["session.clearContext"] = f"{SDK_LABEL}: no session.rpc.history.clear_context"
    if not caps["transport.tcp"]:
        notes["transport.tcp"] = f"{SDK_LABEL}: no RuntimeConnection.for_uri"
    if not caps["transport.stdio"]:
        notes["transport.stdio"] = f"{SDK_LABEL}: no RuntimeConnection.for_stdio"
    caps["surface"] = True
    caps["surface.handlers"] = True
    caps["surface.handlers.called"] = True  # handler_kwargs' callbacks report each call
    caps["surface.callbacks"] = True  # surface._to_type fills a definition's required callbacks
    caps["driver.concurrent"] = True  # each client on an event loop of its own (main, below)
    # handlers accepted; a method this version has no public handler API for is named in
    # connect's / createSession's "unhandled".
    caps["rpc.handlers"] = True
    caps["handler.hooks"] = "hooks" in CREATE_KWARGS
    # createSession's hookInputs: each hook's input TypedDict (surface.hook_inputs)
    caps["handler.hooks.inputs"] = caps["handler.hooks"] and bool(_surface.hook_inputs())
    option_capabilities(caps, notes)
    generated_rpc.capabilities(SDK_LABEL, caps, notes)
    _convert.capabilities(SDK_LABEL, caps, notes)
    caps["handler.permission"] = True
    caps["session.gitHubToken"] = "github_token" in CREATE_KWARGS
    if not caps["session.gitHubToken"]:
        notes["session.gitHubToken"] = f"{SDK_LABEL}: CopilotClient.create_session has no github_token"
    init = set(inspect.signature(CopilotClient.__init__).parameters)
    caps["connect.option.connectionToken"] = (HAS_FOR_URI and "connection_token" in set(
        inspect.signature(RuntimeConnection.for_uri).parameters)) or (
        HAS_EXTERNAL_CONFIG and "tcp_connection_token" in set(ExternalServerConfig.__dataclass_fields__))
    caps["connect.option.clientInfo"] = "client_info" in init
    caps["connect.option.gitHubTelemetry"] = "on_github_telemetry" in init
    caps["rpc.requestHandler"] = HAS_REQUEST_HANDLER
    if not HAS_REQUEST_HANDLER:
        notes["rpc.requestHandler"] = f"{SDK_LABEL}: no {request_handler_missing()}"
    caps["tool.result.value"] = True
    caps["tool.result.object"] = True
    caps["tool.result.binary"] = "binary_results_for_llm" in TOOL_RESULT_FIELDS and ToolBinaryResult is not None
    caps["tool.result.sessionLog"] = "session_log" in TOOL_RESULT_FIELDS
    caps["tool.result.telemetry"] = "tool_telemetry" in TOOL_RESULT_FIELDS
    caps["tool.handler.waitFor"] = True
    caps["handler.hold"] = True  # holds.py
    caps["handler.cancel.tool"] = bool(TOOL_CANCEL_WAY)  # holds.tool_cancel_way
    notes["handler.cancel.tool"] = TOOL_CANCEL_WAY or (
        f"{SDK_LABEL}: copilot.tools.ToolHandler returns no Awaitable: no task to cancel, so a tool "
        "handler cannot learn that the runtime resolved its call")
    for kind, (request, _alias) in _holds.REQUEST_HANDLERS.items():
        way = REQUEST_CANCEL_WAYS[kind]
        # The scenario's session registers no command, so a command.execute reaches no
        # application handler the driver could hold: a driver gap (missing_symbols).
        caps[f"handler.cancel.{kind}"] = bool(way) and kind != "command"
        notes[f"handler.cancel.{kind}"] = way or (
            f"{SDK_LABEL}: copilot.session.{_alias} returns no Awaitable: no task to cancel, so the "
            f"{kind} handler cannot learn that the runtime resolved its request ({request})")
        if way and kind == "command":
            notes[f"handler.cancel.{kind}"] = f"{way}; the driver registers no command handler to hold"
    # cancellable: asyncio.wait_for around any awaitable, each of these calls one
    for call in ("createSession", "resumeSession", "send", "sendAndWait", "rpc"):
        caps[f"call.cancel.{call}"] = True
    caps["error.rpc.code"] = True  # rpc_error_fields: JsonRpcError's code and data attributes
    caps["tool.result.binary.metadata"] = caps["tool.result.binary"] and "metadata" in set(
        getattr(ToolBinaryResult, "__dataclass_fields__", {}))
    notes["tool.result.value"] = "a pydantic model (UUID, datetime, Enum) returned from a define_tool handler"
    for cap, f in (("binary", "binary_results_for_llm"), ("sessionLog", "session_log"), ("telemetry", "tool_telemetry")):
        if not caps[f"tool.result.{cap}"]:
            notes[f"tool.result.{cap}"] = f"{SDK_LABEL}: ToolResult has no {f}"
    if not caps["tool.result.binary.metadata"]:
        notes["tool.result.binary.metadata"] = f"{SDK_LABEL}: ToolBinaryResult has no metadata"
    notes["driver.builtBy"] = byname.tally_note()  # after generated_rpc planned its request types
    return caps, notes


@functools.cache
def hello_capabilities() -> tuple[dict[str, bool], dict[str, str], dict[str, str]]:
    """capabilities() and missing_symbols(), computed once per process: they inspect the whole
    SDK and plan every generated request type (about 80 ms of CPU), and a concurrent driver says
    hello once per scenario, so recomputing them took most of the driver's CPU over a run. The
    installed SDK cannot change under a running driver, so the answer cannot either."""
    caps, notes = capabilities()
    return caps, notes, missing_symbols(caps)


# The SDK symbol whose absence makes each capability false (PROTOCOL.md "Capability audit"):
# module.attribute for an attribute, method or field, module.callable(keyword) for a keyword
# parameter. The harness's audit checks each one is really absent from the installed SDK.
MISSING_SYMBOLS = {
    "transport.tcp": "copilot.RuntimeConnection.for_uri",
    "transport.stdio": "copilot.RuntimeConnection.for_stdio",
    "session.resume": "copilot.CopilotClient.resume_session",
    "tool.isTerminal": "copilot.define_tool(is_terminal)",
    "tool.overridesBuiltInTool": "copilot.define_tool(overrides_built_in_tool)",
    "tool.skipPermission": "copilot.define_tool(skip_permission)",
    "tool.defer": "copilot.define_tool(defer)",
    "tool.metadata": "copilot.define_tool(metadata)",
    "session.setTools": "copilot.session.CopilotSession.set_tools",
    "session.clearContext": "copilot.generated.rpc.HistoryApi.clear_context",
    "session.rpc.tools.set": "copilot.generated.rpc.ToolsApi.set",
    "session.gitHubToken": "copilot.CopilotClient.create_session(github_token)",
    "connect.option.connectionToken": "copilot.RuntimeConnection.for_uri(connection_token)",
    "connect.option.clientInfo": "copilot.CopilotClient(client_info)",
    "connect.option.gitHubTelemetry": "copilot.CopilotClient(on_github_telemetry)",
    "handler.hooks": "copilot.CopilotClient.create_session(hooks)",
    "handler.hooks.inputs": "copilot.session.SessionHooks",
    "tool.result.binary": "copilot.tools.ToolResult.binary_results_for_llm",
    "tool.result.binary.metadata": "copilot.tools.ToolBinaryResult.metadata",
    "tool.result.sessionLog": "copilot.tools.ToolResult.session_log",
    "tool.result.telemetry": "copilot.tools.ToolResult.tool_telemetry",
    "handler.cancel.tool": "copilot.tools.ToolHandler",
    "convert.roundtrip": "copilot.generated.rpc",
    "handler.cancel.permission": "copilot.session._PermissionHandlerFn",
    "handler.cancel.elicitation": "copilot.session.ElicitationHandler",
    "handler.cancel.command": "copilot.session.CommandHandler",
    # Not the SDK's absence: the driver does not accept handlers/handlerResults yet.
}


def missing_symbols(caps: dict[str, bool]) -> dict[str, str]:
    out = {c: sym for c, sym in MISSING_SYMBOLS.items() if not caps.get(c)}
    if not caps.get("rpc.requestHandler"):
        out["rpc.requestHandler"] = request_handler_missing()
    if REQUEST_CANCEL_WAYS["command"] and not caps.get("handler.cancel.command"):
        out["handler.cancel.command"] = "driver: the scenario's session registers no command handler to hold"
    for name, (kw, _) in SESSION_OPTIONS.items():
        if not caps.get(f"session.option.{name}"):
            fn = "create_session" if kw not in CREATE_KWARGS and name not in RESUME_ONLY else "resume_session"
            out[f"session.option.{name}"] = f"copilot.CopilotClient.{fn}({kw})"
    return out


# Session options: the protocol's SDK-neutral name -> the keyword of create_session /
# resume_session, and how a camelCase JSON value becomes the SDK's own (snake_case TypedDict)
# value. Only the keys of the SDK's config objects are renamed, never user data inside them
# (env, headers, mcp server names). See ../PROTOCOL.md "Session options".
def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _snake_keys(obj: dict[str, Any]) -> dict[str, Any]:
    return {_snake(k): v for k, v in obj.items()}


def _agents(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for agent in value:
        a = _snake_keys(agent)
        if isinstance(a.get("mcp_servers"), dict):
            a["mcp_servers"] = _mcp_servers(a["mcp_servers"])
        out.append(a)
    return out


def _mcp_servers(value: dict[str, Any]) -> dict[str, Any]:
    return {name: _snake_keys(server) for name, server in value.items()}


async def _no_answer(*_args: Any, **_kwargs: Any) -> Any:
    return None


async def _cancel(*_args: Any) -> dict[str, Any]:
    """The elicitation answer of PROTOCOL.md."""
    return {"action": "cancel"}


def _held_request(handle: str, request: str, kind: str, answer: Callable[[], Any]) -> Any:
    """A request event's handler under a request gate (PROTOCOL.md "Holding a handler"): reports
    request.held, then waits for the release as an application awaiting something slow does,
    reporting request.cancelled the moment the SDK cancels its task; answer() once released. Not
    held: answer() at once."""
    if not _holds.armed(handle, f"request {request}"):
        return answer()

    async def wait() -> Any:
        emit({"event": "request.held", "args": {"session": handle, "request": request}})
        reached = time.monotonic()

        def told() -> None:
            emit({"event": "request.cancelled", "args": {
                "session": handle, "request": request, "way": REQUEST_CANCEL_WAYS[kind],
                "afterMs": round((time.monotonic() - reached) * 1000)}})

        await _holds.held(handle, f"request {request}", told if REQUEST_CANCEL_WAYS[kind] else None)
        result = answer()
        return await result if inspect.isawaitable(result) else result

    return wait()


async def _first_choice(request: Any, *_args: Any) -> dict[str, Any]:
    """The user-input answer of PROTOCOL.md: the first choice, or "ok" as free text."""
    choices = request.get("choices") if isinstance(request, dict) else getattr(request, "choices", None)
    if choices:
        return {"answer": choices[0], "wasFreeform": False}
    return {"answer": "ok", "wasFreeform": True}


SESSION_OPTIONS: dict[str, tuple[str, Any]] = {
    # name: (keyword, convert(value) -> SDK value)
    "model": ("model", None),
    "reasoningEffort": ("reasoning_effort", None),
    "systemMessage": ("system_message", None),
    "availableTools": ("available_tools", None),
    "excludedTools": ("excluded_tools", None),
    "streaming": ("streaming", None),
    "includeSubAgentStreamingEvents": ("include_sub_agent_streaming_events", None),
    "workingDirectory": ("working_directory", None),
    "customAgents": ("custom_agents", _agents),
    "mcpServers": ("mcp_servers", _mcp_servers),
    "configDiscovery": ("enable_config_discovery", None),
    "skillDirectories": ("skill_directories", None),
    "disabledSkills": ("disabled_skills", None),
    "infiniteSessions": ("infinite_sessions", _snake_keys),
    "provider": ("provider", _snake_keys),
    "userInputHandler": ("on_user_input_request", "handler"),
    "elicitationHandler": ("on_elicitation_request", "handler"),
    "hooks": ("hooks", "hooks"),
    "continuePendingWork": ("continue_pending_work", None),
    "suppressResumeEvent": ("suppress_resume_event", None),
}
RESUME_ONLY = {"continuePendingWork", "suppressResumeEvent"}
CREATE_KWARGS = set(inspect.signature(CopilotClient.create_session).parameters)
HANDLERS_FOR_CLIENT, HANDLERS_FOR_REQUESTS, HANDLERS_FOR_SESSION = _handlers.make(lambda name, args: emit({"event": name, "args": args}), SDK_LABEL)
RESUME_KWARGS = set(inspect.signature(CopilotClient.resume_session).parameters) if hasattr(
    CopilotClient, "resume_session") else set()


def session_kwargs(options: dict[str, Any], resume: bool, handle: str = "") -> dict[str, Any]:
    accepted = RESUME_KWARGS if resume else CREATE_KWARGS
    out: dict[str, Any] = {}
    for name, value in (options or {}).items():
        if name not in SESSION_OPTIONS:
            raise Unsupported(f"the python driver does not know the session option {name!r}")
        kw, convert = SESSION_OPTIONS[name]
        if kw not in accepted:
            fn = "resume_session" if resume else "create_session"
            raise Unsupported(f"{SDK_LABEL}: CopilotClient.{fn} has no {kw} (session option {name})")
        if convert in ("handler", "hooks"):
            if value is not True:
                raise DriverError(f"session option {name} takes true (install a handler)")
            if convert == "hooks":
                out[kw] = {"on_pre_tool_use": _no_answer}
            elif name == "userInputHandler":
                out[kw] = _first_choice
            elif name == "elicitationHandler":
                out[kw] = lambda *a: _held_request(handle, "elicitation.requested", "elicitation", lambda: _cancel(*a))
            else:
                out[kw] = _no_answer
        elif convert is not None and value is not None:
            out[kw] = convert(value)
        else:
            out[kw] = value
    return out


FIELD_OWNERS = {"sessionConfig": CopilotClient.create_session, "resumeConfig": getattr(CopilotClient, "resume_session", None),
                "clientOptions": CopilotClient.__init__}


def fields_kwargs(fields: dict[str, Any] | None, owner: str) -> dict[str, Any]:
    """SDK keywords by their own names, values as their declared types hold them (PROTOCOL.md
    "Surface")."""
    if not fields:
        return {}
    declared = _surface.declared(owner)
    out = {}
    for name, value in fields.items():
        if name not in declared:
            raise Unsupported(f"{SDK_LABEL}: {owner} declares no field {name}")
        try:
            out[name] = _surface.convert(FIELD_OWNERS[owner], name, value)
        except TypeError as e:
            raise Unsupported(f"{SDK_LABEL}: {owner}.{name} cannot hold {value!r}: {e}") from e
    return out


# Handlers that wait for another tool's handler to return (PROTOCOL.md "Tool", waitFor): an
# event per (session, tool), set when that tool's handler returns. WAIT_GIVE_UP_S bounds a wait
# so that an SDK serving one call at a time still gets an answer (the harness reads the order of
# the answers on the wire, never this time).
WAIT_GIVE_UP_S = 5.0
_RETURNED: dict[tuple[str, str], asyncio.Event] = {}


def returned_gate(session: str, tool: str) -> asyncio.Event:
    return _RETURNED.setdefault((session, tool), asyncio.Event())


# The keywords the driver passes to create_session / resume_session itself.
DRIVER_KWARGS = {"on_permission_request", "tools", "on_event"}


def handler_kwargs(names: list[str] | None, owner: str, given: set[str], session: str) -> tuple[dict[str, Any], list[str]]:
    """A do-nothing callback (answers None) per handler keyword named (PROTOCOL.md "Surface",
    surfaceHandlers), each reporting its calls (surface.handler.called) for the session handle;
    a keyword the driver passes anyway (given) keeps the driver's own, and is returned as kept."""
    if not names:
        return {}, []
    handlers = {e["name"]: e for e in _surface.surface() if e["owner"] == owner and e["kind"] == "handler"}
    out: dict[str, Any] = {}
    kept: list[str] = []

    def noop(name: str) -> Callable[..., None]:
        def called(*args: Any, **kwargs: Any) -> None:
            emit({"event": "surface.handler.called", "args": {"session": session, "handler": name}})
        return called

    for name in names:
        if name not in handlers:
            raise Unsupported(f"{SDK_LABEL}: {owner} declares no handler {name}")
        if name in given:
            kept.append(name)
            continue
        fields = handlers[name].get("fields")
        # An object of callbacks (SessionHooks): each of its members, doing nothing; a class the
        # application subclasses (CanvasHandler): an instance whose methods do nothing.
        cls = _surface.callback_class(owner, name)
        if fields:
            out[name] = {f["name"]: noop(name) for f in fields}
        elif cls is not None:
            instance = _surface._noop_instance(cls, noop(name))
            if instance is None:
                raise Unsupported(f"{SDK_LABEL}: {owner}.{name}: cannot instantiate {cls.__qualname__}")
            out[name] = instance
        else:
            out[name] = noop(name)
    return out, kept


def option_capabilities(caps: dict[str, bool], notes: dict[str, str]) -> None:
    for name, (kw, _) in SESSION_OPTIONS.items():
        on_resume = kw in RESUME_KWARGS
        ok = on_resume if name in RESUME_ONLY else (kw in CREATE_KWARGS and on_resume)
        caps[f"session.option.{name}"] = ok
        if not ok:
            where = "resume_session" if kw in CREATE_KWARGS or name in RESUME_ONLY else "create_session"
            notes[f"session.option.{name}"] = f"{SDK_LABEL}: CopilotClient.{where} has no {kw}"


# --- tool results (PROTOCOL.md "Tool results") -----------------------------------------------
# A structured value is returned the way a Python application would: a pydantic model with a
# UUID, a timezone-aware datetime and an Enum. A result object becomes the SDK's ToolResult.
import datetime as _dt  # noqa: E402
import enum as _enum  # noqa: E402
import uuid as _uuid  # noqa: E402

from pydantic import BaseModel  # noqa: E402  (a dependency of the SDK)

try:
    from copilot.tools import ToolBinaryResult
except ImportError:  # older versions
    ToolBinaryResult = None


class Status(str, _enum.Enum):
    OPEN = "open"
    CLOSED = "closed"


class Record(BaseModel):
    id: _uuid.UUID
    at: _dt.datetime
    status: Status
    count: int
    tags: list[str]


def record(value: dict[str, Any]) -> Record:
    return Record(
        id=_uuid.UUID(value["id"]),
        at=_dt.datetime.fromisoformat(value["at"].replace("Z", "+00:00")),
        status=Status(value["status"]),
        count=value["count"],
        tags=value["tags"],
    )


RESULT_FIELDS = {  # wire key -> ToolResult field
    "textResultForLlm": "text_result_for_llm",
    "resultType": "result_type",
    "error": "error",
    "sessionLog": "session_log",
    "toolTelemetry": "tool_telemetry",
    "binaryResultsForLlm": "binary_results_for_llm",
}
TOOL_RESULT_FIELDS = set(getattr(ToolResult, "__dataclass_fields__", {}))


def tool_result(value: dict[str, Any]) -> ToolResult:
    kwargs: dict[str, Any] = {}
    for key, v in value.items():
        field_name = RESULT_FIELDS.get(key)
        if field_name is None or field_name not in TOOL_RESULT_FIELDS:
            raise Unsupported(f"{SDK_LABEL}: ToolResult has no field for {key!r}")
        if key == "binaryResultsForLlm":
            if ToolBinaryResult is None:
                raise Unsupported(f"{SDK_LABEL}: no copilot.tools.ToolBinaryResult")
            fields = set(getattr(ToolBinaryResult, "__dataclass_fields__", {}))
            items = []
            for b in v:
                kw = {_snake(k): x for k, x in b.items()}
                missing = sorted(k for k in kw if k not in fields)
                if missing:
                    raise Unsupported(f"{SDK_LABEL}: ToolBinaryResult has no {', '.join(missing)}")
                items.append(ToolBinaryResult(**kw))
            v = items
        kwargs[field_name] = v
    return ToolResult(**kwargs)


class DriverError(Exception):
    """A bad command (unknown handle, missing argument): reported with type DriverError."""


class Unsupported(Exception):
    """The installed SDK cannot do what was asked."""


class Cancelled(Exception):
    """An SDK call the application cancelled ended with the language's cancellation error
    (cause): reported with "cancelled": true and afterCancelMs, how long the call took to end
    after the timeout fired (the event loop's clock, which a loaded machine stretches at both
    ends alike)."""

    def __init__(self, cause: BaseException, after_cancel_ms: int = 0):
        super().__init__(str(cause))
        self.cause = cause
        self.after_cancel_ms = after_cancel_ms


async def cancellable(call: Any, args: dict[str, Any]) -> Any:
    """Awaits an SDK call, which the application gives up on after args' cancelAfterMs
    (PROTOCOL.md "The application cancels a call"): asyncio.wait_for cancels the task and
    raises TimeoutError, the way an application bounds any awaitable."""
    if "cancelAfterMs" not in args:
        return await call
    loop = asyncio.get_running_loop()
    fired: list[float] = []
    # Due with wait_for's own timeout, so run in the same pass of the loop.
    mark = loop.call_later(args["cancelAfterMs"] / 1000, lambda: fired.append(loop.time()))
    try:
        return await asyncio.wait_for(call, args["cancelAfterMs"] / 1000)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        after = loop.time() - fired[0] if fired else 0.0
        raise Cancelled(exc, round(after * 1000)) from exc
    finally:
        mark.cancel()


def need(args: dict[str, Any], key: str) -> Any:
    if key not in args:
        raise DriverError(f"missing argument {key!r}")
    return args[key]


class Driver:
    def __init__(self) -> None:
        self.clients: dict[str, CopilotClient] = {}
        self.sessions: dict[str, CopilotSession] = {}

    # --- handles -------------------------------------------------------------------------
    def client(self, handle: str) -> CopilotClient:
        try:
            return self.clients[handle]
        except KeyError:
            raise DriverError(f"unknown client handle {handle!r}") from None

    def session(self, handle: str) -> CopilotSession:
        try:
            return self.sessions[handle]
        except KeyError:
            raise DriverError(f"unknown session handle {handle!r}") from None

    # --- tools ---------------------------------------------------------------------------
    def make_tool(self, handle: str, spec: dict[str, Any]) -> Tool:
        name = need(spec, "name")
        behaviour = need(spec, "handler")
        action = behaviour.get("action")
        if action not in ("return", "fail", "clearContext", "returnValue", "returnResult"):
            raise DriverError(f"tool {name!r}: unknown handler action {action!r}")
        if action == "returnResult":
            tool_result(behaviour.get("result") or {})  # a field this version lacks: unsupported now
        if action == "clearContext" and not HAS_CLEAR_CONTEXT:
            raise Unsupported(f"{SDK_LABEL} has no session.rpc.history.clear_context")

        # Only the options present in the spec are passed, in optionOrder first (keyword
        # arguments have no order semantics in Python; the order is kept for the record).
        order = [k for k in spec.get("optionOrder", []) if k in spec]
        order += [k for k in OPTION_KWARGS if k in spec and k not in order]
        options = {OPTION_KWARGS[k]: spec[k] for k in order}

        async def run(arguments: Any) -> Any:
            try:
                wait_for = behaviour.get("waitFor")
                if isinstance(wait_for, str):
                    try:
                        await asyncio.wait_for(returned_gate(handle, wait_for).wait(), WAIT_GIVE_UP_S)
                    except asyncio.TimeoutError:
                        return f"gave up waiting for the tool {wait_for}"
                return await act(arguments)
            finally:
                returned_gate(handle, name).set()

        async def act(arguments: Any) -> Any:
            event: dict[str, Any] = {"session": handle, "tool": name, "arguments": arguments}
            if "label" in behaviour:
                event["label"] = behaviour["label"]
            emit({"event": "tool.invoked", "args": event})
            reached = time.monotonic()

            def told() -> None:
                emit({"event": "tool.cancelled", "args": {
                    "session": handle, "tool": name, "way": TOOL_CANCEL_WAY,
                    "afterMs": round((time.monotonic() - reached) * 1000)}})

            await _holds.held(handle, f"tool {name}", told if TOOL_CANCEL_WAY else None)
            if action == "fail":
                raise RuntimeError(behaviour.get("message", ""))
            if action == "returnValue":
                return record(behaviour.get("value") or {})
            if action == "returnResult":
                return tool_result(behaviour.get("result") or {})
            text = behaviour.get("text", "")
            if action == "clearContext":
                session = self.session(handle)
                try:
                    result = await session.rpc.history.clear_context(
                        HistoryClearContextRequest(prompt=behaviour.get("prompt", ""))
                    )
                except Exception as exc:
                    emit({"event": "tool.clearContext",
                          "args": {"session": handle, "tool": name, "error": str(exc)}})
                    raise
                emit({"event": "tool.clearContext",
                      "args": {"session": handle, "tool": name,
                               "messagesCleared": result.messages_cleared}})
                text = text.replace("{messagesCleared}", str(result.messages_cleared))
            return text

        schema = options.pop("parameters", None)
        missing = [kw for kw in options if kw not in DEFINE_TOOL_KWARGS]
        if missing:
            raise Unsupported(f"{SDK_LABEL}: define_tool has no option(s) {', '.join(missing)}")

        async def handler(params: Any, invocation: ToolInvocation) -> Any:
            return await run(invocation.arguments)

        # Every tool goes through define_tool, so what the handler returns (a str, a pydantic
        # model, a ToolResult) and what it raises become the answer through the SDK's own
        # normalisation. define_tool derives a schema only from a pydantic model; an application
        # holding a JSON Schema sets it on the Tool dataclass the SDK built.
        tool = define_tool(name, handler=handler, **options)
        if schema is not None:
            tool = dataclasses.replace(tool, parameters=schema)
        return tool

    def make_tools(self, handle: str, specs: list[dict[str, Any]]) -> list[Tool]:
        return [self.make_tool(handle, spec) for spec in specs]

    def permission_handler(self, handle: str):
        """approve_all, reporting the request as the handler received it (to_dict when the SDK
        gives a typed request, so the report shows what the application can read)."""

        def handler(request: Any, invocation: Any) -> Any:
            try:
                seen = request.to_dict() if hasattr(request, "to_dict") else request
            except Exception as exc:  # keep answering even if the request cannot be re-serialized
                seen = {"unserializable": repr(exc)}
            emit({"event": "permission.requested", "args": {"session": handle, "request": seen}})
            return _held_request(handle, "permission.requested", "permission",
                                 lambda: PermissionHandler.approve_all(request, invocation))

        return handler

    def on_event(self, handle: str):
        def forward(event: Any) -> None:
            try:
                wire = event.to_dict()
                etype, data = wire.get("type"), wire.get("data")
            except Exception as exc:  # keep forwarding even if the SDK cannot re-serialize
                etype = getattr(event, "raw_type", None) or getattr(event.type, "value", str(event.type))
                data = {}
                log(f"could not serialize {etype}: {exc!r}")
            emit({"event": "session.event", "args": {"session": handle, "type": etype, "data": data}})

        return forward

    # --- commands ------------------------------------------------------------------------
    async def cmd_hello(self, args: dict[str, Any]) -> dict[str, Any]:
        caps, notes, missing = hello_capabilities()
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "sdk": "python",
            "version": SDK_VERSION,
            "source": SOURCE,
            "capabilities": dict(caps),
            "notes": dict(notes),
            "missing": dict(missing),
        }

    async def cmd_surface(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"entries": _surface.surface()}

    async def cmd_connect(self, args: dict[str, Any]) -> dict[str, Any]:
        handle = need(args, "client")
        if handle in self.clients:
            raise DriverError(f"client handle {handle!r} already connected")
        opts = args.get("options") or {}
        unknown = sorted(set(opts) - {"connectionToken", "clientInfo", "gitHubTelemetry"})
        if unknown:
            raise Unsupported(f"the python driver does not know the connect option(s) {', '.join(unknown)}")
        client_kwargs: dict[str, Any] = {}
        init = set(inspect.signature(CopilotClient.__init__).parameters)
        if "clientInfo" in opts:
            if "client_info" not in init:
                raise Unsupported(f"{SDK_LABEL}: CopilotClient has no client_info")
            client_kwargs["client_info"] = _snake_keys(opts["clientInfo"])
        if opts.get("gitHubTelemetry") is True:
            if "on_github_telemetry" not in init:
                raise Unsupported(f"{SDK_LABEL}: CopilotClient has no on_github_telemetry")
            client_kwargs["on_github_telemetry"] = lambda _notification: None
        if "address" in args and HAS_EXTERNAL_CONFIG:
            token = {"tcp_connection_token": opts["connectionToken"]} if "connectionToken" in opts else {}
            connection = ExternalServerConfig(args["address"], **token)
        elif "cliPath" in args and HAS_SUBPROCESS_CONFIG:
            # SubprocessConfig.env replaces the child's environment: add to ours.
            env = {**os.environ, **args["env"]} if args.get("env") else None
            connection = SubprocessConfig(cli_path=args["cliPath"], env=env)
        elif "address" in args:
            if not HAS_FOR_URI:
                raise Unsupported(f"{SDK_LABEL} has no RuntimeConnection.for_uri")
            if "connectionToken" in opts:
                connection = RuntimeConnection.for_uri(args["address"], connection_token=opts["connectionToken"])
            else:
                connection = RuntimeConnection.for_uri(args["address"])
        elif "cliPath" in args:
            if not HAS_FOR_STDIO:
                raise Unsupported(f"{SDK_LABEL} has no RuntimeConnection.for_stdio")
            connection = RuntimeConnection.for_stdio(path=args["cliPath"])
            if args.get("env"):
                # The connection's env replaces the child's environment: add to ours.
                connection.env = {**os.environ, **args["env"]}
        else:
            raise DriverError("connect needs 'address' or 'cliPath'")
        client_kwargs.update(fields_kwargs(args.get("fields"), "clientOptions"))
        account = HANDLERS_FOR_CLIENT(client_kwargs, args.get("handlers"), handle)
        if args.get("requestHandler") is not None:
            if not HAS_REQUEST_HANDLER:
                raise Unsupported(f"{SDK_LABEL}: {request_handler_missing()} is missing")
            account = HANDLERS_FOR_REQUESTS(client_kwargs, args["requestHandler"], handle)
        if RuntimeConnection is None:
            client = CopilotClient(connection, **client_kwargs)
        else:
            client = CopilotClient(connection=connection, **client_kwargs)
        await client.start()
        self.clients[handle] = client
        return account or {}

    async def cmd_createSession(self, args: dict[str, Any]) -> dict[str, Any]:
        client = self.client(need(args, "client"))
        handle = need(args, "session")
        tools = self.make_tools(handle, need(args, "tools"))
        options = session_kwargs(args.get("options") or {}, resume=False, handle=handle)
        if "gitHubToken" in args:
            if "github_token" not in CREATE_KWARGS:
                raise Unsupported(f"{SDK_LABEL}: CopilotClient.create_session has no github_token")
            options["github_token"] = args["gitHubToken"]
        options.update(fields_kwargs(args.get("fields"), "sessionConfig"))
        tools = options.pop("tools", tools)  # a tools field replaces the scenario's tools
        noops, kept = handler_kwargs(args.get("surfaceHandlers"), "sessionConfig", DRIVER_KWARGS | set(options), handle)
        options.update(noops)
        account = HANDLERS_FOR_SESSION(options, args.get("handlers"), handle, CREATE_KWARGS)
        call = client.create_session(
            on_permission_request=self.permission_handler(handle),
            tools=tools,
            on_event=self.on_event(handle),
            **options,
        )
        session = await cancellable(call, args)
        self.sessions[handle] = session
        return {"sessionId": session.session_id, **(account or {}), **({"kept": kept} if kept else {})}

    async def cmd_resumeSession(self, args: dict[str, Any]) -> dict[str, Any]:
        client = self.client(need(args, "client"))
        handle = need(args, "session")
        tools = self.make_tools(handle, need(args, "tools"))
        options = session_kwargs(args.get("options") or {}, resume=True, handle=handle)
        options.update(fields_kwargs(args.get("fields"), "resumeConfig"))
        tools = options.pop("tools", tools)  # a tools field replaces the scenario's tools
        noops, kept = handler_kwargs(args.get("surfaceHandlers"), "resumeConfig", DRIVER_KWARGS | set(options), handle)
        options.update(noops)
        account = HANDLERS_FOR_SESSION(options, args.get("handlers"), handle, RESUME_KWARGS)
        session = await cancellable(client.resume_session(
            need(args, "sessionId"),
            on_permission_request=self.permission_handler(handle),
            tools=tools,
            on_event=self.on_event(handle),
            **options,
        ), args)
        self.sessions[handle] = session
        return {"sessionId": session.session_id, **(account or {}), **({"kept": kept} if kept else {})}

    async def cmd_setTools(self, args: dict[str, Any]) -> dict[str, Any]:
        handle = need(args, "session")
        session = self.session(handle)
        if not HAS_SET_TOOLS:
            raise Unsupported(f"{SDK_LABEL} has no CopilotSession.set_tools")
        await session.set_tools(self.make_tools(handle, need(args, "tools")))
        return {}

    async def cmd_setToolsConcurrently(self, args: dict[str, Any]) -> dict[str, Any]:
        """Start one set_tools per tool set without awaiting in between, then await them all."""
        handle = need(args, "session")
        session = self.session(handle)
        if not HAS_SET_TOOLS:
            raise Unsupported(f"{SDK_LABEL} has no CopilotSession.set_tools")
        calls = [session.set_tools(self.make_tools(handle, tools)) for tools in need(args, "toolSets")]
        results = await asyncio.gather(*calls, return_exceptions=True)
        return {"outcomes": [
            {"outcome": "error", "error": {"type": type(r).__name__, "message": str(r)}}
            if isinstance(r, BaseException) else {"outcome": "ok"}
            for r in results
        ]}

    async def cmd_setToolsRpc(self, args: dict[str, Any]) -> dict[str, Any]:
        """The generated raw session.tools.set, called with wire-format definitions, no handlers."""
        session = self.session(need(args, "session"))
        if not HAS_RPC_TOOLS_SET:
            raise Unsupported(f"{SDK_LABEL} has no generated session.rpc.tools.set")
        from copilot.generated.rpc import ToolsSetRequest
        await session.rpc.tools.set(byname.build(ToolsSetRequest, {"tools": need(args, "tools")}))
        return {}

    async def cmd_clearContext(self, args: dict[str, Any]) -> dict[str, Any]:
        session = self.session(need(args, "session"))
        if not HAS_CLEAR_CONTEXT:
            raise Unsupported(f"{SDK_LABEL} has no session.rpc.history.clear_context")
        result = await session.rpc.history.clear_context(
            HistoryClearContextRequest(prompt=need(args, "prompt"))
        )
        return {"messagesCleared": result.messages_cleared}

    async def cmd_send(self, args: dict[str, Any]) -> dict[str, Any]:
        session = self.session(need(args, "session"))
        prompt = need(args, "prompt")
        if not args.get("wait"):
            return {"messageId": await cancellable(session.send(prompt), args)}
        kwargs = {}
        if args.get("timeoutMs") is not None:
            kwargs["timeout"] = args["timeoutMs"] / 1000.0
        event = await cancellable(session.send_and_wait(prompt, **kwargs), args)
        result: dict[str, Any] = {}
        if event is not None:
            data = event.data
            if getattr(data, "message_id", None) is not None:
                result["messageId"] = data.message_id
            if getattr(data, "content", None) is not None:
                result["content"] = data.content
        return result

    async def cmd_disconnect(self, args: dict[str, Any]) -> dict[str, Any]:
        handle = need(args, "session")
        await self.session(handle).disconnect()
        del self.sessions[handle]
        return {}

    async def cmd_stopClient(self, args: dict[str, Any]) -> dict[str, Any]:
        handle = need(args, "client")
        client = self.client(handle)
        del self.clients[handle]
        await client.stop()
        return {}

    async def rpc_call(self, call: dict[str, Any]) -> dict[str, Any]:
        """One generated wrapper call (rpc.py): through the client's or the session's rpc."""
        if ("client" in call) == ("session" in call):
            raise DriverError("rpc needs exactly one of client and session")
        scoped = "session" in call
        root = self.session(call["session"]).rpc if scoped else self.client(call["client"]).rpc
        method = need(call, "method")
        try:
            return await generated_rpc.call(root, method, call.get("params"), scoped)
        except generated_rpc.NotGenerated:
            raise Unsupported(f"{SDK_LABEL}: {method} is not in this SDK's generated layer") from None

    async def cmd_rpc(self, args: dict[str, Any]) -> dict[str, Any]:
        return await cancellable(self.rpc_call(args), args)

    async def cmd_rpcBatch(self, args: dict[str, Any]) -> dict[str, Any]:
        outcomes = []
        for call in need(args, "calls"):
            try:
                outcomes.append({"outcome": "ok", **await self.rpc_call(call)})
            except Unsupported as exc:
                outcomes.append({"outcome": "unsupported", "reason": str(exc)})
            except DriverError as exc:
                outcomes.append({"outcome": "error", "error": {"type": "DriverError", "message": str(exc)}})
            except Exception as exc:  # what the SDK raised, the batch goes on
                outcomes.append({"outcome": "error", "error": generated_rpc.error_object(exc)})
        return {"outcomes": outcomes}

    async def cmd_convert(self, args: dict[str, Any]) -> dict[str, Any]:
        # CPU-bound: on a thread of its own, so a shared driver's loop keeps serving the other
        # scenarios' commands meanwhile.
        return await asyncio.to_thread(_convert.convert, need(args, "values"), SDK_LABEL)

    async def cmd_hold(self, args: dict[str, Any]) -> dict[str, Any]:
        return _holds.hold(args)

    async def cmd_release(self, args: dict[str, Any]) -> dict[str, Any]:
        return _holds.release(args)

    async def cmd_shutdown(self, args: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def handle(self, line: str) -> bool:
        """Run one command line; returns False when the driver should exit."""
        try:
            msg = json.loads(line)
            cid, cmd, args = msg["id"], msg["cmd"], msg.get("args") or {}
        except Exception as exc:
            log(f"unreadable command line {line!r}: {exc!r}")
            return True
        method = getattr(self, f"cmd_{cmd}", None)
        if method is None:  # a newer protocol command: this driver cannot do it
            emit({"id": cid, "outcome": "unsupported",
                  "reason": f"the python driver has no command {cmd!r}"})
            return True
        try:
            result = await method(args)
            emit({"id": cid, "outcome": "ok", "result": result})
        except Unsupported as exc:
            emit({"id": cid, "outcome": "unsupported", "reason": str(exc)})
        except DriverError as exc:
            emit({"id": cid, "outcome": "error", "error": {"type": "DriverError", "message": str(exc)}})
        except Cancelled as exc:
            emit({"id": cid, "outcome": "error", "error": {
                "type": type(exc.cause).__name__, "message": str(exc.cause) or "cancelled", "cancelled": True,
                "afterCancelMs": exc.after_cancel_ms}})
        except Exception as exc:  # what the SDK raised, including ExceptionGroup from stop()
            log(f"{cmd} raised:\n{traceback.format_exc()}")
            message = str(exc)
            if isinstance(exc, BaseExceptionGroup):  # e.g. CopilotClient.stop()
                message += ": " + "; ".join(f"{type(e).__name__}: {e}" for e in exc.exceptions)
            emit({"id": cid, "outcome": "error",
                  "error": {"type": type(exc).__name__, "message": message, **rpc_error_fields(exc)}})
        return cmd != "shutdown"


def rpc_error_fields(exc: BaseException) -> dict:
    """The JSON-RPC code and data of an exception the SDK raised, as an application reads them:
    its `code` and `data` attributes (copilot's JsonRpcError has both); null where it has none
    (PROTOCOL.md "Errors")."""
    code = getattr(exc, "code", None)
    if not isinstance(code, int) or isinstance(code, bool):
        code = None
    data = getattr(exc, "data", None)
    try:
        json.dumps(data)
    except (TypeError, ValueError):
        data = repr(data)
    return {"code": code, "data": data}


class Loops:
    """driver.concurrent: commands of several scenarios run at once, each client on an event loop
    of its own, in a thread of its own. One loop for all would not do: the SDK's
    CopilotClient.stop() joins its reader thread (timeout 1 s) inside the coroutine, blocking
    whatever loop runs it, so one scenario's stop would hold up every other scenario. A client's
    loop serves every command naming the client or one of its sessions (the SDK binds a client
    to the loop it started on); after stopClient the loop is free for the next connect."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.home: dict[str, asyncio.AbstractEventLoop] = {}  # client/session handle -> loop
        self.free: list[asyncio.AbstractEventLoop] = []
        self.count = 0
        self.default = self.new()  # hello, surface: commands that name no handle

    def new(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.new_event_loop()
        self.count += 1
        threading.Thread(target=loop.run_forever, name=f"loop-{self.count}", daemon=True).start()
        return loop

    def route(self, cmd: str, args: dict[str, Any]) -> asyncio.AbstractEventLoop:
        """The loop a command runs on; a connect takes a loop for its client, a create or resume
        homes its session on its client's loop."""
        with self.lock:
            if cmd == "connect" and isinstance(args.get("client"), str):
                loop = self.free.pop() if self.free else self.new()
                self.home[args["client"]] = loop
                return loop
            calls = args.get("calls")
            first = calls[0] if isinstance(calls, list) and calls and isinstance(calls[0], dict) else args
            for key in ("client", "session"):
                loop = self.home.get(first.get(key)) if isinstance(first.get(key), str) else None
                if loop is not None:
                    if cmd in ("createSession", "resumeSession") and isinstance(args.get("session"), str):
                        self.home[args["session"]] = loop
                    return loop
            return self.default

    def release(self, loop: asyncio.AbstractEventLoop) -> None:
        """After stopClient: the client's loop (with its sessions, which were the client's: a
        loop serves one client) serves the next connect. This runs after the stop's answer went
        out, so the scenario may already have connected a new client under the same handle, on
        another loop: only the loop the stop ran on is let go, never the handle's new home."""
        with self.lock:
            if loop is self.default or loop in self.free:
                return
            for handle in [h for h, l in self.home.items() if l is loop]:
                del self.home[handle]
            self.free.append(loop)

    def every(self) -> list[asyncio.AbstractEventLoop]:
        with self.lock:
            return list({id(l): l for l in [*self.home.values(), self.default]}.values())


def main() -> None:
    driver = Driver()
    loops = Loops()
    inflight: set[concurrent.futures.Future] = set()
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8").strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
            cmd, args = msg["cmd"], msg.get("args") or {}
        except Exception as exc:
            log(f"unreadable command line {line!r}: {exc!r}")
            continue
        if cmd == "shutdown":
            concurrent.futures.wait(inflight, timeout=5)
            asyncio.run_coroutine_threadsafe(driver.handle(line), loops.default).result()
            break
        loop = loops.route(cmd, args)
        fut = asyncio.run_coroutine_threadsafe(driver.handle(line), loop)
        inflight.add(fut)
        fut.add_done_callback(inflight.discard)
        if cmd == "stopClient" and isinstance(args.get("client"), str):
            fut.add_done_callback(lambda _f, lp=loop: loops.release(lp))
    else:
        concurrent.futures.wait(inflight, timeout=5)
    # What is left (a scenario that never stopped its client, EOF), each client on its own loop.
    stops = []
    for handle, client in list(driver.clients.items()):
        loop = loops.home.get(handle, loops.default)
        stops.append(asyncio.run_coroutine_threadsafe(asyncio.wait_for(client.stop(), timeout=5), loop))
    done, not_done = concurrent.futures.wait(stops, timeout=10)
    for f in done:
        if f.exception() is not None:
            log(f"stopping a client at exit: {f.exception()!r}")
    if not_done:
        log(f"{len(not_done)} clients did not stop within 10 s at exit")
    driver.clients.clear()


if __name__ == "__main__":
    try:
        main()
    finally:
        with _write_lock:
            _proto.flush()
        sys.stderr.flush()
    os._exit(0)
