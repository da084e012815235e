"""The Christmas Game's personal cards: the party's own Santa, Scrooge and Reindeer cards.

The rulebook: "Blank Santa, Scrooge, and Reindeer cards are provided for you to
personalize. Put yourself, your family and friends into THE CHRISTMAS GAME™. Fines or
rewards on these cards should not exceed $20."

A TOML file of cards (``--cards FILE``, or ``cards.toml`` in the data folder) is checked
before any game starts, one line per problem naming the file and the card; the cards are
the table option ``cards``, shuffled into their decks, and travel with the table's
fair-play record, so every peer's audit deals the same decks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from xmas_tui import files
from xmas_tui.games import Rng
from xmas_tui.games.christmas_game import (
    CARD_ZONE,
    CARDS,
    DECKS,
    FACES,
    GAME,
    Card,
    Roll,
    card_of,
    card_text,
    deck_zone,
    personal_face,
)
from xmas_tui.games.personal_cards import MOST_CARDS, CardsProblem, normal_cards, personal_deck
from xmas_tui.simulate import play_game
from xmas_tui.tables.audit import audit_log, seat_log, with_checksum, write_log
from xmas_tui.tables.simulation import play_in_memory

from .gamekit import over_whole_games, play_checked_game, texts
from .netkit import run_table
from .test_christmas_game import NAMES, Dice, act, check_table, roll, table

#: The README's example file, word for word.
EXAMPLE = '''\
# The Christmas Game: our own cards (xmas-tui play christmas-game --cards cards.toml)

[[card]]
deck = "Scrooge"
title = "Bob's Secret Santa"
text = "Bob forgot the Secret Santa."
effect = "pay"          # to CHRISTMAS CLUB
amount = 10

[[card]]
deck = "Santa"
title = "Grandma's scarf"
text = "Grandma knitted you a scarf: one gift less to buy."
effect = "receipt"      # a $5 gift receipt from the BANK
amount = 5

[[card]]
deck = "Scrooge"
title = "The car won't start"
text = "Dad's car won't start in the snow."
effect = "go"
to = "TRAFFIC JAM"

[[card]]
deck = "Reindeer"
title = "Rover"
text = "Rover the dog chases the reindeer round the garden."
lucky_on = "even"       # or "odd", "7 or more" (if it says nothing), "8 or more"
effect = "collect"      # when lucky: collect $10 from the BANK
amount = 10
unlucky = "pay-each"    # otherwise: pay each player $2
unlucky_amount = 2
'''


def write(tmp_path: Path, text: str, name: str = "cards.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def example_cards(tmp_path: Path) -> list[dict]:
    return files.read_cards(write(tmp_path, EXAMPLE))


def card(**fields) -> dict:
    """A card table, these fields changed (``None``: left out)."""
    made = {"deck": "Scrooge", "text": "Bob forgot the Secret Santa.", "effect": "pay", "amount": 10, **fields}
    return {key: value for key, value in made.items() if value is not None}


def problems(*cards: dict) -> list[str]:
    with pytest.raises(CardsProblem) as refused:
        normal_cards({"card": list(cards)}, "cards.toml")
    return refused.value.lines


# ---------------------------------------------------------------- the rulebook, and our ruling


def test_the_partys_own_cards_are_shuffled_into_their_decks(tmp_path) -> None:
    """Blank Santa, Scrooge, and Reindeer cards are provided for you to personalize. Put
    yourself, your family and friends into THE CHRISTMAS GAME™. Fines or rewards on these
    cards should not exceed $20.

    Ruling "Personalizing cards": The party's own cards are the rulebook's blank cards: a
    TOML file of them (see the README), given with --cards FILE or kept as cards.toml in the
    data folder, is shuffled into the decks with ours, at most 12 in each deck. Each card
    names its deck, its words and what it does in the game's own terms, and the file is
    checked before any game starts: no game starts until every card is right. No fine or
    reward exceeds $20: an amount is $1 to $20, one paid to or by each player at most $4 (5
    players at $4 is $20), a gift receipt $1 or $5; a card moves you back 1 to 6 squares, or
    to a square that is not a card's. A Reindeer card names its lucky totals and both
    outcomes (money or a gift receipt). At a networked table everyone plays with the host's
    cards, which travel with the table's fair-play record. None of our printed Reindeer
    cards' fines or rewards exceeds $20 either."""
    cards = example_cards(tmp_path)
    assert [c["deck"] for c in cards] == ["scrooge", "santa", "scrooge", "reindeer"]
    state = GAME.setup({"cards": cards}, NAMES[:3], Rng("own/1"))
    decks = {deck: Counter(state.cards.faces(deck_zone(deck))) for deck in DECKS}
    assert sum(decks["santa"].values()) == 13 and sum(decks["scrooge"].values()) == 14
    assert sum(decks["reindeer"].values()) == 13
    assert decks["scrooge"][personal_face("scrooge", 1)] == decks["scrooge"][personal_face("scrooge", 3)] == 1
    assert state.personal == personal_deck(cards) and all(c.personal for c in state.personal)
    # every view shows which cards are in play (as our printed ones are), never their order
    for viewer in (0, 1, None):
        view = GAME.view(state, viewer)
        assert view["personal"] == state.personal and not view.faces
    # none of our own printed Reindeer fines or rewards exceeds $20, for any number of players
    for printed in CARDS.values():
        if printed.deck == "reindeer":
            for what, amount in (printed.lucky, printed.unlucky):
                most = amount * (GAME.max_players - 1) if what.endswith("-each") else amount
                assert what != "none" and most <= 20, printed.title
    # the limits, each refused with its own line
    assert problems(card(amount=25)) == ["cards.toml, card 1: an amount is at most $20, not $25"]
    assert problems(card(effect="pay-each", amount=5)) == [
        "cards.toml, card 1: 'pay-each' names at most $4 (from each of up to 5 players: $20), not $5"
    ]
    assert problems(card(effect="receipt", amount=25)) == [
        "cards.toml, card 1: a gift receipt from a card is $1 or $5 (a gift of at most $20), not $25"
    ]
    assert problems(card(effect="back", amount=7)) == ["cards.toml, card 1: a card moves you back 1 to 6 squares, not 7"]
    assert "'go' goes to one of START, CHRISTMAS CLUB, SALES TAX, SUPER SHOPPER, TRAFFIC JAM, POST OFFICE, GIFT WRAP, not 'Santa'" in problems(
        card(effect="go", amount=None, to="Santa")
    )[-1]
    assert problems(*[card()] * 13) == ["cards.toml: 13 Scrooge cards are too many (at most 12 in a deck)"]


def test_a_personal_card_does_what_it_says_in_the_games_own_words(tmp_path) -> None:
    """If he lands on Santa, Scrooge, or the Reindeer, he draws the appropriate card. (A
    personal card's words are the party's; what it does is printed after them, and done.)"""
    cards = example_cards(tmp_path)
    state = table(3, at={0: 4}, options={"cards": cards})  # 3 squares short of Scrooge (7)
    on_top_own(state, "scrooge", 1)
    log = roll(state, 0, 1, 2)
    assert "Holly draws a Scrooge card, “Bob's Secret Santa”: Bob forgot the Secret Santa. (Pay $10 to CHRISTMAS CLUB.)" in log
    assert state.money[0] == 270 and state.club == 60
    assert card_of(state.cards.faces(CARD_ZONE)[-1], state.personal).title == "Bob's Secret Santa"
    state = table(3, at={0: 4}, options={"cards": cards})
    on_top_own(state, "scrooge", 3)
    log = roll(state, 0, 1, 2)
    assert "(Go to TRAFFIC JAM, without passing START.)" in log
    assert state.jammed[0] == 0 and state.turn == 1
    state = table(3, at={0: 0}, options={"cards": cards})  # 2 squares short of Santa (2)
    on_top_own(state, "santa", 2)
    roll(state, 0, 1, 1)
    assert state.gifts[0] == (5,)
    # the Reindeer card: read, then the dice say lucky (even) or unlucky
    for dice, money in (((2, 2), (290, 280, 280)), ((1, 2), (276, 282, 282))):
        state = table(3, at={0: 3}, options={"cards": cards})  # 2 short of Reindeer (5)
        on_top_own(state, "reindeer", 4)
        log = roll(state, 0, 1, 1)
        assert "Roll: an even total is lucky: collect $10 from the BANK; otherwise unlucky: pay each player $2." in log
        assert state.phase == "reindeer"
        act(state, 0, Roll(), Dice(*dice))
        assert state.money == money


def on_top_own(state, deck: str, number: int) -> None:
    """Put the table's ``number``-th personal card on top of its deck."""
    cards = state.cards
    zone = deck_zone(deck)
    handle = next(h for h in cards.zone(zone) if cards.face(h) == personal_face(deck, number))
    cards.move(handle, zone)


def test_the_readme_example_is_a_good_file(tmp_path) -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert EXAMPLE in readme
    texts_ = [card_text(c) for c in personal_deck(example_cards(tmp_path))]
    assert texts_[1] == "Grandma knitted you a scarf: one gift less to buy. (Take a $5 gift receipt from the BANK.)"


# ---------------------------------------------------------------- one line per problem


def test_every_problem_of_a_file_is_a_line_naming_the_file_and_the_card() -> None:
    lines = problems(
        card(),
        card(deck="Elf", text="", effect="fly", amout=3),
        card(deck="Reindeer", lucky_on="sometimes", unlucky="go"),
        card(effect="shop", amount=5),
        card(lucky_on="even"),
        "a card",
    )
    assert lines == [
        "cards.toml, card 2: 'amout' is not a field of a card (they are: deck, title, text, effect, amount, to, lucky_on, unlucky, unlucky_amount)",
        "cards.toml, card 2: the deck is Santa, Scrooge or Reindeer, not 'Elf'",
        "cards.toml, card 2: a card needs its text, in words",
        "cards.toml, card 2: the effect is one of collect, pay, pay-bank, collect-each, pay-each, pick, receipt, back, advance, go, shop, return, not 'fly'",
        "cards.toml, card 3: a Reindeer card is lucky on 7 or more, 8 or more, even, odd, not 'sometimes'",
        "cards.toml, card 3: the unlucky is one of collect, pay, pay-bank, collect-each, pay-each, receipt, not 'go'",
        "cards.toml, card 4: 'shop' takes no amount",
        "cards.toml, card 5: 'lucky_on' is for Reindeer cards",
        "cards.toml, card 6: a card is a table of deck, text, effect and amount, not str",
    ]
    assert problems(card(title="x" * 31)) == ["cards.toml, card 1: the title is at most 30 characters on one line"]
    assert problems(card(text="two\nlines")) == ["cards.toml, card 1: the text is at most 120 characters on one line"]
    assert problems(card(amount=True)) == ["cards.toml, card 1: 'pay' needs its amount, a whole number of dollars, not True"]
    assert problems(card(amount=0)) == ["cards.toml, card 1: an amount is at least $1, not $0"]
    with pytest.raises(CardsProblem, match="'decks' is not a part of a cards file"):
        normal_cards({"decks": []}, "cards.toml")
    with pytest.raises(CardsProblem, match=f"37 cards are too many \\(at most {MOST_CARDS}, 12 in each deck\\)"):
        normal_cards({"card": [card()] * 37}, "cards.toml")


def test_a_cards_file_that_is_too_big_too_deep_or_not_toml_is_one_line(tmp_path) -> None:
    with pytest.raises(files.FileProblem, match="too big for a personal cards file"):
        files.read_cards(write(tmp_path, "# " + "x" * files.CARDS_BYTES))
    with pytest.raises(files.FileProblem, match="nested 30,000 deep"):  # (tomllib would recurse)
        files.read_cards(write(tmp_path, "card = " + "[" * 30_000 + "]" * 30_000))
    with pytest.raises(files.FileProblem, match="cards.toml is not valid TOML"):
        files.read_cards(write(tmp_path, "[[card]\ndeck = Santa"))
    with pytest.raises(files.FileProblem, match="cannot read"):
        files.read_cards(tmp_path / "none.toml")


def test_the_option_is_checked_again_at_setup_since_a_log_or_a_peer_may_carry_anything() -> None:
    with pytest.raises(ValueError, match="the option cards, card 1: an amount is at most \\$20, not \\$99"):
        GAME.setup({"cards": [card(amount=99)]}, NAMES[:2], Rng(0))
    with pytest.raises(ValueError, match="the option cards: the cards are a list of \\[\\[card\\]\\] tables, not str"):
        GAME.setup({"cards": "cards.toml"}, NAMES[:2], Rng(0))


# ---------------------------------------------------------------- whole games


def check_with_own_cards(game, state, seat=None, action=None) -> None:
    """Our table checks, with the table's own cards among the cards that must all be there."""
    own = [personal_face(c.deck, i) for i, c in enumerate(state.personal, 1)]
    check_table(game, state, seat, action, faces=(*FACES, *own))


@over_whole_games(GAME, examples=25)
def test_games_with_personal_cards_conserve_money_and_cards_and_end(seed: int, players: int, data) -> None:
    """All money used to buy gifts goes into the BANK. All payments by players for anything
    other than gifts go into CHRISTMAS CLUB, unless the card instructs otherwise. (With the
    party's own cards too: the money adds up, every card is there, and every game ends.)"""
    cards = normal_cards({"card": [
        card(), card(deck="Santa", effect="collect-each", amount=4), card(deck="Santa", effect="advance", amount=None, to="super shopper"),
        card(effect="back", amount=6), card(effect="pick", amount=20), card(deck="Santa", effect="shop", amount=None),
        card(effect="return", amount=None), card(deck="Reindeer", effect="receipt", amount=1, unlucky="pay-bank", unlucky_amount=20),
    ]}, "test")  # fmt: skip
    playout = play_checked_game(GAME, players, seed, data, check_with_own_cards, options={"cards": cards})
    assert playout.state.ending in ("shopping", "super")


async def test_a_networked_table_with_personal_cards_passes_every_peers_audit(tmp_path) -> None:
    """The cards are a table option: revealed in the final message and replayed by every
    peer's audit, so every peer deals the same decks (and a peer's board shows them)."""
    cards = example_cards(tmp_path)
    joined: list = []
    outputs, host = await run_table("christmas-game", 3, bot="random", joined_out=joined, options={"cards": cards})
    assert all(out["audit"]["ok"] for out in outputs), [out["audit"]["failures"] for out in outputs]
    for seat in joined:
        assert seat.session.final.fair["options"] == {"cards": cards}
        personal = seat.session.view["public"]["personal"]
        assert [card_of(personal_face("scrooge", 1), personal).title] == ["Bob's Secret Santa"]
    assert host.ledger.public()["options"] == {"cards": cards}


def test_a_log_whose_cards_were_changed_fails_its_audit(tmp_path) -> None:
    cards = example_cards(tmp_path)
    sessions = play_in_memory(GAME, 3, secret=b"k" * 32, nonces=[b"n" * 32, None, None], options={"cards": cards})
    log = seat_log(sessions[0])
    assert audit_log(log)["ok"]
    written = write_log(log, tmp_path / "game.json")
    done = run_cli("verify", str(written), data=tmp_path / "data")  # the real command replays the cards
    assert done.returncode == 0 and done.stdout.startswith("Fair play: OK"), done.stderr
    log["options"]["cards"][0]["amount"] = 20  # a fine made bigger after the game
    assert not audit_log(with_checksum(log))["ok"]
    log["options"]["cards"][0]["amount"] = 99  # one that breaks the rules
    verdict = audit_log(with_checksum(log))
    assert "the option cards, card 1: an amount is at most $20, not $99" in verdict["failures"][0]


# ---------------------------------------------------------------- the command line


def run_cli(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**__import__("os").environ, "XDG_DATA_HOME": str(data)}
    return subprocess.run([sys.executable, "-m", "xmas_tui", *args], capture_output=True, text=True, timeout=120, env=env)


def test_a_bad_cards_file_stops_the_game_with_one_line_per_problem(tmp_path) -> None:
    bad = write(tmp_path, EXAMPLE.replace("amount = 10\n\n[[card]]\ndeck = \"Santa\"", "amount = 25\n\n[[card]]\ndeck = \"Elf\"", 1))
    for verb in ("play", "host", "simulate"):
        extra = ["--headless"] if verb == "host" else []
        done = run_cli(verb, "christmas-game", "--cards", str(bad), *extra, data=tmp_path / "data")
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [
            "xmas-tui: cards.toml, card 1: an amount is at most $20, not $25",
            "xmas-tui: cards.toml, card 2: the deck is Santa, Scrooge or Reindeer, not 'Elf'",
        ]
    done = run_cli("play", "chip-n-dale", "--cards", str(bad), data=tmp_path / "data")
    assert done.returncode == 2 and done.stderr == "xmas-tui: --cards is for christmas-game, not chip-n-dale\n"
    done = run_cli("play", "christmas-game", "--cards", str(tmp_path / "missing.toml"), data=tmp_path / "data")
    assert done.returncode == 2 and done.stderr.startswith("xmas-tui: cannot read ") and done.stderr.count("\n") == 1


def test_the_data_folders_cards_file_is_used_and_must_be_right_too(tmp_path) -> None:
    data = tmp_path / "data"
    (data / "xmas-tui").mkdir(parents=True)
    write(data / "xmas-tui", EXAMPLE)
    done = run_cli("simulate", "christmas-game", "--games", "20", "--json", data=data)
    assert done.returncode == 0, done.stderr
    with_cards = json.loads(done.stdout.splitlines()[-1])
    done = run_cli("simulate", "christmas-game", "--games", "20", "--json", "--cards", str(write(tmp_path, "")), data=data)
    assert done.returncode == 0, done.stderr  # an empty file given: no cards of our own
    assert json.loads(done.stdout.splitlines()[-1])["mean_actions"] != with_cards["mean_actions"]
    write(data / "xmas-tui", "[[card]]\ndeck = 'Santa'\n")
    done = run_cli("play", "christmas-game", data=data)
    assert done.returncode == 2 and "cards.toml, card 1: a card needs its text, in words" in done.stderr
    assert run_cli("simulate", "chip-n-dale", "--games", "2", data=data).returncode == 0  # other games never read it


def test_personal_cards_change_the_deal_but_a_seed_still_deals_the_same_game(tmp_path) -> None:
    cards = example_cards(tmp_path)
    with_cards = play_game(GAME, 3, "same", "random", options={"cards": cards}, keep_events=True)
    again = play_game(GAME, 3, "same", "random", options={"cards": cards}, keep_events=True)
    assert GAME.digest(with_cards.state) == GAME.digest(again.state)
    assert texts(with_cards.events) == texts(again.events)
    without = play_game(GAME, 3, "same", "random", keep_events=True)
    assert texts(without.events) != texts(with_cards.events)


# ---------------------------------------------------------------- the lobby


async def test_the_lobby_names_the_cards_file_and_starts_no_game_until_it_is_fixed(tmp_path) -> None:
    from textual.widgets import Select

    from xmas_tui.ui.app import XmasApp
    from xmas_tui.ui.screens.lobby import LobbyScreen
    from xmas_tui.ui.screens.table import TableScreen

    from .uikit import catch_notes, wait_for

    app = XmasApp()
    notes = catch_notes(app)
    path = files.default_cards_file()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        line = lobby.query_one("#lobby-cards")
        assert not line.display  # Chip 'n' Dale takes no cards
        lobby.query_one("#game", Select).value = "christmas-game"
        await wait_for(pilot, lambda: line.display)
        assert "Own cards: none yet (write them in" in str(line.render())
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(EXAMPLE.replace("amount = 10\n", "amount = 25\n", 1).replace('deck = "Santa"', 'deck = "Elf"'))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: bool(notes))
        assert isinstance(app.screen, LobbyScreen)  # no game starts
        assert notes[-1] == (
            "cards.toml, card 1: an amount is at most $20, not $25\n"
            "cards.toml, card 2: the deck is Santa, Scrooge or Reindeer, not 'Elf'"
        )
        shown = str(line.render())
        assert "✗ cards.toml, card 1: an amount is at most $20, not $25 (and 1 more): fix it to play" in shown
        await pilot.press("ctrl+o")  # nor a hosted one
        await wait_for(pilot, lambda: len(notes) == 2)
        assert isinstance(app.screen, LobbyScreen) and app.hosting is None
        path.write_text(EXAMPLE)  # fixed
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert [Card.of(c).title for c in app.current.snapshot().view["personal"]] == [
            "Bob's Secret Santa", "Grandma's scarf", "The car won't start", "Rover",
        ]
        assert app.current.options["cards"] == files.read_cards(path)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        line = app.screen.query_one("#lobby-cards")
        assert str(line.render()) == "Own cards: cards.toml, 4 cards (1 Santa, 2 Scrooge, 1 Reindeer)"
