"""A finished game, step by step, from its game log: what the replay screen shows.

Owns: ``Replay`` (a log that passed its audit, dealt again from its revealed seed and
played again with the engine: one ``Step`` after the deal and one after every action),
each step's view for any seat (only the faces that seat could see then), for a spectator,
or with every face open (``EVERY``: the secret is revealed once the game is over, so the
replay knows every face), the public log up to each step, the round of each step (a game
with rounds), the audit's word on each step (the action legal, the cards it made each
matching its commitment, the cards it opened to the log's seat each matching the opening
received), and a ``Snapshot`` of a step that a board draws with nothing to play.

A log is read and audited by ``audit.audited_file``: a changed, unreadable or failing
log is refused with the line ``xmas-tui verify`` says (``audit.refusal``). Logs are
listed from this user's data folder only (``recent_logs``, ``audit.data_dir``, a folder ``xmas_tui.files`` names).
Every word from the file (names, cards of a personal deck) leaves here ``plain``.

Must not touch: Textual, asyncio, the network; any face during play (a replay is
made from a finished game's log only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from xmas_tui.games import ActionError, Event, Game, Result, View, count
from xmas_tui.outside import plain, plain_data

from .audit import audited_file, commitment_problem, data_dir, dealt, opening_problem
from .rules import made_since, opening
from .table import Snapshot

#: The "seat" whose view shows every face (after the game, the log knows them all).
EVERY: Final = "every"
#: A seat to show: a seat number, ``None`` (a spectator: the public view), or ``EVERY``.
Shown = int | None | str
#: How many logs the lobby lists.
RECENT = 8


@dataclass(frozen=True)
class Step:
    """The table after the deal (``number`` 0) or after action ``number``."""

    number: int
    #: who acted, and the action in its text form (None and "" for the deal)
    actor: int | None
    action: str
    #: the game's round then (None: a game without rounds)
    round: int | None
    #: how many lines of the public log there were by then
    logged: int
    #: the audit's word on this step, and whether it holds
    verdict: str
    ok: bool
    #: who was to act then
    to_act: frozenset[int]
    #: the public fields and zones (wire form, ``plain``), every seat's faces, a spectator's, all
    common: tuple[Any, Any]
    faces: tuple[Mapping[int, str], ...]
    public_faces: Mapping[int, str]
    every_face: Mapping[int, str]


class Replay:
    """A finished game's log, played again step by step."""

    def __init__(self, log: Mapping[str, Any], verdict: Mapping[str, Any], path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self.verdict = verdict
        #: the seat whose log this is (None: a spectator's)
        self.seat: int | None = log.get("seat")
        self.players = tuple(plain(name, lines=False) for name in log["players"])
        result = log.get("result")
        self.result = Result.from_wire(plain_data(result)) if result is not None else None
        self.steps: list[Step] = []
        self.log: list[Event] = []
        self._play(log)

    @classmethod
    def open(cls, path: str | Path) -> Replay:
        """The replay of the log at ``path``; ``audit.LogError`` (say it with ``audit.refusal``)
        for a file that cannot be read, was changed, or fails its audit."""
        log, verdict = audited_file(path)
        return cls(log, verdict, path)

    # ------------------------------------------------------------ playing it again
    def _play(self, log: Mapping[str, Any]) -> None:
        failures: list[str] = []
        deal = dealt(log, failures)
        if deal is None:
            raise ValueError(failures[0])
        game, state, rng = deal
        self.game: Game = game
        received = {int(h): bytes.fromhex(c) for h, c in log["commitments"]}  # (hex: the audit read it)
        opened = {int(h): (face, salt) for h, face, salt in log["openings"]}
        made, upto = made_since(state.cards, 1)
        self.log += self._plain(opening(game, log["players"], state))
        seen = self._step(log, state, 0, None, "", made, received, opened, {}, [])
        for number, (actor, wire) in enumerate(log["actions"], start=1):
            problems: list[str] = []
            try:
                action = game.parse_action(wire)
                events = game.apply(state, actor, action, rng)
            except ActionError as refused:  # (a log that passed its audit never gets here)
                self.steps.append(self._refused(number, actor, str(wire), refused))
                break
            self.log += self._plain(events)
            made, upto = made_since(state.cards, upto)
            seen = self._step(log, state, number, actor, action.text(), made, received, opened, seen, problems)

    @staticmethod
    def _plain(events: Sequence[Event]) -> list[Event]:
        return [Event.from_wire(plain_data(event.to_wire())) for event in events]

    def _step(self, log: Mapping[str, Any], state: Any, number: int, actor: int | None, action: str,
              made: list[tuple[int, str]], received: Mapping[int, bytes | None],
              opened: Mapping[int, tuple[str, str]], seen: Mapping[int, str], problems: list[str]) -> dict[int, str]:
        """Keep the table as it stands after step ``number``, with the audit's word on it; the
        faces the log's seat sees now (the next step's cards opened are those it did not)."""
        game = self.game
        for handle, face in made:
            problem = commitment_problem(log, handle, face, received.get(handle))
            if problem is not None:
                problems.append(problem)
        mine = game.view_faces(state, self.seat)
        fresh = [h for h in mine if h not in seen or seen[h] != mine[h]]
        checked = 0
        for handle in fresh:
            if handle in opened:
                checked += 1
                face, salt = opened[handle]
                problem = opening_problem(log, handle, face, salt, mine[handle])
                if problem is not None:
                    problems.append(problem)
        common = plain_data(game.view(state, None).common_wire())
        round_ = common[0].get("round")
        who = "the deal" if actor is None else f"action {number} ({self.players[actor]}: {action})"
        if problems:
            verdict = f"{who}: FAILED: " + "; ".join(problems)
        else:
            parts = [] if actor is None else ["legal"]
            if made:
                parts.append(f"{count(len(made), 'card')} made, " + ("matching its commitment" if len(made) == 1
                                                                       else "each matching its commitment"))
            if checked:
                parts.append(f"{count(checked, 'card')} opened, " + ("matching its opening" if checked == 1
                                                                    else "each matching its opening"))
            verdict = f"{who}: " + "; ".join(parts) if parts else who
        every = {h: state.cards.face(h) for cards in state.cards.zones.values() for h in cards}
        self.steps.append(Step(
            number=number, actor=actor, action=plain(action, lines=False),
            round=round_ if isinstance(round_, int) and not isinstance(round_, bool) else None,
            logged=len(self.log), verdict=plain(verdict, lines=False), ok=not problems,
            to_act=frozenset(game.to_act(state)), common=common,
            faces=tuple(plain_data(game.view_faces(state, seat)) for seat in range(len(self.players))),
            public_faces=plain_data(game.view_faces(state, None)), every_face=plain_data(every),
        ))  # fmt: skip
        return mine

    def _refused(self, number: int, actor: int, wire: str, refused: ActionError) -> Step:
        last = self.steps[-1]
        verdict = f"action {number} ({self.players[actor]}: {wire}) is refused by the rules: {refused}"
        return Step(number, actor, plain(wire, lines=False), last.round, last.logged, plain(verdict, lines=False),
                    False, frozenset(), last.common, last.faces, last.public_faces, last.every_face)

    # ------------------------------------------------------------ what it shows
    @property
    def last(self) -> int:
        """The number of the last step (the end of the game)."""
        return len(self.steps) - 1

    def shown(self) -> list[Shown]:
        """What ``s`` cycles through: every seat, a spectator's view, every face."""
        return [*range(len(self.players)), None, EVERY]

    def name_of(self, shown: Shown) -> str:
        """Whose view ``shown`` is, in words."""
        if shown == EVERY:
            return "every face"
        if shown is None:
            return "a spectator (the public view)"
        assert isinstance(shown, int)
        return f"seat {shown + 1}, {self.players[shown]}"

    def view(self, number: int, shown: Shown) -> View:
        """The table after step ``number`` as ``shown`` saw it: a seat (only the faces it could
        see then), a spectator (``None``), or every face (``EVERY``, drawn from the log's seat,
        else seat 1, so that its board shows a hand too)."""
        step = self.steps[number]
        if shown == EVERY:
            seat: int | None = self.seat if self.seat is not None else 0
            faces = step.every_face
        elif shown is None:
            seat, faces = None, step.public_faces
        else:
            assert isinstance(shown, int)
            seat, faces = shown, step.faces[shown]
        return View.from_wire(View.wire(self.game.id, seat, step.common, faces))

    def snapshot(self, number: int, shown: Shown) -> Snapshot:
        """Step ``number`` as a board draws it: nothing to play, the log up to it, the result at
        the end."""
        step = self.steps[number]
        return Snapshot(view=self.view(number, shown), legal=(), to_act=step.to_act,
                        log=tuple(self.log[: step.logged]),
                        result=self.result if number == self.last else None)

    def rounds(self) -> list[int]:
        """The rounds of the game, in order (empty: a game without rounds)."""
        return sorted({step.round for step in self.steps if step.round is not None})

    def round_start(self, round_: int) -> int | None:
        """The first step of round ``round_`` (None: there is no such round)."""
        return next((step.number for step in self.steps if step.round == round_), None)


def recent_logs(most: int = RECENT) -> list[Path]:
    """The newest game logs in this user's data folder, newest first: files of its games
    folder only (a link that leads out of it is left out: a guest served over SSH reads
    nothing but their own folder)."""
    folder = data_dir()
    try:
        home = folder.resolve()
        found = [(path.stat().st_mtime, path) for path in folder.glob("*.json")
                 if path.is_file() and path.resolve().parent == home]
    except OSError:
        return []
    return [path for _, path in sorted(found, key=lambda pair: pair[0], reverse=True)[:most]]
