"""The generic ``rpc`` / ``rpcBatch`` commands (drivers/PROTOCOL.md, "Generated RPC layer").

A schema method name is found among the SDK's generated wrappers (``copilot/generated/rpc.py``:
``client.rpc`` is a ``ServerRpc``, ``session.rpc`` a ``SessionRpc``) by walking their attribute
tree once per class, never from a list: public attributes holding another generated API object
are namespaces, public coroutine methods are calls. The dotted name is matched with the
snake_case path by comparing both lower-cased without separators (``gitHubAuth`` ↔
``git_hub_auth``, ``proxyCa`` ↔ ``proxy_ca``).

The params are built into the wrapper's request dataclass with its own ``from_dict`` (the type
named by the wrapper's ``params`` annotation), the wrapper is awaited, and the typed result is
re-serialised with its ``to_dict``. What the wrapper handed to the SDK's JSON-RPC client is
recorded (the client object's ``request`` is observed while the wrapper runs, nothing else
changes) and compared with the given params: every params pointer not carried as given is
``unrepresentable`` — an explicit null the wrapper's ``None`` filter drops, a key the dataclass
has no field for, a value its types change.
"""

from __future__ import annotations

import contextvars
import enum
import inspect
from typing import Any, Callable

import copilot.generated.rpc as generated

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


def _request_builder(fn: Callable[..., Any]) -> Callable[[Any], Any] | None:
    """How an application builds the wrapper's request from JSON: the dataclass's from_dict, or
    for a union of request variants the SDK's own discriminator loader (``_load_<Union>``),
    which picks the variant class the way the runtime's discriminator says. An optional
    ``X | None`` request is built as ``X``."""
    param = inspect.signature(fn).parameters.get("params")
    if param is None:
        return None
    ann = param.annotation
    if not isinstance(ann, str):
        ann = getattr(ann, "__name__", str(ann))
    names = [n.strip().strip("'\"") for n in ann.split("|")]
    names = [n for n in names if n != "None"]
    if len(names) == 1:
        loader = getattr(generated, f"_load_{names[0]}", None)
        if loader is not None:
            return loader
        cls = getattr(generated, names[0], None)
        if hasattr(cls, "from_dict"):
            return cls.from_dict
    raise TypeError(f"the request annotation {ann!r} of {fn.__qualname__} names no generated dataclass or loader")


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


def lost(given: Any, held: Any, ptr: str = "") -> list[str]:
    """JSON pointers into given whose value held does not carry as given."""
    if isinstance(given, dict):
        if not isinstance(held, dict):
            return [ptr]
        out: list[str] = []
        for k, v in given.items():
            p = ptr + "/" + k.replace("~", "~0").replace("/", "~1")
            out += lost(v, held[k], p) if k in held else [p]
        return out
    if isinstance(given, list):
        if not isinstance(held, list) or len(held) != len(given):
            return [ptr]
        return [p for i, v in enumerate(given) for p in lost(v, held[i], f"{ptr}/{i}")]
    if isinstance(given, bool) or isinstance(held, bool):
        return [] if type(given) is type(held) and given == held else [ptr]
    return [] if given == held else [ptr]


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
    build = _request_builder(fn)
    sent: list[Any] = []
    token = _sent.set(sent)
    try:
        if build is None:
            result = await fn()
        else:
            result = await fn(build(params))
    finally:
        _sent.reset(token)
    wire = sent[0] if sent else {}
    if session_scoped and isinstance(wire, dict):
        wire = {k: v for k, v in wire.items() if k != "sessionId"}
    return {"result": to_json(result), "unrepresentable": sorted(lost(params, wire if wire is not None else {}))}


def count(root: Any) -> int:
    return len(wrapper_index(root))


def capabilities(label: str, caps: dict[str, bool], notes: dict[str, str]) -> None:
    """rpc.generated when the generated client and session layers exist."""
    server = wrapper_index(generated.ServerRpc(None))
    session = wrapper_index(generated.SessionRpc(None, ""))
    caps["rpc.generated"] = bool(server) and bool(session)
    notes["rpc.generated"] = (
        f"{label}: {len(server)} client (ServerRpc) and {len(session)} session (SessionRpc) generated "
        "wrappers; params built with the request dataclass's from_dict, results re-serialised with "
        "to_dict; the wrappers drop every top-level None (params.to_dict() filtered), so an explicit "
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
