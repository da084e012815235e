"""Who a served guest is: the key they hold, not the name they type.

Owns: each guest's data folder and the names taken on this server. A guest who
proves they hold an SSH key (any key: its SHA-256 fingerprint is who they are)
finds their own folder again each time they come with it, whatever name they
type; the name is only a label, written in the folder (``guest.json``). A
guest with no key (a browser tab, or ssh without a key) is someone new each
time: a new, empty folder, removed when they leave, so nothing they did can be
found by anyone again, not even by them.

A name is taken while a guest of another identity plays under it, and for good
by the key whose folder holds it: another guest who types it (in any case, or
with look-alike letters: ``netcode.session.lookalike``) is refused with one
line. The name nobody chose (``Player``, for a login that says nothing) is
taken by nobody.

Must not touch: SSH, HTTP (``ssh.py`` and ``web.py`` say who came and how),
the guest's app, the games, the tables.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from netcode.session.lookalike import name_key
from xmas_tui.names import NOBODY
from xmas_tui.serve.registry import data_root

#: The label a key's folder keeps: the name its guest last came under.
LABEL = "guest.json"


def guests_folder() -> Path:
    return data_root() / "guests"


def key_home(key: str) -> Path:
    """The folder of the guest who holds ``key`` (``SHA256:…``): the same key finds it again."""
    return guests_folder() / f"key-{hashlib.sha256(key.encode()).hexdigest()[:24]}"


@dataclass(frozen=True, eq=False)
class Guest:
    """One guest playing now: their name, their key (None: none), their folder. Each is
    someone of their own, even two who came with one key."""

    name: str
    key: str | None
    home: Path


class GuestBook:
    """The guests playing on this server now, and the names their keys hold."""

    def __init__(self) -> None:
        self.playing: list[Guest] = []

    def enter(self, name: str, key: str | None) -> Guest | str:
        """The guest who holds ``key`` (None: no key) comes as ``name``: their folder (made
        if it is new), or why they are refused, in one line."""
        taken = self.holder(name, key)
        if taken is not None:
            return taken
        if key is None:
            home = guests_folder() / f"once-{secrets.token_hex(12)}"
        else:
            home = key_home(key)
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        if key is not None and name != NOBODY:
            (home / LABEL).write_text(json.dumps({"name": name, "key": key}))
        guest = Guest(name, key, home)
        self.playing.append(guest)
        return guest

    def holder(self, name: str, key: str | None) -> str | None:
        """Why ``name`` is not for the guest who holds ``key``: a guest of another identity
        plays under it now, or another key's folder holds it; None: it is theirs to use."""
        if name == NOBODY:
            return None
        wanted = name_key(name)
        for guest in self.playing:
            if name_key(guest.name) == wanted and (key is None or guest.key != key):
                return f"{guest.name} is playing here now; ssh in under another name"
        for other, label in labels():
            if other != key and name_key(label) == wanted:
                return f"the name {label} belongs to another guest's key; ssh in under another name"
        return None

    def leave(self, guest: Guest) -> None:
        """``guest`` has gone (their app has ended): without a key, their folder goes too."""
        with contextlib.suppress(ValueError):
            self.playing.remove(guest)
        if guest.key is None:
            shutil.rmtree(guest.home, ignore_errors=True)


def labels() -> list[tuple[str, str]]:
    """Every key that has a folder here, with the name its guest last came under."""
    found = []
    for path in sorted(guests_folder().glob(f"key-*/{LABEL}")):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            label = json.loads(path.read_text())
            if isinstance(label["key"], str) and isinstance(label["name"], str):
                found.append((label["key"], label["name"]))
    return found
