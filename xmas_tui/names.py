"""Players' names: the default a person gets when they give none.

Owns: turning a login name into a player's name, and ``XMAS_TUI_NAME`` (the
name a served guest was given: ``ssh NAME@HOST``). Must not touch: Textual,
the network.
"""

from __future__ import annotations

import getpass
import os

MAX_NAME = 16
#: The environment variable that names the player (set by ``xmas-tui serve`` for each guest).
NAME_VARIABLE = "XMAS_TUI_NAME"
#: The name of a player whose login name says nothing about them.
NOBODY = "Player"
#: Login names that say nothing about the person behind them.
_ANONYMOUS = {"root", "admin", "user", "guest", "ubuntu", "debian", "pi"}


def clean_name(text: str) -> str | None:
    """``text`` as a player's name (spaces collapsed, at most 16 characters), or None if it
    has no letter or is not printable."""
    name = " ".join(text.split())[:MAX_NAME].strip()
    return name if name and name.isprintable() else None


def name_from_login(login: str) -> str:
    """A login name as a player's name, capitalised ("holly" -> "Holly"), or "Player" when
    it says nothing."""
    name = clean_name(login.replace("_", " ").replace(".", " "))
    if name is None or name.casefold() in _ANONYMOUS:
        return NOBODY
    return name[:1].upper() + name[1:]


def default_name() -> str:
    """``XMAS_TUI_NAME`` if it holds a name, else the login name (see ``name_from_login``).

    Event text is written about players by name ("Holly flips an Acorn"), so a
    default of "You" would read badly in everyone else's log."""
    given = clean_name(os.environ.get(NAME_VARIABLE, ""))
    if given is not None:
        return given
    try:
        login = getpass.getuser()
    except Exception:  # no login name at all (some containers)
        login = ""
    return name_from_login(login)
