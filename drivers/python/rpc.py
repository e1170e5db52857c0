"""The generic ``rpc`` / ``rpcBatch`` commands (drivers/PROTOCOL.md, "Generated RPC layer").

A schema method name is found among the SDK's generated wrappers (``copilot/generated/rpc.py``:
``client.rpc`` is a ``ServerRpc``, ``session.rpc`` a ``SessionRpc``) by walking their attribute
tree once per class, never from a list: public attributes holding another generated API object
are namespaces, public coroutine methods are calls. The dotted name is matched with the
snake_case path by comparing both lower-cased without separators (``gitHubAuth`` ↔
``git_hub_auth``, ``proxyCa`` ↔ ``proxy_ca``).

The params are built into the wrapper's request type (its ``params`` annotation) the way an
application writes it, by field name through the dataclass constructor (byname.py, never the
SDK's ``from_dict``), the wrapper is awaited, and the typed result is re-serialised with its
``to_dict``. What the wrapper handed to the SDK's JSON-RPC client is
recorded (the client object's ``request`` is observed while the wrapper runs, nothing else
changes) and compared with the given params: every params pointer not carried as given is
``unrepresentable`` — an explicit null the wrapper's ``None`` filter drops, a key the dataclass
has no field for, a value its types change — except a key the builder set on a declared field:
missing from the wire, that is the SDK's serializer losing or renaming it, for the harness to see.
"""

from __future__ import annotations

import contextvars
import enum
import functools
import inspect
import typing
from typing import Any, Callable

import copilot.generated.rpc as generated

import byname

# What the wrapper currently running handed to JsonRpcClient.request (one list per rpc call).
_sent: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar("sent", default=None)


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


def _is_api(obj: Any) -> bool:
    return type(obj).__module__ == generated.__name__ and (
        type(obj).__name__.endswith("Api") or type(obj).__name__.endswith("Rpc"))


_index_cache: dict[type, dict[str, tuple[list[str], str]]] = {}


def wrapper_index(root: Any) -> dict[str, tuple[list[str], str]]:
    """Lower-cased dotted path -> (attribute path to the group, method name), for root's class."""
    cls = type(root)
    if cls in _index_cache:
        return _index_cache[cls]
    index: dict[str, tuple[list[str], str]] = {}

    def walk(obj: Any, path: list[str]) -> None:
        for name, value in vars(obj).items():
            if not name.startswith("_") and _is_api(value):
                walk(value, path + [name])
        for name, fn in inspect.getmembers(type(obj), inspect.iscoroutinefunction):
            if not name.startswith("_"):
                index[".".join(_norm(p) for p in path + [name])] = (path, name)

    walk(root, [])
    _index_cache[cls] = index
    return index


def _observe(jsonrpc: Any) -> None:
    """Record, for the rpc call in progress, the params the SDK's JSON-RPC client is given."""
    if getattr(jsonrpc, "_conformance_observed", False):
        return
    original = jsonrpc.request

    async def request(method: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        sent = _sent.get()
        if sent is not None:
            sent.append(params)
        return await original(method, params, *args, **kwargs)

    jsonrpc.request = request
    jsonrpc._conformance_observed = True


def request_type(fn: Callable[..., Any]) -> Any:
    """The wrapper's declared request type (its ``params`` annotation, resolved in the generated
    module), or None for a wrapper without params. An optional ``X | None`` request is built as X.
    Resolved once per wrapper function (a bound method is a new object on every call, so the key
    is the function under it): resolving it on every call was a tenth of the driver's CPU."""
    return _request_type(getattr(fn, "__func__", fn))


@functools.cache
def _request_type(fn: Callable[..., Any]) -> Any:
    if "params" not in inspect.signature(fn).parameters:
        return None
    try:
        tp = typing.get_type_hints(fn)["params"]
    except Exception as e:
        raise TypeError(f"the request annotation of {fn.__qualname__} does not resolve: {e}") from e
    args = byname._union_args(tp)
    if args is not None and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        tp = rest[0] if len(rest) == 1 else typing.Union[rest]  # type: ignore[valid-type]
    return tp


def to_json(value: Any) -> Any:
    """The typed value re-serialised the SDK's way (its to_dict), recursively for containers."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


class NotGenerated(Exception):
    pass


async def call(root: Any, method: str, params: Any, session_scoped: bool) -> dict[str, Any]:
    """Call root's generated wrapper for method; {"result", "unrepresentable"}."""
    name = method
    prefix = "session." if session_scoped else "server."
    if name.startswith(prefix):
        name = name[len(prefix):]
    found = wrapper_index(root).get(".".join(_norm(p) for p in name.split(".")))
    if found is None:
        raise NotGenerated(method)
    path, fname = found
    group = root
    for attr in path:
        group = getattr(group, attr)
    fn = getattr(group, fname)
    _observe(group._client)
    params = {} if params is None else params
    tp = request_type(fn)
    res = byname.Result()
    sent: list[Any] = []
    token = _sent.set(sent)
    try:
        if tp is None:
            result = await fn()
        else:
            result = await fn(byname.build(tp, params, res))
    finally:
        _sent.reset(token)
    wire = sent[0] if sent else {}
    if session_scoped and isinstance(wire, dict):
        wire = {k: v for k, v in wire.items() if k != "sessionId"}
    held = wire if wire is not None else {}
    return {"result": to_json(result), "unrepresentable": sorted(byname.unrepresentable(params, held, res))}


def count(root: Any) -> int:
    return len(wrapper_index(root))


def capabilities(label: str, caps: dict[str, bool], notes: dict[str, str]) -> None:
    """rpc.generated when the generated client and session layers exist."""
    server = wrapper_index(generated.ServerRpc(None))
    session = wrapper_index(generated.SessionRpc(None, ""))
    caps["rpc.generated"] = bool(server) and bool(session)
    for root in (generated.ServerRpc(None), generated.SessionRpc(None, "")):
        for path, fname in wrapper_index(root).values():
            group = root
            for attr in path:
                group = getattr(group, attr)
            try:
                tp = request_type(getattr(group, fname))
            except TypeError as e:
                byname.TALLY[f"{fname} params"] = str(e)
                continue
            if tp is not None:
                byname.plan(tp)
    notes["rpc.generated"] = (
        f"{label}: {len(server)} client (ServerRpc) and {len(session)} session (SessionRpc) generated "
        "wrappers; params built by name into the request dataclass (byname.py), results re-serialised "
        "with to_dict; the wrappers drop every top-level None (params.to_dict() filtered), so an explicit "
        "null cannot be sent and is reported unrepresentable, like any key the dataclass has no field for")


def error_object(exc: BaseException) -> dict[str, str]:
    """{"type", "message"} of what a wrapper raised; a bare assert of the generated layer has no
    message, so the SDK frame that raised it is named instead."""
    message = str(exc)
    if not message:
        import traceback

        frames = traceback.extract_tb(exc.__traceback__)
        sdk = [f for f in frames if "/copilot/" in f.filename] or frames
        if sdk:
            f = sdk[-1]
            message = f"raised at {f.filename.split('site-packages/')[-1]}:{f.lineno} in {f.name}: {f.line}"
    return {"type": type(exc).__name__, "message": message}
