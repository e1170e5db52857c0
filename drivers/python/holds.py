"""Held handlers (PROTOCOL.md "Holding a handler"): ``hold`` arms a gate per (handle, kind), a
kind being a runtime-to-SDK method or ``tool NAME``; a handler reached under an armed gate reports
as usual, then waits until ``release`` opens it, as an application awaiting something slow does.
The gates are futures of ``concurrent.futures``: the release comes from the command loop's thread,
the handler awaits on its client's loop. HOLD_GIVE_UP_S bounds the wait should no release come."""

from __future__ import annotations

import asyncio
import collections.abc
import concurrent.futures
import threading
import typing
from typing import Any, Callable

HOLD_GIVE_UP_S = 30.0
_GATES: dict[str, concurrent.futures.Future] = {}
_LOCK = threading.Lock()


def _keys(args: dict[str, Any]) -> list[str]:
    if isinstance(args.get("method"), str):
        kind = args["method"]
    elif isinstance(args.get("request"), str):
        kind = f"request {args['request']}"
    else:
        kind = f"tool {args.get('tool')}"
    return [f"{h}\0{kind}" for h in (args.get("session"), args.get("client")) if isinstance(h, str)]


def hold(args: dict[str, Any]) -> dict[str, Any]:
    with _LOCK:
        for k in _keys(args):
            _GATES.setdefault(k, concurrent.futures.Future())
    return {}


def release(args: dict[str, Any]) -> dict[str, Any]:
    with _LOCK:
        for k in _keys(args):
            gate = _GATES.pop(k, None)
            if gate is not None:
                gate.set_result(None)
    return {}


def armed(handle: str | None, kind: str) -> bool:
    """Whether a gate is armed for the handle and kind."""
    with _LOCK:
        return f"{handle}\0{kind}" in _GATES


async def held(handle: str | None, kind: str, told: Callable[[], None] | None = None) -> None:
    """Waits while a gate is armed for the handle and kind (at once when none is). ``told``, for
    a handler the SDK tells that its call was resolved by cancelling its task, runs the moment the
    cancellation reaches the wait; the cancellation then goes on, as an application lets it."""
    with _LOCK:
        gate = _GATES.get(f"{handle}\0{kind}")
    if gate is None:
        return
    try:
        await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(gate)), HOLD_GIVE_UP_S)
    except asyncio.TimeoutError:
        pass
    except asyncio.CancelledError:
        if told is not None:
            told()
        raise


def tool_cancel_way() -> str:
    """How the SDK tells a tool handler that its call was resolved (PROTOCOL.md "Holding a
    handler", capability handler.cancel.tool): a handler whose declared type
    (copilot.tools.ToolHandler) may return an awaitable runs as a task the SDK can cancel; ""
    when the type admits none."""
    try:
        from copilot.tools import ToolHandler  # pylint: disable=import-outside-toplevel
    except ImportError:
        return ""
    args = typing.get_args(ToolHandler)
    returns = args[-1] if args else None
    for t in typing.get_args(returns) or (returns,):
        if typing.get_origin(t) in (collections.abc.Awaitable, collections.abc.Coroutine):
            return "copilot.tools.ToolHandler returns an Awaitable: its task cancelled (asyncio.CancelledError)"
    return ""


# The handler type of each request event kind (PROTOCOL.md "Holding a handler", capability
# handler.cancel.<kind>): the SDK's alias in copilot.session and the argument it is set by.
REQUEST_HANDLERS = {
    "permission": ("permission.requested", "_PermissionHandlerFn"),
    "elicitation": ("elicitation.requested", "ElicitationHandler"),
    "command": ("command.execute", "CommandHandler"),
}


def request_cancel_way(kind: str) -> str:
    """How the SDK could tell the handler of a request kind that the runtime resolved its request:
    a handler type (copilot.session's alias) that may return an awaitable runs as a task the SDK
    can cancel; "" when the type admits none or the SDK has no such alias."""
    import copilot.session as session  # pylint: disable=import-outside-toplevel

    alias = getattr(session, REQUEST_HANDLERS[kind][1], None)
    args = typing.get_args(alias) if alias is not None else ()
    returns = args[-1] if args else None
    for t in typing.get_args(returns) or (returns,):
        if typing.get_origin(t) in (collections.abc.Awaitable, collections.abc.Coroutine):
            return f"copilot.session.{REQUEST_HANDLERS[kind][1]} returns an Awaitable: its task cancelled (asyncio.CancelledError)"
    return ""
