"""What every served guest gets, and what the host's lobby says about joining."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.uikit import wait_for
from xmas_tui.names import default_name
from xmas_tui.serve import registry
from xmas_tui.serve.guests import Guests, guest_environment
from xmas_tui.serve.identity import Guest, GuestBook, key_home
from xmas_tui.serve.registry import join_hints, join_line, join_words, record, record_path, serving
from xmas_tui.ui.app import XmasApp


@pytest.mark.parametrize(
    ("kind", "bind", "port", "words"),
    [
        ("ssh", "203.0.113.20", 2222, "ssh -p 2222 NAME@203.0.113.20"),
        ("ssh", "198.51.100.7", 22, "ssh NAME@198.51.100.7"),
        ("web", "203.0.113.20", 8000, "http://203.0.113.20:8000"),
        ("web", "198.51.100.7", 80, "http://198.51.100.7"),
        ("web", "fe80::1", 8000, "http://[fe80::1]:8000"),
        ("ssh", "0.0.0.0", 2222, "ssh -p 2222 NAME@203.0.113.9"),  # every interface: the LAN address
        ("web", "", 8000, "http://203.0.113.9:8000"),
    ],
)
def test_how_to_join_names_the_address_a_guest_types(monkeypatch, kind, bind, port, words) -> None:
    monkeypatch.setattr(registry, "lan_address", lambda: "203.0.113.9")
    assert join_words(kind, bind, port) == words


def test_the_lobby_shows_only_what_this_machine_serves_now() -> None:
    assert join_hints() == []
    with serving("web", "203.0.113.20", 8000):
        record("ssh", "203.0.113.20", 2222)
        assert join_hints() == ["ssh -p 2222 NAME@203.0.113.20", "http://203.0.113.20:8000"]
    assert join_hints() == ["ssh -p 2222 NAME@203.0.113.20"]  # the web server has stopped
    # a server that died without a word leaves its record: a process that is gone is not serving
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    record_path("ssh").write_text(json.dumps({"pid": int(gone.stdout), "bind": "203.0.113.20", "port": 2222}))
    assert join_hints() == []
    record_path("ssh").write_text("{not json")
    assert join_hints() == []


def test_the_line_fits_the_lobby_and_keeps_the_addresses_whole() -> None:
    hints = ["ssh -p 2222 NAME@203.0.113.20", "http://203.0.113.20:8000"]
    lead, words = join_line(hints, 66)
    assert lead == "Guests: " and words == " · ".join(hints) and len(lead + words) <= 66
    assert join_line(hints[:1], 66) == ("Guests join: ", hints[0])
    assert join_line(["ssh -p 2222 NAME@[fe80::1234:5678:9abc:def0]", "http://[fe80::1234:5678:9abc:def0]:8000"], 66)[0] == ""


async def test_the_hosts_lobby_says_how_to_join_while_this_machine_serves() -> None:
    record("ssh", "203.0.113.20", 2222)
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "ssh -p 2222 NAME@203.0.113.20" in str(app.screen.query_one("#lobby-sub").render()))
        assert str(app.screen.query_one("#lobby-sub").render()).startswith("Guests join: ")


def test_a_guest_is_their_key_and_a_name_is_held_by_the_key_that_came_under_it() -> None:
    """A guest's Ctrl+R resumes their own game, never another guest's (whose hand it shows):
    the folder is the key's, and the name only a label that no other identity may take."""
    book = GuestBook()
    holly = book.enter("Holly", "SHA256:holly")
    assert isinstance(holly, Guest) and holly.home == key_home("SHA256:holly") != key_home("SHA256:other")
    for name in ("holly", "HOLLY", "Hоlly"):  # (a Cyrillic о)
        assert book.enter(name, "SHA256:other") == "Holly is playing here now; ssh in under another name"
        assert book.enter(name, None) == "Holly is playing here now; ssh in under another name"
    again = book.enter("HOLLY", "SHA256:holly")  # the same key on a second terminal: the same guest
    assert isinstance(again, Guest) and again.home == holly.home
    book.leave(holly)
    book.leave(again)
    assert book.enter("Holly", "SHA256:other") == "the name HOLLY belongs to another guest's key; ssh in under another name"
    assert isinstance(book.enter("Holly", "SHA256:holly"), Guest)  # the key's own name, whatever its case


def test_a_guest_without_a_key_is_someone_new_and_leaves_nothing_behind() -> None:
    book = GuestBook()
    first = book.enter("Noel", None)
    assert isinstance(first, Guest) and first.home.is_dir()
    (first.home / "kept.json").write_text("{}")
    book.leave(first)
    assert not first.home.exists()
    second = book.enter("Noel", None)
    assert isinstance(second, Guest) and second.home != first.home
    assert book.enter("noel", None) == "Noel is playing here now; ssh in under another name"
    nobody = [book.enter("Player", key) for key in (None, None, "SHA256:a", "SHA256:b")]
    assert all(isinstance(guest, Guest) for guest in nobody)  # the name of a login that says nothing: nobody's


def test_a_guest_app_gets_its_name_terminal_and_folder_and_none_of_the_servers_secrets(monkeypatch) -> None:
    monkeypatch.setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "shh")
    env = guest_environment("Holly", key_home("SHA256:holly"), term="xterm-kitty", colorterm="truecolor")
    assert env["XMAS_TUI_NAME"] == "Holly" and env["TERM"] == "xterm-kitty" and env["COLORTERM"] == "truecolor"
    assert env["XDG_DATA_HOME"] == str(key_home("SHA256:holly"))
    assert env["XMAS_TUI_DISCOVERY"] == os.environ["XMAS_TUI_DISCOVERY"]  # finds this machine's tables
    assert "SSH_AUTH_SOCK" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    odd = guest_environment("Ivy", key_home("SHA256:ivy"), term="xterm\x1b]0;pwned\x07", colorterm="$(reboot)")
    assert odd["TERM"] == "xterm-256color" and "COLORTERM" not in odd


def test_a_served_guest_plays_under_the_name_they_were_given(monkeypatch) -> None:
    monkeypatch.setenv("XMAS_TUI_NAME", "  Holly   Berry ")
    assert default_name() == "Holly Berry"
    monkeypatch.setenv("XMAS_TUI_NAME", "\x07")
    monkeypatch.setenv("LOGNAME", "noel")
    assert default_name() == "Noel"  # no usable name given: the login name, as before


def test_places_and_idle_time_in_words() -> None:
    guests = Guests(most=2, idle=1800.0)
    assert guests.admit() and guests.admit() and not guests.admit()
    guests.leave()
    assert guests.admit()
    assert guests.idle_words() == "30 minutes" and Guests(idle=60.0).idle_words() == "1 minute"
    assert Guests(idle=2.0).idle_words() == "2 seconds" and Guests(idle=None).idle_words() == "never"
