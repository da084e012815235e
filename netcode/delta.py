"""Changes between two versions of a piece of plain data, and applying them.

Owns: the delta format the host uses to send each seat only what changed in
its view since the last snapshot that seat was sent.

A delta of two mappings is a mapping with up to three keys: ``"s"`` (keys
set to a new value), ``"d"`` (keys deleted) and ``"n"`` (keys whose values
are both mappings, with the delta between them). Anything else that changed
is sent whole. ``apply(old, diff(old, new)) == new`` for any plain data
whose mapping keys are strings.

Must not touch: games, sockets. Pure functions of plain data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: the keys a delta may have
_KEYS = frozenset(("s", "d", "n"))


def diff(old: Mapping[str, Any], new: Mapping[str, Any], memo: dict[Any, Any] | None = None) -> dict[str, Any]:
    """What turns ``old`` into ``new`` (an empty dict if they are equal).

    ``memo`` (a dict kept across calls) remembers the delta between nested
    mappings by identity: when several seats' views share the same public
    parts, as the host's do within one move, those parts are compared once.
    Only use a memo while every object diffed with it stays alive and unchanged."""
    changed: dict[str, Any] = {}
    nested: dict[str, Any] = {}
    for key, value in new.items():
        if key not in old:
            changed[key] = value
            continue
        before = old[key]
        if before is value:
            continue
        if (type(before) is dict or isinstance(before, Mapping)) and (  # (a dict asks no ABC)
            type(value) is dict or isinstance(value, Mapping)
        ):
            if memo is None:
                inner = {} if before == value else diff(before, value)
            else:
                pair = (id(before), id(value))
                known: dict[str, Any] | None = memo.get(pair)
                if known is None:
                    known = memo[pair] = {} if before == value else diff(before, value, memo)
                inner = known
            if inner:
                nested[key] = inner
        elif before != value:
            changed[key] = value
    delta: dict[str, Any] = {}
    if changed:
        delta["s"] = changed
    gone = [key for key in old if key not in new]
    if gone:
        delta["d"] = gone
    if nested:
        delta["n"] = nested
    return delta


def touches(delta: Mapping[str, Any], key: str) -> bool:
    """Whether ``delta`` changes ``key`` (at the top level) in any way."""
    return key in delta.get("s", ()) or key in delta.get("d", ()) or key in delta.get("n", ())


def apply(old: Mapping[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    """``old`` with ``delta`` applied, as a new dict (``old`` is left as it was).

    Raises ``ValueError`` if the delta does not fit ``old``."""
    if not (type(delta) is dict or isinstance(delta, Mapping)) or not delta.keys() <= _KEYS:
        raise ValueError("not a delta")
    new = dict(old)
    for key in delta.get("d", ()):
        if key not in new:
            raise ValueError(f"delta deletes {key!r}, which is not there")
        del new[key]
    new.update(delta.get("s", {}))
    for key, inner in delta.get("n", {}).items():
        before = new.get(key)
        if not (type(before) is dict or isinstance(before, Mapping)):
            raise ValueError(f"delta changes inside {key!r}, which is not a mapping")
        new[key] = apply(before, inner)
    return new
