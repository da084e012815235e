"""The grammar every table message is declared in, and its strict decoding. Sans-IO.

Owns: ``Message`` and ``declare`` (a message kind with its fields and what each may
hold), the field checks (``whole``, ``number``, ``text``, ``blob``, ``maybe``, ``items``,
``row``, ``data``, ``one_of``, ``mapping``), ``decode``, which turns received plain
data back into a message or raises ``BadMessage`` naming what was wrong, so a session
can drop and count it; and the limits of plain data (``MAX_DEPTH``, ``MAX_TEXT``,
``MAX_ITEMS``, ``MAX_COUNT``). The wire form is a msgpack-ready list: the kind's name,
then the fields in order. The messages themselves are declared in
``netcode.session.messages``.

Checks are strict: the kind must be known, the number of fields right, every
field of its declared type and within its limits (text length, byte length,
numbers' ranges, list lengths), and nested plain data (views, actions, log
entries) no deeper than ``MAX_DEPTH``: the walk stops there, so its recursion
never goes deeper. Checks that return what they were given check lists in
place, without copying them. Each kind's checks are also written out as one
function (``_compile``), which ``decode`` runs: it accepts exactly what the checks
run one by one accept, and for anything else raises the same error they do. A
payload has already passed the channel's size limits before it gets here.

Must not touch: sockets, clocks, games, any particular message.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, dataclass_transform

#: How deep nested plain data (a view, an action, a log entry) may go.
MAX_DEPTH = 24
#: The longest text field (a rule broken, a note, a name before it is cleaned).
MAX_TEXT = 4096
#: The longest list field (log entries, legal actions, commitments per message).
MAX_ITEMS = 65_536
#: Request ids and counters are below this.
MAX_COUNT = 2**53


class BadMessage(Exception):
    """A message that breaks its declaration; ``reason`` is a short counter name."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


# ---------------------------------------------------------------- field checks

Check = Callable[[Any], Any]


def _same(check: Check) -> Check:
    """Mark ``check`` as one that returns what it was given, unchanged (what it checks can then
    be checked in place, without building a copy)."""
    # a mark on the function object itself (read back by ``getattr``): no type declares it
    check.same = True  # type: ignore[attr-defined]
    return check


def _is_same(check: Check) -> bool:
    return getattr(check, "same", False)


def _shaped(check: Check, *shape: Any) -> Check:
    """Mark ``check`` with what it checks (read by ``_compile``, which writes the checks of a
    message kind out as one function)."""
    check.shape = shape  # type: ignore[attr-defined]  # (a mark, as ``same`` is)
    return check


def whole(low: int, high: int) -> Check:
    def check(value: Any) -> int:
        if type(value) is not int or not low <= value <= high:
            raise BadMessage("bad_field", f"{value!r} is not a whole number in {low}..{high}")
        return value

    return _shaped(_same(check), "whole", low, high)


def number(low: float, high: float) -> Check:
    def check(value: Any) -> float:
        if type(value) not in (int, float) or not low <= value <= high:
            raise BadMessage("bad_field", f"{value!r} is not a number in {low}..{high}")
        return float(value)

    return check


def text(longest: int = MAX_TEXT) -> Check:
    def check(value: Any) -> str:
        if type(value) is not str or len(value) > longest:
            raise BadMessage("bad_field", f"not text of at most {longest} characters")
        return value

    return _shaped(_same(check), "text", longest)


def blob(size: int | None = None, longest: int = 64) -> Check:
    def check(value: Any) -> bytes:
        if type(value) is not bytes or (len(value) != size if size is not None else len(value) > longest):
            raise BadMessage("bad_field", f"not {size if size is not None else f'at most {longest}'} bytes")
        return value

    return _shaped(_same(check), "blob", size, longest)


@_same
def flag(value: Any) -> bool:
    if type(value) is not bool:
        raise BadMessage("bad_field", f"{value!r} is not true or false")
    return value


_shaped(flag, "flag")


def maybe(inner: Check) -> Check:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)

    return _shaped(_same(check), "maybe", inner) if _is_same(inner) else check


def items(inner: Check, longest: int = MAX_ITEMS) -> Check:
    def check(value: Any) -> list[Any]:
        if type(value) is not list or len(value) > longest:
            raise BadMessage("bad_field", f"not a list of at most {longest} items")
        return [inner(item) for item in value]

    def check_in_place(value: Any) -> list[Any]:
        if type(value) is not list or len(value) > longest:
            raise BadMessage("bad_field", f"not a list of at most {longest} items")
        for item in value:
            inner(item)
        return value

    return _shaped(_same(check_in_place), "items", inner, longest) if _is_same(inner) else check


def row(*columns: Check) -> Check:
    """A fixed-length list whose items each have their own check."""
    width = len(columns)

    def check(value: Any) -> list[Any]:
        if type(value) is not list or len(value) != width:
            raise BadMessage("bad_field", f"not a row of {width}")
        return [column(item) for column, item in zip(columns, value, strict=True)]

    def check_in_place(value: Any) -> list[Any]:
        if type(value) is not list or len(value) != width:
            raise BadMessage("bad_field", f"not a row of {width}")
        for column, item in zip(columns, value, strict=True):
            column(item)
        return value

    return _shaped(_same(check_in_place), "row", columns) if all(map(_is_same, columns)) else check


_PLAIN_LEAVES = frozenset((str, int, float, bool, bytes, type(None)))


def _plain(value: list[Any] | dict[Any, Any], depth: int) -> None:
    """Check a list or map that sits ``depth`` deep: plain all the way down, and no deeper than
    ``MAX_DEPTH`` (which bounds the recursion too).

    A list of nothing but leaves inside it (a card's ``[handle, face]``, an action) is looked
    at here, without a call of its own: most of a view is such lists. Any other child, or one
    too deep, gets the call, which raises the same error at the same place."""
    if depth > MAX_DEPTH:
        raise BadMessage("too_deep", f"nested deeper than {MAX_DEPTH}")
    if type(value) is dict:
        for key in value:
            if type(key) is not str:
                raise BadMessage("bad_field", "a map key is not text")
        children: Iterable[Any] = value.values()
    else:
        children = value
    deeper = depth + 1
    leaves_here = deeper <= MAX_DEPTH  # (a child list may be looked at in place)
    leaves = _PLAIN_LEAVES
    for child in children:
        kind = type(child)
        if kind in leaves:
            continue
        if kind is list:
            if leaves_here:
                for leaf in child:
                    if type(leaf) not in leaves:
                        break
                else:
                    continue
            _plain(child, deeper)
        elif kind is dict:
            _plain(child, deeper)
        else:
            raise BadMessage("bad_field", f"{kind.__name__} is not plain data")


@_same
def data(value: Any) -> Any:
    """Plain data (lists, string-keyed maps, scalars) no deeper than ``MAX_DEPTH``."""
    kind = type(value)
    if kind is list or kind is dict:
        _plain(value, 1)
    elif kind not in _PLAIN_LEAVES:
        raise BadMessage("bad_field", f"{kind.__name__} is not plain data")
    return value


_shaped(data, "data")


def one_of(*allowed: str) -> Check:
    def check(value: Any) -> str:
        if value not in allowed or type(value) is not str:
            raise BadMessage("bad_field", f"{str(value)[:32]!r} is not one of {', '.join(allowed)}")
        return value

    return _shaped(_same(check), "one_of", allowed)


@_same
def mapping(value: Any) -> dict[Any, Any]:
    if type(value) is not dict:
        raise BadMessage("bad_field", "not a map")
    _plain(value, 1)
    return value


_shaped(mapping, "mapping")


# ---------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class Message:
    """A message: ``KIND`` names it on the wire, ``CHECKS`` are its fields' checks in order."""

    KIND: ClassVar[str] = ""
    CHECKS: ClassVar[tuple[Check, ...]] = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()
    _fields: ClassVar[staticmethod[[Message], tuple[Any, ...]]] = staticmethod(lambda message: ())
    #: ``decode`` for this kind: its checks written out as one function (``_compile``)
    _decode: ClassVar[staticmethod[[list[Any]], Message]]

    def to_wire(self) -> list[Any]:
        return [self.KIND, *self._fields(self)]


KINDS: dict[str, type[Message]] = {}


def _field_getter(names: tuple[str, ...]) -> Callable[[Message], tuple[Any, ...]]:
    """The fields named, in order, as a tuple (whatever their number)."""
    if not names:
        return lambda message: ()
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda message: (get(message),)
    return operator.attrgetter(*names)


_M = TypeVar("_M", bound=Message)


@dataclass_transform(frozen_default=True)
def declare(kind: str, *checks: Check) -> Callable[[type[_M]], type[_M]]:
    """Make ``cls`` a message of ``kind`` whose fields are checked by ``checks`` in order."""

    def wrap(cls: type[_M]) -> type[_M]:
        made = dataclass(frozen=True, slots=True)(cls)
        if len(dataclasses.fields(made)) != len(checks):
            raise TypeError(f"{kind}: {len(checks)} checks for {len(dataclasses.fields(made))} fields")
        made.KIND, made.CHECKS = kind, checks
        made.FIELDS = tuple(f.name for f in dataclasses.fields(made))
        made._fields = staticmethod(_field_getter(made.FIELDS))
        made._decode = staticmethod(_compile(made))
        KINDS[kind] = made
        return made

    return wrap


def decode(raw: Any) -> Message:
    """The message in ``raw`` (plain data as received), or ``BadMessage``."""
    if type(raw) is not list or not raw or type(raw[0]) is not str:
        raise BadMessage("malformed", "a message is a list that starts with its kind")
    cls = KINDS.get(raw[0])
    if cls is None:
        raise BadMessage("unknown_kind", repr(raw[0][:32]))
    return cls._decode(raw)


def _decode_checked(cls: type[Message], raw: list[Any]) -> Message:
    """``raw`` as a ``cls``, each field through its check in turn: the first that fails raises."""
    values = raw[1:]
    if len(values) != len(cls.CHECKS):
        raise BadMessage("wrong_arity", f"{cls.KIND} has {len(cls.CHECKS)} fields, not {len(values)}")
    return cls(*[check(value) for check, value in zip(cls.CHECKS, values, strict=True)])


# ---------------------------------------------------------------- the checks written out
#
# Every message is checked on receipt, and most of a check's time went to calling one small
# check from another (a row's columns, a list's items). ``_compile`` writes a kind's checks out
# as one function, in the order ``_decode_checked`` runs them: what it cannot write out (a
# check that converts, such as ``number``) it calls. It only tells good from bad: at the first
# thing wrong it hands the message to ``_decode_checked``, which raises the same error it
# always did (every field before that one passed both ways). Nested data is still walked by
# ``_plain``, whose error is the one ``_decode_checked`` would raise there too.


def _inline(check: Check) -> bool:
    """Whether ``check`` can be written out (it returns what it is given, and is made of
    checks whose shape is known)."""
    shape = getattr(check, "shape", None)
    if shape is None or not _is_same(check):
        return False
    if shape[0] in ("maybe", "items"):
        return _inline(shape[1])
    if shape[0] == "row":
        return all(map(_inline, shape[1]))
    return True


class _Writer:
    """The source of one kind's check, with the objects it names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}
        self._count = 0

    def name(self, value: Any) -> str:
        self._count += 1
        name = f"k{self._count}"
        self.names[name] = value
        return name

    def local(self) -> str:
        self._count += 1
        return f"x{self._count}"

    def check(self, check: Check, x: str, pad: str) -> None:
        """Lines that hand the message over (``return checked(raw)``) unless ``x`` passes ``check``."""
        fail = "return checked(raw)"
        add = self.lines.append
        kind, *args = check.shape  # type: ignore[attr-defined]  # (``_inline`` said it has one)
        if kind == "whole":
            low, high = args
            add(f"{pad}if type({x}) is not int or not {low!r} <= {x} <= {high!r}: {fail}")
        elif kind == "text":
            add(f"{pad}if type({x}) is not str or len({x}) > {args[0]!r}: {fail}")
        elif kind == "blob":
            size, longest = args
            length = f"len({x}) != {size!r}" if size is not None else f"len({x}) > {longest!r}"
            add(f"{pad}if type({x}) is not bytes or {length}: {fail}")
        elif kind == "flag":
            add(f"{pad}if type({x}) is not bool: {fail}")
        elif kind == "one_of":
            add(f"{pad}if {x} not in {self.name(args[0])} or type({x}) is not str: {fail}")
        elif kind == "data":
            kind_of = self.local()
            add(f"{pad}{kind_of} = type({x})")
            add(f"{pad}if {kind_of} is list or {kind_of} is dict: plain({x}, 1)")
            add(f"{pad}elif {kind_of} not in leaves: {fail}")
        elif kind == "mapping":
            add(f"{pad}if type({x}) is not dict: {fail}")
            add(f"{pad}plain({x}, 1)")
        elif kind == "maybe":
            add(f"{pad}if {x} is not None:")
            self.check(args[0], x, pad + "    ")
        elif kind == "items":
            inner, longest = args
            item = self.local()
            add(f"{pad}if type({x}) is not list or len({x}) > {longest!r}: {fail}")
            add(f"{pad}for {item} in {x}:")
            self.check(inner, item, pad + "    ")
        elif kind == "row":
            columns = args[0]
            cells = [self.local() for _ in columns]
            add(f"{pad}if type({x}) is not list or len({x}) != {len(columns)}: {fail}")
            add(f"{pad}{', '.join(cells)}{',' if len(cells) == 1 else ''} = {x}")
            for column, cell in zip(columns, cells, strict=True):
                self.check(column, cell, pad)
        else:  # pragma: no cover  (every shape is written out above)
            raise AssertionError(kind)


def _compile(cls: type[Message]) -> Callable[[list[Any]], Message]:
    """``decode`` for ``cls``: its checks written out as one function (see above)."""
    writer = _Writer()
    add = writer.lines.append
    fields = [f"v{i}" for i in range(len(cls.CHECKS))]
    add("def decode(raw):")
    add(f"    if len(raw) != {len(cls.CHECKS) + 1}: return checked(raw)")
    for i, (check, field) in enumerate(zip(cls.CHECKS, fields, strict=True)):
        if _inline(check):
            add(f"    {field} = raw[{i + 1}]")
            writer.check(check, field, "    ")
        else:  # (it converts, or its shape is unknown: it checks, and raises, itself)
            add(f"    {field} = {writer.name(check)}(raw[{i + 1}])")
    add(f"    return cls({', '.join(fields)})")
    scope = {**writer.names, "cls": cls, "plain": _plain, "leaves": _PLAIN_LEAVES,
             "checked": lambda raw: _decode_checked(cls, raw)}
    exec("\n".join(writer.lines), scope)  # noqa: S102  (source made above from the declared checks alone)
    decode: Callable[[list[Any]], Message] = scope["decode"]
    return decode
