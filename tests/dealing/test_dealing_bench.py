"""The deal benchmark: its JSON line, and every game's real deck found."""

from __future__ import annotations

import json

from xmas_tui.games import GAMES
from xmas_tui.tools.deal_bench import game_decks, main

KEYS = {
    "players", "cards", "shuffle_total_s", "open_card_ms", "shuffle_s", "prove_s", "verify_s",
    "open_public_ms", "beacon_ms", "dkg_s", "all_peers_cpu_s", "scalarmult_us",
    "reencrypt_deck_ms", "games",
}  # fmt: skip


def test_the_last_line_is_one_json_object_with_the_agreed_keys(capsys) -> None:  # noqa: ANN001
    assert main(["--players", "3", "--cards", "5", "--no-games", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert KEYS <= set(result)
    assert result["players"] == 3 and result["cards"] == 5 and result["threshold"] == 2
    assert result["proof_bytes"] == 32 * (5 * 5 + 9)


def test_every_game_has_a_hidden_deck_at_its_largest_table() -> None:
    for game_id, game in GAMES.items():
        players, decks = game_decks(game_id)
        assert players == game.max_players
        assert decks and all(len(faces) > 1 for faces in decks.values()), game_id
    assert "box" not in game_decks("christmas-carol")[1]  # set aside face up: nothing to hide


def test_a_bad_argument_is_one_line_and_exit_2(capsys) -> None:  # noqa: ANN001
    assert main(["--players", "0"]) == 2
    assert capsys.readouterr().err.startswith("xmas-tui: ")
