"""What every game's board widget provides to the table screen.

Owns: the ``Board`` base widget (it draws one seat's ``Snapshot`` and posts
``Board.ActionChosen`` when the player picks an action), the ``PlayerLine``
the side panel shows, ``BoardClick`` for the parts of a board a click acts on,
``LineBox`` and ``BoxRow`` for lists and rows of such parts drawn as one widget, and
helpers that map a key or a click to a legal action.

Must not touch: the table or the engine state. A board sees only a snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from rich.text import Text
from textual.actions import parse
from textual.binding import Binding
from textual.events import Click, Leave, MouseMove
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from xmas_tui.games import Action, Game
from xmas_tui.tables.table import Snapshot

from .. import paint

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


class BoardClick(paint.Words):
    """A part of a board that a click acts on: it calls the board's ``method`` with ``args``.
    ``static`` goes on to ``Static`` (content, id, classes)."""

    def __init__(self, method: str, *args: object, **static: Any) -> None:
        super().__init__(**static)
        self.method = method
        self.args = args

    def on_click(self, event: Click) -> None:
        getattr(self.screen.query_one(Board), self.method)(*self.args)


class LineBox(paint.Unscrolled, paint.QuickLines, Widget):
    """A list of lines a board draws one by one, as one widget: each line its words, its look
    (``pick``: chosen or highlighted; ``mark``: worth a look), its tooltip, and the board method
    a click on it calls (with its hover look, if it is worth clicking now).

    One widget instead of a widget a line: a move that changes three lines of a list of eight
    renders those three, and a change of look is drawn with the line, not by styling a widget
    again. The looks are component classes, styled in the app's stylesheet
    (``LineBox > .line-box--pick``), so they follow the theme."""

    COMPONENT_CLASSES = {"line-box--pick", "line-box--mark", "line-box--hover"}
    DEFAULT_CSS = """
    LineBox {
        height: auto;
        text-wrap: nowrap;
    }
    """
    LOOKS = ("pick", "mark")

    def __init__(self, lines: int, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        blank = Text()
        self._lines: list[Text] = [blank] * lines
        self._looks: list[str] = [""] * lines
        self._tips: list[str | None] = [None] * lines
        self._clicks: list[tuple[str, tuple[object, ...]] | None] = [None] * lines
        self._hoverable: list[bool] = [False] * lines
        self._hover: int | None = None
        self._mouse: int | None = None  # the line under the mouse
        self._strips = paint.LineStrips()

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self._lines)

    def set_line(
        self, y: int, content: str | Text, *, look: str = "", tip: str | None = None,
        click: tuple[str, tuple[object, ...]] | None = None, hover: bool | None = None,
    ) -> None:
        """Line ``y`` shows ``content`` in ``look`` (one of ``LOOKS``, or none), says ``tip`` under
        the mouse, and a click on it calls the board's ``click`` = (method, args); it lights up
        under the mouse if ``hover`` (by default: if a click does something)."""
        if isinstance(content, str):
            content = Text(content)
        self._tips[y], self._clicks[y] = tip, click
        self._hoverable[y] = click is not None if hover is None else hover
        if y == self._mouse:
            paint.tip(self, tip)
            self._hover_at(y)
        if look != self._looks[y] or paint.line_key(content) != paint.line_key(self._lines[y]):
            self._lines[y], self._looks[y] = content, look
            self._refresh_line(y)

    def line_text(self, y: int) -> str:
        """The words of line ``y``, as shown."""
        return self._lines[y].plain

    def line_look(self, y: int) -> str:
        return self._looks[y]

    def line_tip(self, y: int) -> str | None:
        return self._tips[y]

    def _refresh_line(self, y: int) -> None:
        if not self.is_mounted:
            return
        if self.size.width:
            self.refresh(paint.line_region(self, y))
        else:  # not shown now (a round's result between rounds): its lines drawn before are stale
            self.refresh()

    def render(self) -> Text:
        return Text("\n").join(self._lines)

    def render_line(self, y: int) -> Strip:
        if y >= len(self._lines):
            return Strip.blank(self.size.width, self.visual_style.rich_style)
        look = self._looks[y] or ("hover" if y == self._hover else "")
        style = self.get_visual_style(f"line-box--{look}") if look else None
        return self._strips.strip(self, self._lines[y], len(self._lines), style)

    def _hover_at(self, y: int | None) -> None:
        hover = y if y is not None and self._hoverable[y] else None
        if hover != self._hover:
            for line in (self._hover, hover):
                if line is not None:
                    self._refresh_line(line)
            self._hover = hover

    def _line_at(self, event: MouseMove | Click) -> int | None:
        offset = event.get_content_offset(self)
        return offset.y if offset is not None and 0 <= offset.y < len(self._lines) else None

    def on_mouse_move(self, event: MouseMove) -> None:
        y = self._mouse = self._line_at(event)
        paint.tip(self, self._tips[y] if y is not None else None)
        self._hover_at(y)

    def on_leave(self, event: Leave) -> None:
        self._mouse = None
        self._hover_at(None)

    def on_click(self, event: Click) -> None:
        y = self._line_at(event)
        click = self._clicks[y] if y is not None else None
        if click is not None:
            method, args = click
            getattr(self.screen.query_one(Board), method)(*args)


@dataclass(frozen=True, kw_only=True)
class Box:
    """One box of a ``BoxRow``: its lines of words on its ground, in a border of its own (or
    none), a title on the border's top edge, the ground it takes under the mouse (None: it
    does not light up), its tooltip, and the board method a click on it calls (with args)."""

    lines: tuple[Text, ...] = ()
    width: int = 0  # (cells, the border's included)
    border: str = ""  # "round", "heavy", "dashed", or "" (none)
    edge: str = ""  # the border's colour
    title: Text | None = None
    subtitle: Text | None = None  # (on the bottom edge, at its right)
    ground: str = ""  # its background ("": the row's)
    hover: str | None = None
    tip: str | None = None
    click: tuple[str, tuple[object, ...]] | None = None


def box_key(box: Box) -> tuple:
    """What ``box`` draws and does, comparable (its words and their styles, not the Texts)."""
    label = paint.line_key
    return (
        tuple(label(line) for line in box.lines), box.width, box.border, box.edge,
        box.title and label(box.title), box.subtitle and label(box.subtitle), box.ground, box.hover, box.tip, box.click,
    )


#: each border's characters: top, middle and bottom, each (left, fill, right), as Textual draws them
EDGES: dict[str, tuple[str, str, str]] = {
    "round": ("╭─╮", "│ │", "╰─╯"),
    "heavy": ("┏━┓", "┃ ┃", "┗━┛"),
    "dashed": ("┏╍┓", "╏ ╏", "┗╍┛"),
}


def grounded(words: Text, width: int, ground: str) -> Text:
    """``words`` cut or padded to ``width`` cells, on ``ground`` (under their own styles)."""
    words = words.copy()
    words.truncate(width, pad=True)
    if ground:
        words.stylize_before(f"on {ground}", 0, len(words))
    return words


def box_line(box: Box, y: int, height: int, ground: str) -> Text:
    """Line ``y`` of ``box`` (``height`` lines tall) on ``ground``: as Textual draws a widget of
    that border, title and background."""
    if not box.border:
        return grounded(box.lines[y] if y < len(box.lines) else Text(), box.width, ground)
    top, middle, bottom = EDGES[box.border]
    edge = f"{box.edge} on {ground}" if ground else box.edge
    inner = box.width - 2
    if y in (0, height - 1):
        left, fill, right = top if y == 0 else bottom
        label = box.title if y == 0 else box.subtitle
        if not label:
            return Text.assemble((left + fill * inner + right, edge))
        label = Text(" ").append_text(label).append(" ")
        label = grounded(label, min(label.cell_len, inner - 1), ground)
        before = 1 if y == 0 else inner - 1 - label.cell_len  # (a title at the left, a subtitle at the right)
        return Text.assemble(
            (left + fill * before, edge), label, (fill * (inner - before - label.cell_len) + right, edge),
        )
    words = box.lines[y - 1] if y - 1 < len(box.lines) else Text()
    return Text.assemble((middle[0], edge), grounded(words, inner, ground), (middle[2], edge))


class BoxRow(LineBox):
    """Boxes side by side (a turn's tiles, a row of buttons), ``gap`` cells apart, drawn as one
    widget of lines: a move that changes three tiles draws the lines they are on, once, where
    a widget a box would style and draw each of them again. A box lights up under the mouse,
    says its tooltip, and a click on it calls the board's method for it."""

    def __init__(
        self, height: int, gap: int, *, width: int | None = None, timed: bool = False,
        id: str | None = None, classes: str | None = None,
    ) -> None:
        super().__init__(height, id=id, classes=classes)
        if width is not None:  # (as wide as its boxes will be)
            self.styles.width = width
        self.gap = gap
        self.timed = timed  # (a click also says when it was made: the board's method takes it last)
        self.boxes: tuple[Box, ...] = ()
        self._over: int | None = None  # the box under the mouse
        self._shown: tuple = ()  # (what the boxes shown draw: see box_key)

    def show_boxes(self, boxes: Sequence[Box]) -> None:
        """Show these boxes: drawn again only if one of them differs from what is shown."""
        boxes = tuple(boxes)
        key = tuple(box_key(box) for box in boxes)
        if key == self._shown:
            self.boxes = boxes  # (the same; a click or a tooltip reads them)
            return
        self.boxes, self._shown = boxes, key
        self._draw()

    def _draw(self) -> None:
        height = len(self._lines)
        lines = [Text() for _ in range(height)]
        for index, box in enumerate(self.boxes):
            ground = box.hover if index == self._over and box.hover else box.ground
            for y, line in enumerate(lines):
                if index:
                    line.append(" " * self.gap)
                line.append_text(box_line(box, y, height, ground))
        for y, line in enumerate(lines):
            self.set_line(y, line)

    def _box_at(self, event: MouseMove | Click) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        x = 0
        for index, box in enumerate(self.boxes):
            if x <= offset.x < x + box.width:
                return index
            x += box.width + self.gap
        return None

    def on_mouse_move(self, event: MouseMove) -> None:
        over = self._box_at(event)
        paint.tip(self, self.boxes[over].tip if over is not None else None)
        if over != self._over:
            self._over = over
            self._draw()

    def on_leave(self, event: Leave) -> None:
        if self._over is not None:
            self._over = None
            self._draw()

    def on_click(self, event: Click) -> None:
        over = self._box_at(event)
        click = self.boxes[over].click if over is not None else None
        if click is not None:
            method, args = click
            getattr(self.screen.query_one(Board), method)(*args, *((event.time,) if self.timed else ()))


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
            return self.snapshot.my_turn and self.offers(action)
        return True

    def offers(self, action: str) -> bool:
        """Whether the key bar offers the key of ``action`` on my turn now: a key that does
        nothing in this part of my turn is left out (its twin still sends its action, and the
        rules say why not). Every game key, unless the board says otherwise."""
        return True

    def keys_now(self) -> frozenset[str]:
        """The game keys the key bar offers now (a change redraws the bar)."""
        if not self.snapshot.my_turn:
            return frozenset()
        return frozenset(action for action in self._shown_actions if self.offers(action))

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

    # (a default type for a type variable: without ``kind`` the part is a plain Widget)
    def part(self, id: str, kind: type[W] = Widget) -> W:  # type: ignore[assignment]
        """One of the board's own widgets, by its id: looked up once, then kept (a board
        redraws every part after every move)."""
        found = self._parts.get(id)
        if found is None:
            found = self._parts[id] = self.query_one(f"#{id}", kind)
        return found  # type: ignore[return-value]  # (kept as it was found: of ``kind``)

    @property
    def drawable(self) -> bool:
        """Whether the board can draw: its parts are there and the app is not closing (a board
        taken down as it came up, the app quitting, draws nothing)."""
        return bool(self.children) and self.app.is_running

    def show_snapshot(self, snapshot: Snapshot) -> None:
        """Draw a new snapshot (called after every change at the table): nothing, if it is a new
        one that says nothing changed since the last (``Snapshot.changed``); the same one again
        (new inks, say) is drawn again."""
        keys = self.keys_now()
        unchanged = (snapshot is not self.snapshot and snapshot.changed is not None and not snapshot.changed
                     and snapshot.seats == self.snapshot.seats and not snapshot.room_waits)
        self.snapshot = snapshot
        if self.drawable and not unchanged:
            self.redraw()
        self.follow_keys(keys)

    def follow_keys(self, before: frozenset[str]) -> None:
        """The key bar again, if the keys it offers are not ``before``'s (on my turn, only the
        keys that do something in its part)."""
        if self.keys_now() != before:
            self.refresh_bindings()

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
