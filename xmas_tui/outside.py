"""Words from outside, shown as they were typed: never as a terminal's commands, never as markup.

Owns: ``plain`` (any string that came from a file or a peer: a player's name, a
card's text from a ``--cards`` file, an alarm or a note, a log line, a refusal,
a table's title or host heard in an announcement, made safe to print: every
character a terminal would obey instead of showing is shown as ``�``),
``plain_data`` (the same for every string in a peer's plain data: a view, a log
entry), ``words`` (the one way to put such text in a widget: a Rich ``Text``,
which no widget parses as markup, so ``[red]x[/red]`` and ``[link=…]`` show as
typed) and ``escaped`` (for the few places that take nothing but markup, such as
the command palette's lines).

What a terminal obeys: the C0 controls (an escape sequence starts with ESC,
OSC 52 writes the clipboard, OSC 0 the title; a carriage return rewrites the
line) but a newline where lines belong, DEL, the C1 controls (a one-byte CSI
or OSC), and the bidi controls that reorder what follows them on the screen.

Must not touch: Textual's or Rich's drawing (``words`` only builds a ``Text``),
the network, files.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text

#: What is shown for a character a terminal would obey.
SHOWN_FOR_CONTROL = "\ufffd"
#: Bidi controls: embeddings, overrides, isolates and marks, which reorder the words after them.
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CONTROLS: dict[int, str | None] = {
    code: SHOWN_FOR_CONTROL for code in (*range(0x00, 0x20), *range(0x7F, 0xA0), *map(ord, BIDI))
}
_CONTROLS[ord("\t")] = " "
_CONTROLS[ord("\r")] = None  # (a line ending's, or a line rewritten: nothing to show either way)
del _CONTROLS[ord("\n")]
_ONE_LINE = {**_CONTROLS, ord("\n"): " "}


#: Any one of the characters ``plain`` changes (most strings have none: they are left as they are).
_OBEYED = re.compile("[" + "".join(f"\\U{code:08x}" for code in _CONTROLS) + "]")


def plain(text: object, *, lines: bool = True) -> str:
    """``text`` (a string from a file or a peer, or any value, which is shown as ``str``
    shows it) with nothing a terminal would obey: each such character shown as ``�``, a tab
    as a space; a newline kept where ``lines`` may break (else a space)."""
    said = text if isinstance(text, str) else str(text)
    if not lines:
        return said.translate(_ONE_LINE)
    return said if _OBEYED.search(said) is None else said.translate(_CONTROLS)


def plain_data(value: Any) -> Any:
    """``value`` (a peer's plain data: lists, tuples, dicts, strings, numbers, bytes) with
    every string in it, keys too, made ``plain``; anything else as it was. (A view is walked
    at every move: the common kinds are tried first, and a clean string is kept as it is.)"""
    kind = type(value)
    if kind is str:
        return value if _OBEYED.search(value) is None else value.translate(_CONTROLS)
    if kind is int or value is None or kind is bool or kind is float or kind is bytes:
        return value
    if kind is list or isinstance(value, list):
        return [plain_data(item) for item in value]
    if kind is dict or isinstance(value, dict):
        return {plain_data(key): plain_data(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(plain_data(item) for item in value)
    if isinstance(value, str):
        return plain(value)
    return value


def words(text: object, style: str = "", *, lines: bool = True) -> Text:
    """``text`` from outside, to put in a widget (a ``Static``, a border's title, an option, a
    table's cell): ``plain``, in ``style``, and never read as markup."""
    from rich.text import Text

    return Text(plain(text, lines=lines), style=style)


def escaped(text: object) -> str:
    """``text`` from outside as markup that shows it as typed, for what takes only markup
    (the command palette's lines and help)."""
    from textual.markup import escape

    return escape(plain(text, lines=False))
