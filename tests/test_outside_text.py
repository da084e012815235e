"""Words from files and peers reach the terminal as they were typed: never as escape sequences,
never as markup. A hostile string (a screen clear, OSC 0 to set the title, OSC 52 to write the
clipboard, markup that colours, links or clicks, a bidi override, a one-byte CSI) is fed in as a
player's name, a peer's alarm in a game log, a card's text and a host's refusal, and what is
drawn or printed is read back: the controls are gone, the markup is shown as typed."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest

from netcode.session.host import HostSession
from xmas_tui.games import get_game
from xmas_tui.games.christmas_game import CARD_ZONE, card_of
from xmas_tui.games.personal_cards import normal_cards
from xmas_tui.outside import SHOWN_FOR_CONTROL, plain, plain_data
from xmas_tui.tables.audit import seat_log, with_checksum, write_log
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.simulation import play_in_memory
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.network import JoinScreen
from xmas_tui.ui.screens.table import TableScreen

from .netkit import free_port, loopback_host
from .uikit import wait_for

#: Markup a widget would obey: a colour, a link, a click that quits the app.
MARKUP = "[red]x[/red][link=https://evil.example]y[/link][@click=app.quit]z[/]"
#: What a terminal would obey: clear the screen, set the title (OSC 0), write the clipboard
#: (OSC 52), turn the rest right to left, and a one-byte CSI (C1) that colours what follows.
CONTROLS = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\u202e\x9b31m\x7f\r"
HOSTILE = CONTROLS + MARKUP
#: A hostile name that fits the wire's 64 characters.
NAME = "\x1b[2J\x1b]0;pwned\x07\u202e[red]x[/red]\x9b31m"
#: Characters none of which may reach a terminal from outside.
OBEYED = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def screen_text(app: XmasApp) -> str:
    """Every character the app has drawn, as the terminal gets it (read from a screenshot)."""
    svg = app.export_screenshot()
    body = svg[svg.index("</style>") :] if "</style>" in svg else svg
    return html.unescape(re.sub(r"<[^>]*>", "", body)).replace("\xa0", " ")


def test_plain_shows_every_control_and_keeps_the_words() -> None:
    shown = plain(HOSTILE)
    assert not OBEYED.search(shown) and shown.endswith(MARKUP)
    assert shown.startswith(f"{SHOWN_FOR_CONTROL}[2J{SHOWN_FOR_CONTROL}]0;pwned{SHOWN_FOR_CONTROL}")
    assert plain("Holly\tand\nIvy") == "Holly and\nIvy" and plain("Holly\nIvy", lines=False) == "Holly Ivy"
    assert plain_data({"players": [HOSTILE], HOSTILE: (1, b"\x1b", HOSTILE)}) == {
        "players": [shown], shown: (1, b"\x1b", shown)
    }  # (bytes are no words: a face or a salt stays as it is)


def test_verify_prints_a_logs_hostile_alarms_as_words(tmp_path) -> None:
    """A crafted log's alarms could clear the screen, set the title or restyle "Fair play:
    FAILED"; ``verify`` prints them as words."""
    sessions = play_in_memory(get_game("christmas-tree"), 3, secret=b"k" * 32, nonces=[b"n" * 32, b"m" * 32, None])
    log = seat_log(sessions[0])
    log["alarms"] = [HOSTILE, f"seat 2 says {HOSTILE}"]
    path = write_log(with_checksum(log), tmp_path / f"crafted{CONTROLS[:5]}.json")
    done = subprocess.run([sys.executable, "-m", "xmas_tui", "verify", str(path)], capture_output=True)
    assert done.returncode == 1
    out, err = done.stdout.decode(), done.stderr.decode()
    assert not OBEYED.search(out) and not OBEYED.search(err), (out, err)
    assert out.startswith("Fair play: FAILED") and f"  - {plain(HOSTILE, lines=False)}\n" in out
    assert MARKUP in err and "pwned" in err
    as_json = subprocess.run([sys.executable, "-m", "xmas_tui", "verify", str(path), "--json"], capture_output=True)
    assert not OBEYED.search(as_json.stdout.decode()) and b"\\u001b]0;pwned" in as_json.stdout


def test_a_cards_file_problem_is_printed_as_words(tmp_path) -> None:
    """A cards file is anyone's file: a problem that quotes it quotes it as words."""
    path = tmp_path / "cards.toml"
    path.write_text(f'[[card]]\ndeck = {json.dumps(HOSTILE)}\ntext = "Hi"\neffect = "pay"\namount = 1\n')
    done = subprocess.run([sys.executable, "-m", "xmas_tui", "play", "christmas-game", "--cards", str(path)],
                          capture_output=True, stdin=subprocess.DEVNULL)  # fmt: skip
    err = done.stderr.decode()
    assert done.returncode == 2 and err.startswith("xmas-tui: ") and "the deck is Santa" in err
    assert not OBEYED.search(err) and "pwned" in err


def own_card_drawn(snapshot) -> bool:
    faces = snapshot.view.faces_in(CARD_ZONE)
    return bool(faces) and card_of(faces[-1], snapshot.view["personal"]).personal


async def test_a_peers_name_a_card_text_and_an_alarm_are_drawn_as_words() -> None:
    """A bot's seat carries a name no honest host would seat (as a modified host could send
    it), the party's cards carry markup, and a peer's alarm is both: the players panel, the
    log, the board, the status line and the toast draw their words, and obey none of them."""
    game = get_game("christmas-game")
    cards = normal_cards([{"deck": deck, "title": "[b]Elf[/b]", "text": MARKUP, "effect": "pay", "amount": 1}
                          for deck in ("Santa", "Scrooge") for _ in range(12)], "cards.toml")  # fmt: skip
    table = LocalTable(game, ["Ann", NAME, "Noel"], 0, seed=3, pace=4.0, options={"cards": cards})
    table.autoplay(own_card_drawn)
    app = XmasApp(table=table)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        await wait_for(pilot, lambda: "[red]x[/red][link=https://evil.example]y" in screen_text(app))
        shown = screen_text(app)
        assert not OBEYED.search(shown)
        assert f"{SHOWN_FOR_CONTROL}[2J{SHOWN_FOR_CONTROL}]0;pwned" in shown  # (the name, in the players panel)
        assert "[b]Elf[/b]" in shown  # the card's title as typed
        table.session.alarm = HOSTILE  # a peer's alarm, in its own words
        screen._on_table_changed(table.snapshot())
        await wait_for(pilot, lambda: screen_text(app).count("pwned") > shown.count("pwned"))
        assert not OBEYED.search(screen_text(app))
        assert app.is_running  # ([@click=app.quit] is words, not a click)


async def test_a_hosts_refusal_is_drawn_as_words(monkeypatch) -> None:
    """A modified host refuses a joiner with words of its own choosing: the join screen shows
    them as typed."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    monkeypatch.setattr(HostSession, "_seat_for", lambda self, *args: HOSTILE)
    host = loopback_host(get_game("chip-n-dale"), 3, code="HOLY-2345")
    await host.open(sit=False)
    app = XmasApp(join=dict(code="holy-2345", name="Bob", address=host.address))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, JoinScreen) and "pwned" in screen_text(app))
            shown = screen_text(app)
            assert not OBEYED.search(shown) and "[red]x[/red]" in shown
    finally:
        await host.close()


@pytest.mark.parametrize("name", [MARKUP[:16], "[@click=quit]x"])
async def test_a_name_with_markup_is_a_name_like_any_other(name: str) -> None:
    """The host seats a printable name whatever it looks like: every screen shows it as typed."""
    table = LocalTable(get_game("chip-n-dale"), [name, "Ivy", "Noel"], 0, seed=2, pace=4.0)
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen) and name in screen_text(app))
        assert app.is_running
