"""What every game's board widget provides to the table screen.

Owns: the ``Board`` base widget (it draws one seat's ``Snapshot`` and posts
``Board.ActionChosen`` when the player picks an action), the ``PlayerLine``
the side panel shows, ``BoardClick`` for the parts of a board a click acts on,
and helpers that map a key or a click to a legal action.

Must not touch: the table or the engine state. A board sees only a snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from textual.actions import parse
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from xmas_tui.games import Action, Game
from xmas_tui.tables.table import Snapshot

W = TypeVar("W", bound=Widget)


@dataclass(frozen=True)
class PlayerLine:
    """One player in the side panel: name, score, a short summary, and markers."""

    seat: int
    name: str
    score: str
    summary: str = ""
    acting: bool = False
    marker: str = ""


def legal_where(snapshot: Snapshot, test: Callable[[Action], bool]) -> Action | None:
    """The first of my legal actions that passes ``test``, or None."""
    return next((a for a in snapshot.legal if test(a)), None)


class BoardClick(Static):
    """A part of a board that a click acts on: it calls the board's ``method`` with ``args``.
    ``static`` goes on to ``Static`` (content, id, classes)."""

    def __init__(self, method: str, *args: object, **static: Any) -> None:
        super().__init__(**static)
        self.method = method
        self.args = args

    def on_click(self, event: Click) -> None:
        getattr(self.screen.query_one(Board), self.method)(*self.args)


class Board(Widget, can_focus=True):
    """A game's board: draws a snapshot, turns keys and clicks into actions.

    The footer shows a game's keys only while they do something (on my turn): each shown
    key has a hidden twin that still sends its action off-turn, so the rules say why not."""

    game: Game
    #: whether the footer hides the game's keys when it is not my turn (a board whose keys
    #: belong to several people, or to a race, says False)
    gate_keys: bool = True

    #: the actions of the keys the footer shows (worked out once, for every class of board)
    _shown_actions: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        bindings = [b for b in cls.BINDINGS if isinstance(b, Binding)]
        cls._shown_actions = frozenset(parse(b.action)[1] for b in bindings if b.show)
        if cls.__dict__.get("gate_keys", Board.gate_keys) and "BINDINGS" in cls.__dict__:
            twins = [
                Binding(b.key, f"anyway({b.action!r})", show=False, id=f"{b.id}.anyway" if b.id else None)
                for b in bindings if parse(b.action)[1] in cls._shown_actions
            ]
            cls.BINDINGS = [*cls.BINDINGS, *twins]
        super().__init_subclass__(**kwargs)  # (Textual merges the bindings here)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.gate_keys and action in self._shown_actions and f"action_{action}" in type(self).__dict__:
            return self.snapshot.my_turn
        return True

    def action_anyway(self, action: str) -> None:
        """A game key pressed when it does nothing now: send it all the same (the rules say why)."""
        _, name, arguments = parse(action)
        getattr(self, f"action_{name}")(*arguments)

    class ActionChosen(Message):
        """A player at this terminal chose an action on the board: the player of ``seat``
        (another person sharing the keyboard), or the view's own player (None)."""

        def __init__(self, action: Action, seat: int | None = None) -> None:
            super().__init__()
            self.action = action
            self.seat = seat

    class Pressed(Message):
        """A player at this terminal made one input of a real-time round (``action``: an action of
        that input alone), to be heard by everyone at once; ``seat`` as in ``ActionChosen``."""

        def __init__(self, action: Action, seat: int | None = None) -> None:
            super().__init__()
            self.action = action
            self.seat = seat

    def __init__(self, snapshot: Snapshot, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.snapshot = snapshot
        #: the table's pace (seconds between bot moves), for boards that time things by it
        self.pace = 0.0
        self._parts: dict[str, Widget] = {}

    def part(self, id: str, kind: type[W] = Widget) -> W:  # type: ignore[assignment]
        """One of the board's own widgets, by its id: looked up once, then kept (a board
        redraws every part after every move)."""
        found = self._parts.get(id)
        if found is None:
            found = self._parts[id] = self.query_one(f"#{id}", kind)
        return found  # type: ignore[return-value]

    @property
    def drawable(self) -> bool:
        """Whether the board can draw: its parts are there and the app is not closing (a board
        taken down as it came up, the app quitting, draws nothing)."""
        return bool(self.children) and self.app.is_running

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Draw a new snapshot (called after every change at the table)."""
        turn_changed = snapshot.my_turn != self.snapshot.my_turn
        self.snapshot = snapshot
        if self.drawable:
            self.redraw()
        if turn_changed:
            self.refresh_bindings()  # the footer shows the game's keys only on my turn

    def redraw(self) -> None:
        raise NotImplementedError

    def status_line(self) -> str:
        """One line for the top bar: round, event, whose turn."""
        raise NotImplementedError

    def prompt_line(self) -> str:
        """What I can do now (or whom we are waiting for)."""
        raise NotImplementedError

    def player_lines(self) -> list[PlayerLine]:
        raise NotImplementedError

    def choose(self, action: Action | None, seat: int | None = None) -> bool:
        """Post ``action`` (of ``seat``, if another player here chose it) if there is one;
        True if posted."""
        if action is None:
            self.app.bell()
            return False
        self.post_message(self.ActionChosen(action, None if seat == self.snapshot.seat else seat))
        return True

    def pace_note(self, pace: float) -> str:
        """What the pace (+/-) now means at this table, for the player who changed it."""
        return f"Bots now wait {pace:.2f} s between moves."

    def player_name(self, seat: int) -> str:
        return self.snapshot.view["players"][seat]
