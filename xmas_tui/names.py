"""Players' names: the default a person gets when they give none.

Must not touch: Textual, the network.
"""

from __future__ import annotations

import getpass

MAX_NAME = 16
#: Login names that say nothing about the person behind them.
_ANONYMOUS = {"root", "admin", "user", "guest", "ubuntu", "debian", "pi"}


def default_name() -> str:
    """The login name, capitalised ("holly" -> "Holly"), or "Player" when it says nothing.

    Event text is written about players by name ("Holly flips an Acorn"), so a
    default of "You" would read badly in everyone else's log."""
    try:
        login = getpass.getuser()
    except Exception:  # no login name at all (some containers)
        login = ""
    name = " ".join(login.replace("_", " ").replace(".", " ").split())[:MAX_NAME]
    if not name or not name.isprintable() or name.casefold() in _ANONYMOUS:
        return "Player"
    return name[:1].upper() + name[1:]
