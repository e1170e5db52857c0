"""The application's surface of the installed SDK (PROTOCOL.md "Surface").

Read from the SDK itself: the keyword parameters of CopilotClient.create_session /
resume_session / __init__ and the fields of its TypedDicts and dataclasses, with their type
hints. No field is named here.
"""

from __future__ import annotations

import collections.abc
import datetime
import dataclasses
import functools
import inspect
import types
import typing
from typing import Any

import copilot
import copilot.session
from copilot import CopilotClient

# owner -> the config types declaring it, by their names in copilot / copilot.session (the first
# ones found; older versions lack some).
TYPED_OWNERS = {
    "tool": ["Tool"],
    "customAgent": ["CustomAgentConfig"],
    "mcpServer": ["MCPStdioServerConfig", "MCPHTTPServerConfig"],
    "command": ["CommandDefinition"],
    "provider": ["ProviderConfig"],
    "systemMessage": ["SystemMessageAppendConfig", "SystemMessageReplaceConfig", "SystemMessageCustomizeConfig"],
}

_NONE = type(None)



_HINTS: dict[Any, dict[str, Any] | Exception] = {}


def _hints(obj: Any) -> dict[str, Any]:
    """typing.get_type_hints, reading a name that the SDK's own annotations use but its module does
    not define (1.0.0b1's create_session names SessionFsProvider) as Any instead of failing: the
    field is still inventoried, with an unknown type. Kept per object (its failure too): resolving
    the hints was a tenth of the driver's CPU when done for every value converted, and a class's
    or function's annotations do not change while the driver runs. Callers only read the dict."""
    if obj not in _HINTS:
        _HINTS[obj] = _resolve_hints(obj)
    h = _HINTS[obj]
    if isinstance(h, Exception):
        raise h
    return h


def _resolve_hints(obj: Any) -> dict[str, Any] | Exception:
    unknown: dict[str, Any] = {}
    while True:
        try:
            return typing.get_type_hints(obj, localns=unknown or None)
        except NameError as e:
            if not e.name or e.name in unknown:
                return e
            unknown[e.name] = Any
        except Exception as e:  # noqa: BLE001 - raised again to each caller, as before
            return e

def _args_without_none(t: Any) -> tuple[list[Any], bool]:
    origin = typing.get_origin(t)
    if origin in (typing.Union, types.UnionType):
        args = list(typing.get_args(t))
        return [a for a in args if a is not _NONE], _NONE in args
    return [t], t is _NONE


def shape(t: Any) -> tuple[str, list[str] | None]:
    """The neutral shape of a type hint, and an enum's values."""
    parts, _ = _args_without_none(t)
    if len(parts) > 1:
        shapes = [shape(p) for p in parts]
        if any(s == "string[]" for s, _ in shapes):
            return "string[]", None  # list[str] | ToolSet: an application's plain list
        if any(s == "handler" for s, _ in shapes):
            return "handler", None
        return "other", None
    (t,) = parts
    origin = typing.get_origin(t)
    if origin is typing.Literal:
        values = [a for a in typing.get_args(t) if isinstance(a, str)]
        return ("enum", values) if values else ("other", None)
    if origin is collections.abc.Callable or t is collections.abc.Callable:
        return "handler", None
    if origin in (list, collections.abc.Sequence, tuple):
        args = typing.get_args(t)
        return ("string[]", None) if args and args[0] is str else ("array", None)
    if origin in (dict, collections.abc.Mapping):
        return "map", None
    if t is str:
        return "string", None
    if t is bool:
        return "boolean", None
    if t is int:
        return "integer", None
    if t is float:
        return "number", None
    if inspect.isclass(t) and (typing.is_typeddict(t) or dataclasses.is_dataclass(t) or hasattr(t, "model_fields")):
        return "object", None
    if callable(t) and getattr(t, "__call__", None) and inspect.isclass(t) and issubclass(t, typing.Protocol):
        return "handler", None
    if inspect.isclass(t) and _implemented_by_application(t):
        return "handler", None
    return "other", None


def _object_of(t: Any) -> Any:
    """The TypedDict or dataclass a hint holds (itself, a list's element, a dict's value), or None."""
    parts, _ = _args_without_none(t)
    classes = []
    for p in parts:
        origin, args = typing.get_origin(p), typing.get_args(p)
        if origin in (list, collections.abc.Sequence) and args:
            p = args[0]
        elif origin in (dict, collections.abc.Mapping) and len(args) == 2:
            p = args[1]
        if inspect.isclass(p) and (typing.is_typeddict(p) or dataclasses.is_dataclass(p)):
            classes.append(p)
    # DefaultAgentConfig | dict[str, Any]: the declared class is what an application writes.
    return classes[0] if len(classes) == 1 else None


def _members(t: Any, owner: str, depth: int) -> list[dict[str, Any]]:
    try:
        hints = _hints(t)
    except Exception:  # noqa: BLE001 - a type whose hints do not resolve is listed without them
        hints = getattr(t, "__annotations__", {})
    optional_keys = getattr(t, "__optional_keys__", None)
    fields = {f.name: f for f in dataclasses.fields(t)} if dataclasses.is_dataclass(t) else {}
    out = []
    for name, hint in hints.items():
        if name.startswith("_"):
            continue
        _, has_none = _args_without_none(hint)
        if optional_keys is not None:
            opt = name in optional_keys
        elif name in fields:
            # Only a None default tells "not set" apart: any other default ("", [], a factory)
            # is a value the SDK sends as if the application had set it.
            opt = fields[name].default is None
        else:
            opt = has_none
        out.append(_entry(owner, name, hint, opt, f"{t.__module__}.{t.__qualname__}", depth + 1))
    return out


def _implemented_by_application(t: type) -> bool:
    """A class the application subclasses to be called back (CanvasHandler, CopilotRequestHandler):
    abstract, or one whose public members are all plain methods (no class or static methods, no
    data; a RuntimeConnection's for_uri factories are not callbacks)."""
    if t in (str, int, float, bool, bytes, object) or t.__module__ == "builtins":
        return False
    if inspect.isabstract(t):
        return True
    public = [n for n in dir(t) if not n.startswith("_")]
    return bool(public) and all(inspect.isfunction(inspect.getattr_static(t, n)) for n in public)


def callback_class(owner: str, name: str) -> type | None:
    """The callback class (_implemented_by_application) a keyword of an owner's function takes, or None."""
    fn = {"sessionConfig": CopilotClient.create_session, "clientOptions": CopilotClient.__init__}.get(owner)
    if owner == "resumeConfig":
        fn = getattr(CopilotClient, "resume_session", None)
    if fn is None:
        return None
    parts, _ = _args_without_none(_hints(fn).get(name, Any))
    classes = [p for p in parts if inspect.isclass(p) and _implemented_by_application(p)]
    return classes[0] if len(classes) == 1 else None


def _noop_instance(t: type, called: Any = None) -> Any:
    """An instance of a callback class whose every public method does nothing but call called(),
    when given (returns None)."""

    def method(*args: Any, **kwargs: Any) -> None:
        if called is not None:
            called()

    methods = {n: method for n in dir(t) if not n.startswith("_") and inspect.isfunction(inspect.getattr_static(t, n))}
    methods.update({n: method for n in getattr(t, "__abstractmethods__", ())})
    sub = type(f"Noop{t.__name__}", (t,), methods)
    try:
        return sub()
    except TypeError:
        return None


def _entry(owner: str, name: str, hint: Any, optional: bool, declared_by: str, depth: int = 0) -> dict[str, Any]:
    s, values = shape(hint)
    e = {
        "owner": owner,
        "name": name,
        "type": str(hint).replace("typing.", ""),
        "kind": "handler" if s == "handler" else "field",
        "shape": s,
        "optional": optional,
        "declaredBy": declared_by,
    }
    if values:
        e["values"] = values
    obj = _object_of(hint) if s != "handler" and depth < 2 else None
    if obj is not None:
        # The members of the object the field holds (PROTOCOL.md "Surface"), read the same way.
        fields = _members(obj, owner, depth)
        if fields:
            e["fields"] = fields
        if s == "object" and fields and all(f["kind"] == "handler" for f in fields):
            e["kind"] = "handler"  # SessionHooks: callbacks the application registers
    return e


def _keywords(owner: str, fn: Any, label: str) -> list[dict[str, Any]]:
    hints = _hints(fn)
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        if name == "self" or p.kind not in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
            continue
        if name == "session_id" and owner == "resumeConfig":
            continue  # the session to resume, not a config field
        hint = hints.get(name, Any)
        _, has_none = _args_without_none(hint)
        out.append(_entry(owner, name, hint, has_none and p.default is None, label))
    return out


def _typed(owner: str, names: list[str]) -> list[dict[str, Any]]:
    out, seen = [], set()
    for n in names:
        t = getattr(copilot, n, None) or getattr(copilot.session, n, None)
        if t is None:
            continue
        try:
            hints = _hints(t)
        except Exception:  # noqa: BLE001 - a type whose hints do not resolve is listed without them
            hints = getattr(t, "__annotations__", {})
        optional_keys = getattr(t, "__optional_keys__", None)
        for name, hint in hints.items():
            if name in seen or name.startswith("_"):
                continue
            seen.add(name)
            _, has_none = _args_without_none(hint)
            opt = name in optional_keys if optional_keys is not None else has_none
            out.append(_entry(owner, name, hint, opt, f"{t.__module__}.{t.__qualname__}"))
    return out


@functools.cache
def _surface() -> tuple[dict[str, Any], ...]:
    return tuple(_read())


def surface() -> list[dict[str, Any]]:
    """Every entry, read once per process (the SDK does not change under a running driver)."""
    return [dict(e) for e in _surface()]


def _read() -> list[dict[str, Any]]:
    entries = _keywords("sessionConfig", CopilotClient.create_session, "CopilotClient.create_session")
    if hasattr(CopilotClient, "resume_session"):
        entries += _keywords("resumeConfig", CopilotClient.resume_session, "CopilotClient.resume_session")
    entries += _keywords("clientOptions", CopilotClient.__init__, "CopilotClient.__init__")
    for owner, names in TYPED_OWNERS.items():
        entries += _typed(owner, names)
    return entries


def declared(owner: str, kind: str = "field") -> set[str]:
    return {e["name"] for e in _surface() if e["owner"] == owner and e["kind"] == kind}


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


def _to_type(t: Any, value: Any) -> Any:
    """value (JSON) as type hint t holds it: TypedDict and dataclass keys matched to the type's own
    names by spelling (display_name for displayName), dataclasses built, lists and dicts of them
    converted element by element. A key the type does not declare is a TypeError (the driver
    answers unsupported: the value is not for this SDK's type)."""
    parts, _ = _args_without_none(t)
    if value is None:
        return None
    if len(parts) > 1:
        errors = []
        for p in parts:
            try:
                return _to_type(p, value)
            except TypeError as e:
                errors.append(str(e))
        raise TypeError("; ".join(errors))
    (t,) = parts
    origin = typing.get_origin(t)
    args = typing.get_args(t)
    if origin in (list, collections.abc.Sequence) and isinstance(value, list):
        return [_to_type(args[0], v) for v in value] if args else value
    if origin in (dict, collections.abc.Mapping) and isinstance(value, dict):
        return {k: _to_type(args[1], v) for k, v in value.items()} if len(args) == 2 else value
    if inspect.isclass(t) and isinstance(value, dict) and (typing.is_typeddict(t) or dataclasses.is_dataclass(t)):
        try:
            hints = _hints(t)
        except Exception:  # noqa: BLE001 - hints that do not resolve: the annotations as written
            hints = getattr(t, "__annotations__", {})
        names = {_norm(n): n for n in hints}
        out = {}
        for k, v in value.items():
            n = names.get(_norm(k))
            if n is None:
                raise TypeError(f"{t.__qualname__} has no field {k}")
            out[n] = _to_type(hints[n], v)
        # A required callback the value lacks (a command's handler) gets one that does nothing
        # (capability surface.callbacks): a JSON value cannot hold it.
        required = getattr(t, "__required_keys__", None)
        if required is None and dataclasses.is_dataclass(t):
            required = {f.name for f in dataclasses.fields(t) if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
        for n in required or ():
            if n not in out and n in hints and shape(hints[n])[0] == "handler":
                out[n] = _noop
        return t(**out) if dataclasses.is_dataclass(t) else out
    if inspect.isclass(t) and not isinstance(value, (dict, list)) and t in (str, int, float, bool):
        return value
    if isinstance(value, (dict, list)) and inspect.isclass(t) and t not in (dict, list) and origin is None and t is not Any:
        raise TypeError(f"{t!r} cannot hold {type(value).__name__}")
    return value


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


def convert(fn: Any, name: str, value: Any) -> Any:
    """A JSON value as the keyword's declared type holds it (_to_type)."""
    return _to_type(_hints(fn).get(name, Any), value)


def _hook_type(key: str) -> str:
    """A SessionHooks key under the runtime's hook type (on_pre_tool_use -> preToolUse)."""
    first, *rest = key.removeprefix("on_").split("_")
    return first + "".join(w[:1].upper() + w[1:] for w in rest)


@functools.cache
def hook_inputs() -> dict[str, Any]:
    """Each hook's declared input (PROTOCOL.md "Runtime→SDK methods", hookInputs): the TypedDict
    a SessionHooks callback takes first, every key of it with its hint (NotRequired: optional),
    under its own name (the SDK declares no other wire key), a datetime as the shape "date"."""
    hooks = None
    for part in _args_without_none(_hints(CopilotClient.create_session).get("hooks", Any))[0]:
        if inspect.isclass(part) and typing.is_typeddict(part):
            hooks = part
    out: dict[str, Any] = {}
    if hooks is None:
        return out
    for key, hint in _hints(hooks).items():
        args = typing.get_args(hint)
        if not key.startswith("on_") or not args or not isinstance(args[0], list) or not args[0]:
            continue
        t = args[0][0]
        if not (inspect.isclass(t) and typing.is_typeddict(t)):
            continue
        declared_by = f"{t.__module__}.{t.__qualname__}"
        # With postponed annotations, Python 3.11's TypedDict does not see NotRequired in its
        # __optional_keys__: the hints with their extras say it.
        optional_keys = set(getattr(t, "__optional_keys__", frozenset()))
        try:
            extras = typing.get_type_hints(t, include_extras=True)
        except Exception:  # noqa: BLE001 - hints that do not resolve: __optional_keys__ alone
            extras = {}
        for name, h in extras.items():
            if typing.get_origin(h) is typing.NotRequired:
                optional_keys.add(name)
        members = []
        for name, h in _hints(t).items():
            e = _entry("hookInput", name, h, name in optional_keys, declared_by, 2)
            if h is datetime.datetime:
                e["shape"] = "date"
            e["wire"] = name
            members.append(e)
        out[_hook_type(key)] = {"declaredBy": declared_by, "members": members}
    return out
