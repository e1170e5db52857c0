"""Builds SDK values from the harness's JSON the way an application does (../PROTOCOL.md
"Building SDK values"): a dataclass through its constructor's keyword arguments, an enum from its
value, a list, dict, datetime or UUID as Python writes them, following the declared types
(``typing.get_type_hints``). A wire key is matched to a field by the language's convention (the
camelCase key and the snake_case field compared lower-cased without separators: ``queueId`` ↔
``queue_id``, ``origin-tracker`` ↔ ``origin_tracker``), never through the SDK's ``from_dict`` / ``to_dict``, so that a wrong wire name in
the SDK's own serializer shows on the wire instead of being undone by the same mapping.

A discriminated union is resolved by the variants' own constants (the ``ClassVar`` each variant
class declares, ``kind: ClassVar[str] = "spawned"``), which is how an application picks the class.
Only where a type offers no way to build it by name (no dataclass, no declared variant constant,
type hints that do not resolve) is that sub-value built with the SDK's deserializer, and the type
and the reason are recorded in ``TALLY`` (reported in hello's notes as ``driver.builtBy``).
"""

from __future__ import annotations

import dataclasses
import functools
import enum
import re
import types
import typing
import uuid
from datetime import datetime
from typing import Any

# Type name -> why it was built through the SDK's deserializer (filled by the fallback).
TALLY: dict[str, str] = {}
# Type names built by name (dataclasses and enums), for the tally's count.
BY_NAME: set[str] = set()


@functools.cache
def _norm(name: str) -> str:
    # A key that is no identifier (origin-tracker) is written with underscores in Python.
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _ptr(at: str, key: Any) -> str:
    return at + "/" + str(key).replace("~", "~0").replace("/", "~1")


_hints: dict[type, dict[str, Any] | Exception] = {}


def hints(cls: type) -> dict[str, Any]:
    """The class's resolved annotations (ClassVar ones included); raises when they do not resolve."""
    if cls not in _hints:
        try:
            _hints[cls] = typing.get_type_hints(cls)
        except Exception as e:  # a name the module does not define at run time
            _hints[cls] = e
    h = _hints[cls]
    if isinstance(h, Exception):
        raise h
    return h


# Per class: a class's fields and constants do not change while the driver runs, and working
# them out again for every value built was a good part of the driver's CPU in the sweeps.
@functools.cache
def _classvars(cls: type) -> dict[str, Any]:
    """The discriminator constants a variant class declares (``ClassVar`` with a value)."""
    out: dict[str, Any] = {}
    for name, tp in hints(cls).items():
        if typing.get_origin(tp) is typing.ClassVar and hasattr(cls, name):
            out[name] = getattr(cls, name)
    return out


class Result:
    """What one build did: ``placed`` the JSON pointers of keys set on a declared field (or kept
    in a dict) with a non-null value, ``unknown`` those of keys the type has no field for."""

    def __init__(self) -> None:
        self.placed: set[str] = set()
        self.unknown: list[str] = []


def _fallback(tp: Any, value: Any, why: str) -> Any:
    name = getattr(tp, "__qualname__", None) or str(tp)
    loader = None
    mod = typing.cast(Any, __import__(getattr(tp, "__module__", "builtins"), fromlist=["_"]))
    if hasattr(tp, "from_dict"):
        loader = tp.from_dict
    elif getattr(mod, f"_load_{name}", None) is not None:
        loader = getattr(mod, f"_load_{name}")
    if loader is None:
        raise TypeError(f"{name}: cannot be built by name ({why}) and has no from_dict")
    TALLY[name] = f"built through the SDK's deserializer because {why}"
    return loader(value)


def _union_args(tp: Any) -> tuple[Any, ...] | None:
    if typing.get_origin(tp) is typing.Union or isinstance(tp, types.UnionType):
        return typing.get_args(tp)
    return None


def build(tp: Any, value: Any, res: Result | None = None, at: str = "") -> Any:
    """value (JSON) as a value of the declared type tp."""
    res = res if res is not None else Result()
    if tp is Any or tp is object or tp is None or isinstance(tp, (str, typing.TypeVar)):
        return value
    if tp is type(None):
        if value is not None:
            raise TypeError(f"{at or '/'}: want null")
        return None
    args = _union_args(tp)
    if args is not None:
        if value is None and type(None) in args:
            return None
        return _build_union(tp, [a for a in args if a is not type(None)], value, res, at)
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        if value not in typing.get_args(tp):
            raise TypeError(f"{at or '/'}: {value!r} is not one of {typing.get_args(tp)}")
        return value
    if origin is typing.Annotated:
        return build(typing.get_args(tp)[0], value, res, at)
    if origin in (list, tuple, set, frozenset) or origin is typing.get_origin(typing.Sequence[int]):
        if not isinstance(value, list):
            raise TypeError(f"{at or '/'}: want a list")
        (item, *_) = typing.get_args(tp) or (Any,)
        out = [_child(item, v, res, _ptr(at, i)) for i, v in enumerate(value)]
        return out if origin is not tuple else tuple(out)
    if origin in (dict, typing.get_origin(typing.Mapping[str, int])):
        if not isinstance(value, dict):
            raise TypeError(f"{at or '/'}: want an object")
        kv = typing.get_args(tp)
        vt = kv[1] if len(kv) == 2 else Any
        return {k: _child(vt, v, res, _ptr(at, k)) for k, v in value.items()}
    if not isinstance(tp, type):
        return value
    if dataclasses.is_dataclass(tp):
        return _build_dataclass(tp, value, res, at)
    if issubclass(tp, enum.Enum):
        BY_NAME.add(tp.__qualname__)
        return tp(value)
    if tp is bool:
        if not isinstance(value, bool):
            raise TypeError(f"{at or '/'}: want a boolean")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not value.is_integer()):
            raise TypeError(f"{at or '/'}: want an integer")
        return int(value)
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{at or '/'}: want a number")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise TypeError(f"{at or '/'}: want a string")
        return value
    if tp is datetime:
        return datetime.fromisoformat(value)
    if tp is uuid.UUID:
        return uuid.UUID(value)
    if tp in (dict, list):
        return value
    if typing.is_typeddict(tp):
        return _build_typeddict(tp, value, res, at)
    return _fallback(tp, value, "it is neither a dataclass nor a type Python builds from JSON")


def _child(tp: Any, value: Any, res: Result, at: str) -> Any:
    if value is not None:
        res.placed.add(at)
    return build(tp, value, res, at)


@functools.cache  # see _classvars; an exception (hints that do not resolve) is raised each time
def _field_index(cls: type) -> dict[str, tuple[str, Any, bool]]:
    """Normalised name -> (field name, declared type, is a ClassVar constant)."""
    h = hints(cls)
    idx: dict[str, tuple[str, Any, bool]] = {}
    for f in dataclasses.fields(cls):
        if f.init:
            idx[_norm(f.name)] = (f.name, h.get(f.name, Any), False)
    for name, tp in h.items():
        if typing.get_origin(tp) is typing.ClassVar and hasattr(cls, name):
            idx.setdefault(_norm(name), (name, tp, True))
    return idx


def _build_dataclass(cls: type, value: Any, res: Result, at: str) -> Any:
    if not isinstance(value, dict):
        raise TypeError(f"{at or '/'}: {cls.__qualname__} wants an object")
    try:
        idx = _field_index(cls)
    except Exception as e:
        return _fallback(cls, value, f"its type hints do not resolve ({e})")
    kwargs: dict[str, Any] = {}
    for k, v in value.items():
        p = _ptr(at, k)
        found = idx.get(_norm(k))
        if found is None:
            res.unknown.append(p)
            continue
        name, tp, constant = found
        if constant:
            if v != getattr(cls, name):
                raise TypeError(f"{p}: {cls.__qualname__}.{name} is the constant {getattr(cls, name)!r}")
            res.placed.add(p)
            continue
        kwargs[name] = _child(tp, v, res, p)
    BY_NAME.add(cls.__qualname__)
    return cls(**kwargs)


def _build_typeddict(cls: type, value: Any, res: Result, at: str) -> Any:
    if not isinstance(value, dict):
        raise TypeError(f"{at or '/'}: {cls.__qualname__} wants an object")
    h = hints(cls)
    idx = {_norm(n): (n, t) for n, t in h.items()}
    out: dict[str, Any] = {}
    for k, v in value.items():
        p = _ptr(at, k)
        found = idx.get(_norm(k))
        if found is None:
            res.unknown.append(p)
            continue
        out[found[0]] = _child(found[1], v, res, p)
    BY_NAME.add(cls.__qualname__)
    return out


def _fits(cls: type, value: dict[str, Any]) -> bool:
    try:
        idx = _field_index(cls)
    except Exception:
        return False
    given = {_norm(k) for k in value}
    required = {_norm(f.name) for f in dataclasses.fields(cls) if f.init and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING}
    return given <= set(idx) and required <= given


def _field_sets_differ(classes: list[type]) -> bool:
    """Whether the variants' field names tell them apart (no two share one set of names)."""
    sets = [frozenset(_norm(f.name) for f in dataclasses.fields(c)) for c in classes]
    return len(set(sets)) == len(sets)


def _kind(value: Any) -> tuple[type, ...]:
    """The Python types a JSON value of this kind is built into, for picking a union member."""
    if isinstance(value, bool):
        return (bool,)
    if isinstance(value, int):
        return (int, float)
    if isinstance(value, float):
        return (float,)
    if isinstance(value, str):
        return (str, enum.Enum, datetime, uuid.UUID)
    return ()


def _build_union(tp: Any, members: list[Any], value: Any, res: Result, at: str) -> Any:
    if len(members) == 1:
        return build(members[0], value, res, at)
    if isinstance(value, dict):
        classes = [m for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)]
        try:
            chosen = [c for c in classes if (cv := _classvars(c)) and all(
                any(_norm(k) == _norm(n) and v == c_v for k, v in value.items()) for n, c_v in cv.items())]
        except Exception:
            chosen = []
        if len(chosen) != 1:
            # No constant decides: the one variant whose fields take every key given and whose
            # required fields are all given, as an application picks a class by its fields.
            chosen = [c for c in classes if _fits(c, value)]
        if len(chosen) == 1:
            return build(chosen[0], value, res, at)
        others = [m for m in members if m not in classes]
        if len(classes) == 1:
            return build(classes[0], value, res, at)
        if not classes and others:
            return build(others[0], value, res, at)
        name = " | ".join(getattr(m, "__qualname__", str(m)) for m in members)
        return _fallback_union(members, value, f"no variant of {name} declares a constant matching the value")
    if isinstance(value, list):
        for m in members:
            if typing.get_origin(m) in (list, tuple) or m is list:
                return build(m, value, res, at)
    kinds = _kind(value)
    for m in members:
        if isinstance(m, type) and issubclass(m, kinds):
            try:
                return build(m, value, res, at)
            except (TypeError, ValueError):
                continue
    for m in members:
        try:
            return build(m, value, res, at)
        except (TypeError, ValueError):
            continue
    raise TypeError(f"{at or '/'}: {value!r} fits no member of {tp}")


def _fallback_union(members: list[Any], value: Any, why: str) -> Any:
    """A union no variant constant resolves: the SDK's discriminator loader for it, when the
    module declares one for exactly these members."""
    mods = {getattr(m, "__module__", "") for m in members}
    for modname in mods:
        mod = __import__(modname, fromlist=["_"]) if modname else None
        for name, alias in vars(mod or object()).items():
            if _union_args(alias) and set(typing.get_args(alias)) == set(members):
                loader = getattr(mod, f"_load_{name}", None)
                if loader is not None:
                    TALLY[name] = f"built through the SDK's deserializer because {why}"
                    return loader(value)
    raise TypeError(why)


def unrepresentable(given: Any, held: Any, res: Result, at: str = "") -> list[str]:
    """JSON pointers into given that held (what the SDK sent, or its re-serialisation) does not
    carry as given, less the keys the builder set on a declared field: a key it placed by name
    that is missing from held is the SDK's serializer losing or renaming it, for the harness to
    see on the wire, not a limitation of the type."""
    if isinstance(given, dict):
        if not isinstance(held, dict):
            return [at]
        out: list[str] = []
        for k, v in given.items():
            p = _ptr(at, k)
            if k in held:
                out += unrepresentable(v, held[k], res, p)
            elif p not in res.placed:
                out.append(p)
        return out
    if isinstance(given, list):
        if not isinstance(held, list) or len(held) != len(given):
            return [at]
        return [p for i, v in enumerate(given) for p in unrepresentable(v, held[i], res, f"{at}/{i}")]
    if isinstance(given, bool) or isinstance(held, bool):
        return [] if type(given) is type(held) and given == held else [at]
    return [] if given == held else [at]


def plan(tp: Any, seen: set[Any] | None = None) -> None:
    """Walk the declared type tp as build would, without a value, so that hello can report which
    types build by name and which need the SDK's deserializer (TALLY, BY_NAME)."""
    seen = seen if seen is not None else set()
    try:
        if tp in seen:
            return
        seen.add(tp)
    except TypeError:
        pass
    args = _union_args(tp)
    if args is not None:
        members = [a for a in args if a is not type(None)]
        classes = [m for m in members if isinstance(m, type) and dataclasses.is_dataclass(m)]
        if len(classes) > 1:
            try:
                unresolved = [c for c in classes if not _classvars(c)]
            except Exception:
                unresolved = classes
            if unresolved and not _field_sets_differ(classes):
                names = " | ".join(c.__qualname__ for c in classes)
                alias = _union_alias(classes)
                TALLY[alias or names] = ("built through the SDK's deserializer because no variant of "
                                         f"{names} declares a constant to choose it by, and their field names are the same")
        for m in members:
            plan(m, seen)
        return
    origin = typing.get_origin(tp)
    if origin is typing.ClassVar:
        return
    if origin is not None:
        for a in typing.get_args(tp):
            plan(a, seen)
        return
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        try:
            h = hints(tp)
        except Exception as e:
            TALLY[tp.__qualname__] = f"built through the SDK's deserializer because its type hints do not resolve ({e})"
            return
        BY_NAME.add(tp.__qualname__)
        for f in dataclasses.fields(tp):
            plan(h.get(f.name, Any), seen)
    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        BY_NAME.add(tp.__qualname__)
    elif isinstance(tp, type) and typing.is_typeddict(tp):
        BY_NAME.add(tp.__qualname__)
        for t in hints(tp).values():
            plan(t, seen)


def _union_alias(classes: list[type]) -> str | None:
    for modname in {c.__module__ for c in classes}:
        mod = __import__(modname, fromlist=["_"])
        for name, alias in vars(mod).items():
            if _union_args(alias) and set(typing.get_args(alias)) == set(classes):
                return name
    return None


def tally_note() -> str:
    """hello's ``driver.builtBy`` note: how many types build by name, and each that does not."""
    parts = [f"{len(BY_NAME)} SDK types built by name (dataclass constructors, enums, TypedDicts)"]
    if TALLY:
        parts.append(f"{len(TALLY)} through the SDK's deserializer: " + "; ".join(
            f"{k}: {v}" for k, v in sorted(TALLY.items())))
    else:
        parts.append("none through the SDK's deserializer")
    return "; ".join(parts)
