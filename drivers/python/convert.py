"""The ``convert`` command (../PROTOCOL.md "Generated RPC layer", Converters): a value of one of
the SDK's generated dataclasses (``copilot.generated.rpc``, ``copilot.generated.session_events``),
found by its name in those modules, built by name through its constructor (byname.py), written
with its public ``to_dict`` and read back with its public ``from_dict``, then written again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import copilot.generated.rpc as generated

import byname
from rpc import error_object

try:
    import copilot.generated.session_events as generated_events
except ImportError:  # an SDK version without generated session events
    generated_events = None

MODULES = [m for m in (generated, generated_events) if m is not None]


def find(name: str) -> type | None:
    """The generated dataclass named name that has both converters, or None."""
    for mod in MODULES:
        cls = getattr(mod, name, None)
        if (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == mod.__name__
                and callable(getattr(cls, "to_dict", None)) and callable(getattr(cls, "from_dict", None))):
            return cls
    return None


def count() -> int:
    return sum(1 for mod in MODULES for name in vars(mod) if find(name) is not None)


def convert_one(name: str, value: Any, label: str) -> dict[str, Any]:
    cls = find(name)
    if cls is None:
        return {"outcome": "unsupported",
                "reason": f"{label}: the generated modules declare no dataclass {name} with to_dict and from_dict"}
    res = byname.Result()
    try:
        built = byname.build(cls, value, res)
    except Exception as exc:
        return {"outcome": "error", "error": {"type": "DriverError", "message": f"cannot build {name} by name: {exc}"}}
    try:
        written = built.to_dict()
    except Exception as exc:  # the converter to JSON raised
        return {"outcome": "error", "error": error_object(exc)}
    out: dict[str, Any] = {"outcome": "ok", "json": written,
                           "unrepresentable": sorted(byname.unrepresentable(value, written, res))}
    try:
        out["back"] = cls.from_dict(written).to_dict()
    except Exception as exc:  # the converter from JSON raised
        out["readError"] = error_object(exc)
    return out


def convert(values: list[dict[str, Any]], label: str) -> dict[str, Any]:
    return {"outcomes": [convert_one(v["type"], v["value"], label) for v in values]}


def capabilities(label: str, caps: dict[str, bool], notes: dict[str, str]) -> None:
    n = count()
    caps["convert.roundtrip"] = n > 0
    notes["convert.roundtrip"] = (
        f"{label}: {n} generated dataclasses with to_dict / from_dict, built by name (byname.py), "
        "written with to_dict and read back with from_dict")
