"""The rules of a game as a person reads them: flowed, wrapped to a terminal, or Markdown.

Owns: ``flowed`` (hard-wrapped paragraphs joined, so a screen wraps them at its own width),
``wrapped`` (``xmas-tui rules`` at the terminal's width) and ``rules_markdown`` (the rules
screen: headings, the rulings as a list with the rulebook quoted, the keys as a table).
Must not touch: Textual (the command line prints the rules without loading it).
"""

from __future__ import annotations

import re
import textwrap

from xmas_tui.games import Game

_TABLE = re.compile(r"\S {3,}\S")  # a run of spaces between words: a row of a table
_QUOTE = re.compile(r"^   The rulebook says: .*$", re.MULTILINE)  # under a ruling that departs from it


def _underline(line: str) -> bool:
    return bool(line) and set(line) <= {"=", "-"}


def flowed(text: str) -> str:
    """The rules with each hard-wrapped paragraph joined into one line, so the screen
    wraps it at its own width. Headings, blank lines, list items ("* ", and their
    two-space continuations), short label lines ending in ":", tables and indented
    lines keep their own lines."""
    lines = text.splitlines()
    out: list[str] = []
    item = False  # the line being built is a "* " list item
    for i, line in enumerate(lines):
        stripped = line.strip()
        heading = i + 1 < len(lines) and _underline(lines[i + 1].strip())
        previous = out[-1] if out else ""
        joins = (
            stripped
            and previous.strip()
            and not heading
            and not _underline(stripped)
            and not _underline(previous.strip())
            and not (previous.rstrip().endswith(":") and len(previous) < 40)  # a label: "Santa cards:"
            and not stripped.startswith(("* ", "- "))
            and not _TABLE.search(line)
            and not _TABLE.search(previous)
            and (not line.startswith(" ") or (item and line.startswith("  ") and not line.startswith("   ")))
        )
        if joins:
            out[-1] = previous.rstrip() + " " + stripped
        else:
            out.append(line)
            item = stripped.startswith(("* ", "- "))
    return "\n".join(out)


def _keeps_its_lines(line: str) -> bool:
    """A row of a table, or an indented line laid out by hand (not a list item's rest)."""
    return bool(_TABLE.search(line)) or (line.startswith("  ") and not line.startswith("   The rulebook says"))


def wrapped(text: str, width: int) -> str:
    """``text`` flowed, then wrapped at ``width`` columns: list items and the rulebook's
    quotes hang under themselves; tables and laid-out lines keep their own lines."""
    out: list[str] = []
    for line in flowed(text).splitlines():
        if _keeps_its_lines(line) and len(line) > width:  # a long last column hangs under itself
            last = max(m.end() for m in re.finditer(r"\S {2,}", line))
            out += textwrap.wrap(line[last:], width, initial_indent=line[:last],
                                 subsequent_indent=" " * last, break_on_hyphens=False)
        elif not line.strip() or _keeps_its_lines(line) or _underline(line.strip()):
            out.append(line)
        elif line.startswith(("* ", "- ")):
            out += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False)
        elif line.startswith("   "):
            out += textwrap.wrap(line, width, initial_indent="", subsequent_indent="   ", break_on_hyphens=False)
        else:
            out += textwrap.wrap(line, width, break_on_hyphens=False) or [""]
    return "\n".join(out)


def _markdown_body(text: str) -> list[str]:
    """Flowed rules as Markdown: tables and laid-out lines in a block that keeps them."""
    out: list[str] = []
    block = False
    for line in flowed(text).splitlines():
        keep = bool(line.strip()) and _keeps_its_lines(line)
        if keep != block:
            out.append("```")
            block = keep
        out.append(line if keep or not line.startswith("* ") else "- " + line[2:])
    if block:
        out.append("```")
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def rules_markdown(game: Game) -> str:
    """The rules, our rulings (each quoting the rulebook where it departs from it) and the keys."""
    lines = [f"# {game.title}", "", *_markdown_body(game.how_to_play.strip()), "", "## Our rulings", ""]
    for ruling in game.rulings:
        lines.append(f"- **{ruling.topic}**: {ruling.ruling}")
        if ruling.quote:
            lines += ["", f"  > The rulebook says: “{ruling.quote}”", ""]
    if game.keys:
        lines += ["", "## Keys", "", "| Key | What it does |", "|---|---|"]
        lines += [f"| `{_cell(key)}` | {_cell(what)} |" for key, what in game.keys]
    return "\n".join(lines) + "\n"
