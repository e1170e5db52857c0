"""Runtime-to-SDK handlers (../PROTOCOL.md "Generated RPC layer", Runtime→SDK methods).

For each clientSession / clientGlobal method the harness names, register the SDK's public handler
or provider the way an application would, report what it received (``rpc.handled``) and return the
result the harness chose. The mapping from a schema method to the SDK's API (a provider class with
positional arguments, a CanvasHandler, keyword callbacks) is this SDK's API and is written here
per method on purpose.
"""

from __future__ import annotations

import base64
import dataclasses
import errno
import inspect
import json
from datetime import datetime
from typing import Any, Callable

import copilot
import holds as _holds  # beside this file: held handlers

import byname
import surface as _surface  # beside this file: the SDK's declared types

# Older SDK versions lack some of these modules: what is missing is named in "unhandled".
try:
    from copilot import canvas as _canvas
except ImportError:  # pragma: no cover - depends on the installed SDK
    _canvas = None
try:
    from copilot import session_fs_provider as _fs
except ImportError:  # pragma: no cover
    _fs = None
try:
    from copilot.generated import rpc as _rpc
except ImportError:  # pragma: no cover
    _rpc = None


def _plain(v: Any) -> Any:
    """What the handler received, as JSON: the SDK's generated types by their own to_dict."""
    if hasattr(v, "to_dict"):
        return v.to_dict()
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return dataclasses.asdict(v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, datetime):
        return v.isoformat()
    if hasattr(v, "value") and not isinstance(v, (str, int, float, bool)):
        return v.value  # an Enum
    return v


def _camel(name: str) -> str:
    """A snake_case field name under the schema's camelCase name (request_id -> requestId)."""
    first, *rest = name.split("_")
    return first + "".join(w[:1].upper() + w[1:] for w in rest)


def _named(**kv: Any) -> dict[str, Any]:
    """Positional arguments put back under the schema's names; None (not given) left out."""
    return {k: _plain(v) for k, v in kv.items() if v is not None}


def _beyond(result: Any, *keep: str) -> list[str]:
    """Pointers to the keys of result other than keep: what a handler API returning only keep
    cannot return."""
    if not isinstance(result, dict):
        return []
    return ["/" + k.replace("~", "~0").replace("/", "~1") for k in result if k not in keep]


def _fs_error(r: dict[str, Any]) -> OSError:
    """A SessionFSError result as the exception a provider raises (the SDK maps errno ENOENT to
    ENOENT and everything else to UNKNOWN, with str(exc) as the message)."""
    if r.get("code") == "ENOENT":
        e = FileNotFoundError(r.get("message", ""))
        e.errno = errno.ENOENT
        return e
    return OSError(r.get("message", ""))


def make(emit: Callable[[str, dict[str, Any]], None], sdk_label: str):
    def report(method: str, params: Any, unrep: list[str] | None = None, session: str | None = None, client: str | None = None) -> None:
        args: dict[str, Any] = {"method": method, "params": params}
        if session is not None:
            args["session"] = session
        if client is not None:
            args["client"] = client
        if unrep:
            args["unrepresentable"] = unrep
        emit("rpc.handled", args)

    async def reported(method: str, params: Any, unrep: list[str] | None = None, session: str | None = None, client: str | None = None) -> None:
        """report, then wait while the harness holds the method (holds.py)."""
        report(method, params, unrep, session, client)
        await _holds.held(session if session is not None else client, method)

    def for_client(kwargs: dict[str, Any], handlers: dict[str, Any] | None, handle: str) -> dict[str, Any] | None:
        if handlers is None:
            return None
        init = set(inspect.signature(copilot.CopilotClient.__init__).parameters)
        handled: list[str] = []
        unhandled: dict[str, str] = {}
        for m, spec in handlers.items():
            if m == "gitHubTelemetry.event":
                if "on_github_telemetry" not in init:
                    unhandled[m] = f"{sdk_label}: CopilotClient has no on_github_telemetry"
                    continue
                kwargs["on_github_telemetry"] = lambda n, m=m: report(m, _plain(n), client=handle)
                handled.append(m)
            elif m == "extensionLaunchProvider.resolve":
                if "extension_launch_provider" not in init:
                    unhandled[m] = f"{sdk_label}: CopilotClient has no extension_launch_provider"
                    continue
                kwargs["extension_launch_provider"] = _LaunchProvider(reported, m, spec.get("result"), handle)
                handled.append(m)
            elif m.startswith("llmInference."):
                unhandled[m] = (
                    f"driver: the {sdk_label} public API for {m} is CopilotClient(request_handler=...), a "
                    "CopilotRequestHandler serving whole HTTP exchanges whose start/chunk acknowledgements "
                    "the SDK writes itself, registered by connect's requestHandler (for_requests), not as a "
                    "per-method handler"
                )
            elif m.startswith("sessionFs."):
                if "session_fs" in init:
                    kwargs["session_fs"] = {
                        "initial_working_directory": "/",
                        "session_state_path": "/session-state",
                        "conventions": "posix",
                        "capabilities": {"sqlite": True},
                    }
        return {"handled": handled, "unhandled": unhandled}

    def for_requests(kwargs: dict[str, Any], spec: dict[str, Any], handle: str) -> dict[str, Any]:
        """connect's requestHandler (../PROTOCOL.md "Request handler"): a CopilotRequestHandler whose
        send_request reports the httpx.Request it is handed (its head under the start method, its
        body under the chunk method, base64) and answers every one with the given response."""
        start, chunk, response = spec["start"], spec["chunk"], spec["response"]

        class Reporting(copilot.CopilotRequestHandler):
            async def send_request(self, request, ctx):
                import httpx  # a dependency of the SDK versions that have CopilotRequestHandler

                body = await request.aread()
                # The context's own string fields (request_id, session_id, agent_id, …) under the
                # schema's names, then the head as the httpx.Request carries it.
                head = {
                    _camel(f.name): getattr(ctx, f.name)
                    for f in dataclasses.fields(ctx)
                    if not f.name.startswith("_") and isinstance(getattr(ctx, f.name), str)
                }
                headers: dict[str, list[str]] = {}
                for k, v in request.headers.multi_items():
                    headers.setdefault(k, []).append(v)
                head.update(method=request.method, url=str(request.url), headers=headers)
                report(start, head, client=handle)
                report(chunk, {"requestId": ctx.request_id, "data": base64.b64encode(body).decode("ascii"), "binary": True}, client=handle)
                # httpx takes a reason phrase other than its own from the extensions.
                extensions = {"reason_phrase": response["statusText"].encode("ascii")} if response.get("statusText") else None
                return httpx.Response(
                    response["status"],
                    headers=[(k, v) for k, vs in (response.get("headers") or {}).items() for v in vs],
                    content=response["body"].encode("utf-8"),
                    extensions=extensions,
                    request=request,
                )

        kwargs["request_handler"] = Reporting()
        return {"handled": [start, chunk], "unhandled": {}}

    def for_session(kwargs: dict[str, Any], handlers: dict[str, Any] | None, handle: str, accepted: set[str]) -> dict[str, Any] | None:
        if handlers is None:
            return None
        handled: list[str] = []
        unhandled: dict[str, str] = {}
        hook_inputs: dict[str, Any] = {}

        def res(m: str) -> Any:
            return (handlers.get(m) or {}).get("result")

        def params(m: str) -> list[dict[str, Any]]:
            return [p or {} for p in (handlers.get(m) or {}).get("params") or []]

        def missing(ms: list[str], kw: str) -> None:
            for m in ms:
                unhandled[m] = f"{sdk_label}: create_session has no {kw}"

        fs = [m for m in handlers if m.startswith("sessionFs.")]
        if fs:
            if "create_session_fs_handler" in accepted and _fs is not None:
                kwargs["create_session_fs_handler"] = lambda _session: _FsProvider(reported, res, handle)
                handled += fs
            else:
                missing(fs, "create_session_fs_handler")

        canvas = [m for m in ("canvas.open", "canvas.close", "canvas.action.invoke") if m in handlers]
        if canvas:
            if {"canvases", "canvas_handler"} <= accepted and _canvas is not None:
                actions: dict[str, list[str]] = {}
                for m in canvas:
                    for p in params(m):
                        acts = actions.setdefault(p.get("canvasId", ""), [])
                        if m == "canvas.action.invoke" and p.get("actionName"):
                            acts.append(p["actionName"])
                kwargs["canvases"] = [
                    _canvas.CanvasDeclaration(
                        id=cid,
                        display_name=cid,
                        description=f"conformance canvas {cid}",
                        actions=[_rpc.CanvasAction(name=a, description=f"conformance action {a}") for a in acts] or None,
                    )
                    for cid, acts in actions.items()
                ]
                kwargs["canvas_handler"] = _Canvas(reported, res, handle)
                handled += canvas
            else:
                missing(canvas, "canvases / canvas_handler")

        m = "providerToken.getToken"
        if m in handlers:
            if "providers" in accepted:
                r = res(m) or {}

                async def bearer(args: Any, m: str = m, r: Any = r) -> str:
                    await reported(m, _named(providerName=args.get("provider_name"), sessionId=args.get("session_id")), _beyond(r, "token"), session=handle)
                    return r.get("token")

                names = dict.fromkeys(p.get("providerName", "") for p in params(m))
                kwargs["providers"] = [
                    {"name": n, "type": "openai", "base_url": "http://127.0.0.1:9/v1", "bearer_token_provider": bearer} for n in names
                ]
                handled.append(m)
            else:
                missing([m], "providers")

        m = "gitHubToken.getToken"
        if m in handlers:
            if "github_token_provider" in accepted:
                r = res(m)

                async def gh(args: Any, m: str = m, r: Any = r) -> Any:
                    await reported(m, _named(host=args.get("host"), sessionId=args.get("session_id"), reason=args.get("reason")), session=handle)
                    return r

                kwargs["github_token_provider"] = gh
                handled.append(m)
            else:
                missing([m], "github_token_provider")

        m = "hooks.invoke"
        if m in handlers:
            if "hooks" in accepted:
                r = res(m) or {}
                hooks: dict[str, Any] = {}
                declared_inputs = _surface.hook_inputs()
                for p in params(m):
                    t = p.get("hookType") or ""
                    if not t:
                        continue
                    if t in declared_inputs:
                        hook_inputs[t] = declared_inputs[t]
                    key = "on_" + "".join("_" + c.lower() if c.isupper() else c for c in t)

                    async def hook(input_data: Any, invocation: Any, m: str = m, t: str = t, r: Any = r) -> Any:
                        sid = invocation.get("session_id") if isinstance(invocation, dict) else getattr(invocation, "session_id", None)
                        await reported(m, _named(hookType=t, input=input_data, sessionId=sid), _beyond(r, "output"), session=handle)
                        return r.get("output")

                    hooks[key] = hook
                kwargs["hooks"] = hooks
                handled.append(m)
            else:
                missing([m], "hooks")

        skills = [m for m in ("skillProvider.list", "skillProvider.read") if m in handlers]
        if skills:
            if "skill_provider" in accepted:
                kwargs["skill_provider"] = _Skills(reported, res, handle)
                handled += skills
            else:
                missing(skills, "skill_provider")

        for m in handlers:
            if m in handled or m in unhandled or m.startswith("llmInference.") or m in ("gitHubTelemetry.event", "extensionLaunchProvider.resolve"):
                continue
            ns = m.rsplit(".", 1)[0]
            unhandled[m] = f"{sdk_label}: no public API registers a {m} handler (no {ns} keyword of create_session or CopilotClient)"
        account: dict[str, Any] = {"handled": handled, "unhandled": unhandled}
        if hook_inputs:
            account["hookInputs"] = hook_inputs  # each registered hook's declared input
        return account

    return for_client, for_requests, for_session


class _LaunchProvider:
    """_rpc.ExtensionLaunchProviderHandler."""

    def __init__(self, report, method, result, client):
        self.report, self.method, self.result, self.client = report, method, result, client

    async def resolve(self, params: Any) -> Any:
        res = byname.Result()
        out = byname.build(_rpc.ExtensionLaunchProviderResolveResult, self.result or {}, res)
        await self.report(self.method, _plain(params), byname.unrepresentable(self.result or {}, out.to_dict(), res), client=self.client)
        return out


# The base exists only where the SDK has copilot.canvas (not 1.0.0b6, where _canvas is None).
class _Canvas(_canvas.CanvasHandler if _canvas is not None else object):  # type: ignore[misc]
    def __init__(self, report, res, handle):
        self.report, self.res, self.handle = report, res, handle

    async def on_open(self, ctx: Any) -> Any:
        r = self.res("canvas.open") or {}
        res = byname.Result()
        out = byname.build(_rpc.CanvasProviderOpenResult, r, res)
        await self.report("canvas.open", _plain(ctx), byname.unrepresentable(r, out.to_dict(), res), session=self.handle)
        return out

    async def on_close(self, ctx: Any) -> None:
        await self.report("canvas.close", _plain(ctx), session=self.handle)

    async def on_action(self, ctx: Any) -> Any:
        await self.report("canvas.action.invoke", _plain(ctx), session=self.handle)
        return self.res("canvas.action.invoke")


class _Skills:
    def __init__(self, report, res, handle):
        self.report, self.res, self.handle = report, res, handle

    async def list_skills(self) -> Any:
        r = self.res("skillProvider.list") or {}
        res = byname.Result()
        skills = byname.build(list[_rpc.SkillProviderDescriptor], r.get("skills") or [], res, "/skills")
        held = {**r, "skills": [s.to_dict() for s in skills]}
        await self.report("skillProvider.list", {}, byname.unrepresentable(r, held, res), session=self.handle)
        return skills

    async def read_skill(self, name: str) -> Any:
        r = self.res("skillProvider.read") or {}
        await self.report("skillProvider.read", _named(name=name), _beyond(r, "markdown"), session=self.handle)
        return r.get("markdown")


# The provider classes this SDK version has (SessionFsSqliteProvider came after SessionFsProvider;
# releases before either have no session file system at all).
_FS_BASES = tuple(c for c in (getattr(_fs, "SessionFsProvider", None), getattr(_fs, "SessionFsSqliteProvider", None)) if c) or (object,)


class _FsProvider(*_FS_BASES):  # type: ignore[misc]
    """The application's session file system: positional arguments reported under the schema's
    names; a void method's SessionFSError result raised as the provider's error."""

    def __init__(self, report, res, handle):
        self.report, self.res, self.handle = report, res, handle

    def _r(self, m: str) -> Any:
        return self.res("sessionFs." + m)

    async def _done(self, m: str, params: Any, unrep: list[str] | None = None) -> None:
        await self.report("sessionFs." + m, params, unrep, session=self.handle)

    def _fail(self, m: str) -> None:
        r = self._r(m)
        if isinstance(r, dict):
            raise _fs_error(r)

    async def read_file(self, path: str) -> str:
        r = self._r("readFile") or {}
        await self._done("readFile", _named(path=path), _beyond(r, "content"))
        return r.get("content")

    async def write_file(self, path: str, content: str, mode: int | None = None) -> None:
        await self._done("writeFile", _named(path=path, content=content, mode=mode))
        self._fail("writeFile")

    async def append_file(self, path: str, content: str, mode: int | None = None) -> None:
        await self._done("appendFile", _named(path=path, content=content, mode=mode))
        self._fail("appendFile")

    async def exists(self, path: str) -> bool:
        r = self._r("exists") or {}
        await self._done("exists", _named(path=path), _beyond(r, "exists"))
        return r.get("exists")

    async def stat(self, path: str) -> Any:
        r = self._r("stat") or {}
        await self._done("stat", _named(path=path), _beyond(r, "isFile", "isDirectory", "size", "mtime", "birthtime"))

        def when(s: str) -> datetime:
            return datetime.fromisoformat(s.replace("Z", "+00:00"))

        return _fs.SessionFsFileInfo(
            is_file=r.get("isFile"), is_directory=r.get("isDirectory"), size=r.get("size"), mtime=when(r["mtime"]), birthtime=when(r["birthtime"])
        )

    async def mkdir(self, path: str, recursive: bool, mode: int | None = None) -> None:
        await self._done("mkdir", _named(path=path, recursive=recursive, mode=mode))
        self._fail("mkdir")

    async def readdir(self, path: str) -> list[str]:
        r = self._r("readdir") or {}
        await self._done("readdir", _named(path=path), _beyond(r, "entries"))
        return r.get("entries")

    async def readdir_with_types(self, path: str) -> Any:
        r = self._r("readdirWithTypes") or {}
        await self._done("readdirWithTypes", _named(path=path), _beyond(r, "entries"))
        return byname.build(list[_rpc.SessionFSReaddirWithTypesEntry], r.get("entries") or [])

    async def rm(self, path: str, recursive: bool, force: bool) -> None:
        await self._done("rm", _named(path=path, recursive=recursive, force=force))
        self._fail("rm")

    async def rename(self, src: str, dest: str) -> None:
        await self._done("rename", _named(src=src, dest=dest))
        self._fail("rename")

    # Exact bytes (SessionFsBinaryProvider, a Protocol whose methods the SDK checks for when the
    # session_fs capabilities declare binary): sessionFs.readFileBytes / writeFileBytes on the
    # wire, content in base64 there.
    async def read_file_bytes(self, path: str) -> bytes:
        r = self._r("readFileBytes") or {}
        await self._done("readFileBytes", _named(path=path), _beyond(r, "content"))
        return base64.b64decode(r.get("content") or "")

    async def write_file_bytes(self, path: str, content: bytes, mode: int | None = None) -> None:
        await self._done("writeFileBytes", _named(path=path, content=base64.b64encode(content).decode("ascii"), mode=mode))
        self._fail("writeFileBytes")

    # SQLite: the same provider also subclasses SessionFsSqliteProvider (the SDK's adapter checks
    # isinstance).
    def _sql_result(self, r: dict[str, Any]) -> Any:
        cls = _fs.SessionFsSqliteQueryResult
        names = {f.name for f in dataclasses.fields(cls)}
        wire = {"columns": "columns", "rows": "rows", "rowsAffected": "rows_affected", "lastInsertRowid": "last_insert_rowid"}
        return cls(**{wire[k]: v for k, v in r.items() if k in wire and wire[k] in names})

    async def sqlite_query(self, query_type: Any, query: str, params: Any = None) -> Any:
        r = self._r("sqliteQuery") or {}
        await self._done("sqliteQuery", _named(queryType=query_type, query=query, params=params), _beyond(r, "columns", "rows", "rowsAffected", "lastInsertRowid"))
        return self._sql_result(r)

    async def sqlite_transaction(self, statements: Any) -> Any:
        r = self._r("sqliteTransaction") or {}
        unrep = _beyond(r, "results")
        for i, st in enumerate(r.get("results") or []):
            unrep += [f"/results/{i}" + p for p in _beyond(st, "columns", "rows", "rowsAffected", "lastInsertRowid")]
        await self._done("sqliteTransaction", {"statements": _plain(statements)}, unrep)
        return [self._sql_result(st) for st in r.get("results") or []]

    async def sqlite_exists(self) -> bool:
        r = self._r("sqliteExists") or {}
        await self._done("sqliteExists", {}, _beyond(r, "exists"))
        return r.get("exists")
