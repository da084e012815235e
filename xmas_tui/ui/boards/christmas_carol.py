"""The Mickey's Christmas Carol board: Scrooge's clock, the four puzzles, the bag, this turn's tiles.

Draws only what the snapshot shows. Every tile outside the bag lies face up,
so what the bag holds (how many puzzle tiles, how many of each special tile)
is worked out from the view, as anyone at the table could count it. Which
tiles I have chosen to play is this board's own state until I press Enter;
every key sends an action, so an illegal one is refused by the rules with the
rule it breaks.

Must not touch: the engine state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Horizontal
from textual.widgets import Static

from xmas_tui.games import Event
from xmas_tui.games.christmas_carol import (
    AWAKE,
    CLOCK,
    GAME,
    IGNORE,
    MAX_DRAW,
    PLAY,
    SPECIALS,
    TILES_PER_PUZZLE,
    TO_BAG,
    TO_BOX,
    Draw,
    Play,
    Stop,
    all_faces,
    hour,
    piece_of,
    puzzle_of,
)
from xmas_tui.tables.table import Snapshot

from .. import paint
from ..theme import Inks, inks
from .base import Board, BoardClick, Box, BoxRow, PlayerLine

#: Each puzzle's colour (the backs of its tiles).
COLOURS: dict[int, str] = {
    1: "berry",
    2: "green",
    3: "blue",
    4: "gold",
    5: "violet",
    6: "teal",
}
ALL_FACES = Counter(all_faces())
#: Where each space of the clock is drawn: (row, column) in a 7 x 17 face.
CLOCK_AT: dict[int, tuple[int, int]] = {
    12: (0, 7), 1: (1, 12), 2: (2, 14), 3: (3, 16), 4: (4, 14), 5: (5, 12),
    6: (6, 8), 7: (5, 3), 8: (4, 1), 9: (3, 0), 10: (2, 1), 11: (1, 3),
}
CLOCK_ROWS, CLOCK_COLS = 7, 17
#: A drawn tile's size on the board (cells, its border's included), and the gap after it.
TILE_WIDTH, TILE_HEIGHT = 8, 4
#: The buttons under the tiles: the key, what it does, the board's action; and the gap between them.
BUTTONS = (("d", "Draw", "draw"), ("s", "Stop", "stop"), ("⏎", "Play", "play"))
BUTTON_GAP = 2
#: How strongly a button that does nothing now is drawn (its colours, over the felt).
FADED = 0.45
LEGEND = Text.assemble(("In order: Scrooge −1\n", "dim"), ("Early: + its number", "dim"))
#: Events worth repeating under the tiles: Scrooge moved, a puzzle was finished, a turn again.
NEWS = frozenset({"clock", "complete", "again", "special", "ignore", "over"})


def clock_face(scrooge: int, ink: Inks) -> Text:
    """The clock as seven lines: the spaces Scrooge has passed in red, his space in gold."""
    grid: list[list[tuple[str, str]]] = [[(" ", "")] * CLOCK_COLS for _ in range(CLOCK_ROWS)]
    at = hour(scrooge)
    passed = set(CLOCK[: scrooge + 1])
    for space, (row, col) in CLOCK_AT.items():
        label = str(space)
        if space == at:
            style = f"bold {ink.dark_ink} on {ink.gold_ground}" if scrooge < AWAKE else f"bold {ink.on_ground} on {ink.alarm_ground}"
        elif space == 8:
            style = f"bold {ink.berry}"
        elif space in passed:
            style = ink.faded
        else:
            style = ink.leaf
        for i, ch in enumerate(label):
            grid[row][col + i] = (ch, style)
    middle = [
        (2, "Scrooge", "bold"),
        (3, "zZz" if scrooge == 0 else ("AWAKE!" if scrooge >= AWAKE else f"on {at}"), f"bold {ink.gold}" if scrooge < AWAKE else f"bold {ink.berry}"),
        (4, f"{AWAKE - scrooge} left" if scrooge < AWAKE else "", "dim"),
    ]
    for row, words, style in middle:
        start = (CLOCK_COLS - len(words)) // 2
        for i, ch in enumerate(words):
            grid[row][start + i] = (ch, style)
    text = Text()
    for r, row in enumerate(grid):
        if r:
            text.append("\n")
        for ch, style in row:
            text.append(ch, style=style)
    return text


def bag_counts(snapshot: Snapshot) -> Counter[str]:
    """What the bag holds, by face: every tile outside it lies face up."""
    return ALL_FACES - Counter(snapshot.view.faces.values())


def tile_card(face: str, ink: Inks) -> Text:
    """A drawn tile's face: its puzzle and piece, in the puzzle's colour."""
    puzzle = puzzle_of(face)
    colour = ink[COLOURS[puzzle]]
    text = Text()
    text.append(f"{puzzle:^6}", style=f"bold {ink.felt} on {colour}")
    text.append(f"\ntile {piece_of(face)}", style=colour)
    return text


def turn_ended_by_scrooge(log: Sequence[Event]) -> Event | None:
    """The Move Scrooge tile that ended the last turn, while nobody has drawn since: the
    board says so (the log alone was too easy to miss)."""
    for event in reversed(log):
        if event.kind == "special":
            return event
        if event.kind in ("draw", "stop"):
            return None
    return None


def chance(part: int, whole: int) -> str:
    return f"{part} in {whole} ({round(100 * part / whole)}%)" if whole else "none"


class ClockFace(paint.Words):
    """Scrooge's clock."""


class PuzzleLine(paint.Words):
    """One puzzle: its number, its tiles placed, and what finishing it would do now."""

    def __init__(self, index: int) -> None:
        super().__init__(id=f"cc-puzzle-{index}", classes="cc-puzzle")
        self.index = index


class BagLine(BoardClick):
    """The bag. Click to draw a tile."""

    def __init__(self) -> None:
        super().__init__("action_draw", id="cc-bag")


def fade(colour: str, ground: str, opacity: float = FADED) -> str:
    """``colour`` drawn at ``opacity`` over ``ground`` (hex colours; a colour of the terminal's
    own 16 cannot be blended, and stays as it is: the words are dim as well)."""
    if not (colour.startswith("#") and ground.startswith("#")):
        return colour
    return Color.parse(ground).blend(Color.parse(colour), opacity).hex


def button(key: str, words: str, ink: Inks, fg: str, live: bool) -> Text:
    """A key and what it does, faded while it does nothing now: its words dim, and not bold
    (so it reads as off without its colours too)."""
    key_fg, key_ground, words_fg = ink.dark_ink, ink.gold_ground, fg
    if not live:
        key_fg, key_ground, words_fg = (fade(c, ink.felt) for c in (key_fg, key_ground, words_fg))
        return Text.assemble((f" {key} ", f"{key_fg} on {key_ground}"), (f" {words} ", f"dim {words_fg}"))
    return Text.assemble((f" {key} ", f"bold {key_fg} on {key_ground}"), (f" {words} ", f"bold {words_fg}"))


class ChristmasCarolBoard(Board):
    game = GAME

    BINDINGS = [
        Binding("d", "draw", "Draw", tooltip="Draw a tile from the bag (up to five a turn)", id="cc.draw"),
        Binding("s", "stop", "Stop", tooltip="Stop drawing and play what you drew", id="cc.stop"),
        Binding("1", "pick(0)", "Choose", key_display="1-5", tooltip="Choose (or unchoose) that tile to play", id="cc.pick"),
        *[
            Binding(str(n + 1), f"pick({n})", f"Choose tile {n + 1}", show=False, tooltip=f"Choose (or unchoose) tile {n + 1}", id=f"cc.pick{n + 1}")
            for n in range(1, MAX_DRAW)
        ],
        Binding("left", "move(-1)", "Previous tile", show=False, tooltip="Highlight the tile before", id="cc.left"),
        Binding("right", "move(1)", "Next tile", show=False, tooltip="Highlight the next tile", id="cc.right"),
        Binding("space", "pick_highlighted", "Choose highlighted", show=False, tooltip="Choose (or unchoose) the highlighted tile", id="cc.space"),
        Binding("enter,p", "play", "Play", key_display="⏎", tooltip="Play the chosen tiles to their puzzles", id="cc.play"),
    ]

    def __init__(self, snapshot: Snapshot, *, id: str | None = None) -> None:
        super().__init__(snapshot, id=id)
        self.picked: list[int] = []
        self.cursor = 0

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="cc-top"):
            yield ClockFace(id="cc-clock")
            with paint.Panel(id="cc-puzzles"):
                for index in range(4):
                    yield PuzzleLine(index)
                yield paint.Words(LEGEND, id="cc-legend")
        yield BagLine()
        with paint.Panel(id="cc-turn"):
            yield BoxRow(TILE_HEIGHT, 1, id="cc-tiles")  # this turn's tiles: click one to choose it
            yield BoxRow(1, BUTTON_GAP, id="cc-buttons")  # click one, or press its key
            yield paint.Words(id="cc-moment")

    def on_mount(self) -> None:
        if not self.drawable:
            return
        paint.title(self.part("cc-clock"), "Clock")
        self.redraw()

    # -------------------------------------------------------------- reading the snapshot
    @property
    def phase(self) -> str:
        return self.snapshot.view["phase"]

    def tiles(self) -> list[tuple[int, str]]:
        """This turn's puzzle tiles, in the order drawn: (handle, face)."""
        return [(h, f) for h, f in self.snapshot.view.cards("drawn") if f is not None and puzzle_of(f)]

    def set_aside(self) -> list[str]:
        return [f for _, f in self.snapshot.view.cards("drawn") if f in SPECIALS]

    def need(self) -> int:
        return min(PLAY, len(self.tiles()))

    # -------------------------------------------------------------- drawing
    def show_snapshot(self, snapshot: Snapshot) -> None:
        drawn = {h for h, _ in self.tiles()}
        keys = self.keys_now()
        self.snapshot = snapshot
        if not snapshot.my_turn or snapshot.view["phase"] != "choose":
            self.picked = []
        self.picked = [h for h in self.picked if h in {h for h, _ in self.tiles()}]
        if drawn != {h for h, _ in self.tiles()}:
            self.cursor = 0
        if self.drawable:
            self.redraw()
        self.follow_keys(keys)  # (the key bar shows the game's keys only on my turn)

    def redraw(self) -> None:
        view = self.snapshot.view
        paint.show(self.part("cc-clock", ClockFace), clock_face(view["scrooge"], inks(self)))
        self._draw_puzzles()
        self._draw_bag()
        self._draw_turn()

    def _draw_puzzles(self) -> None:
        ink = inks(self)
        view = self.snapshot.view
        completed = view["completed"]
        open_ = [p for p in view["puzzles"] if p not in completed]
        lowest = open_[0] if open_ else None
        for index, puzzle in enumerate(view["puzzles"]):
            line = self.part(f"cc-puzzle-{index}", PuzzleLine)
            colour = ink[COLOURS[puzzle]]
            placed = len(view.zone(f"puzzle.{puzzle}"))
            text = Text(f"{puzzle} ", style=f"bold {colour}")
            text.append("█" * placed, style=colour)
            text.append("░" * (TILES_PER_PUZZLE - placed), style=ink.felt_empty)
            text.append(f" {placed}/{TILES_PER_PUZZLE} ", style="bold" if placed else "dim")
            if puzzle in completed:
                order = completed.index(puzzle) + 1
                text.append(f"✓ done ({order}{'st' if order == 1 else 'nd' if order == 2 else 'rd' if order == 3 else 'th'})", style=ink.leaf)
            elif puzzle == lowest:
                text.append("◀ next", style=f"bold {ink.gold}")
            elif placed == TILES_PER_PUZZLE - 1:
                text.append(f"⚠ early +{puzzle}", style=f"bold {ink.berry}")
            else:
                text.append(f"early +{puzzle}", style=ink.faded)
            paint.show(line, text)
            paint.tip(line, (
                f"Puzzle {puzzle}: {placed} of {TILES_PER_PUZZLE} tiles. "
                + ("Complete." if puzzle in completed else "Finishing it now moves Scrooge back 1." if puzzle == lowest
                   else f"Finishing it before the lower puzzles moves Scrooge {puzzle} spaces clockwise.")
            ))
        paint.title(self.part("cc-puzzles"), f"Puzzles · {len(completed)} of 4 done")

    def _draw_bag(self) -> None:
        ink = inks(self)
        bag = bag_counts(self.snapshot)
        total = sum(bag.values())
        puzzles = sum(n for f, n in bag.items() if puzzle_of(f))
        wakers = bag[TO_BOX] + bag[TO_BAG]
        text = Text.assemble(("Bag ", "bold"), (f"{total}", f"bold {ink.gold}"), (" tiles: ", "dim"), (f"{puzzles} puzzle", "bold"))
        text.append(", ", style="dim")
        text.append(f"{wakers} ◷", style=f"bold {ink.berry}" if wakers else "dim")
        text.append(", ", style="dim")
        text.append(f"{bag[IGNORE]} ⊘", style=f"bold {ink.ice}" if bag[IGNORE] else "dim")
        line = self.part("cc-bag", BagLine)
        paint.show(line, text)
        paint.tip(line, f"Draw a tile from the bag: {puzzles} puzzle tiles, {wakers} Move Scrooge (◷), {bag[IGNORE]} Ignore (⊘)")

    def _draw_turn(self) -> None:
        ink = inks(self)
        snap = self.snapshot
        view = snap.view
        tiles = self.tiles()
        choosing = snap.my_turn and self.phase == "choose"
        if tiles:
            self.cursor = min(self.cursor, len(tiles) - 1)
        cards = []
        for slot in range(MAX_DRAW):
            if slot >= len(tiles):
                cards.append(Box(
                    lines=(Text(), Text("   ?", style=ink.felt_empty)), width=TILE_WIDTH, border="dashed", edge=ink.felt_line_dim,
                    ground=ink.felt, hover=ink.felt_hover, click=("action_pick", (slot,)),
                ))
                continue
            handle, face = tiles[slot]
            picked = handle in self.picked
            cards.append(Box(
                lines=tuple(tile_card(face, ink).split("\n")), width=TILE_WIDTH,
                border="heavy" if picked else "round", edge=ink.gold if picked else ink[COLOURS[puzzle_of(face)]],
                title=Text(f"{'▸' if choosing and slot == self.cursor else ''}{slot + 1}",
                           style=f"bold {ink.gold}" if picked else ink.leaf),
                subtitle=Text("play", style=f"bold {ink.gold}") if picked else None,  # (and a heavy border)
                ground=ink.felt_pick if picked else ink.felt_hover if choosing and slot == self.cursor else ink.felt_card,
                hover=ink.felt_hover, click=("action_pick", (slot,)),
                tip=f"Puzzle {puzzle_of(face)}, piece {piece_of(face)}" + (": choose it to play" if choosing else ""),
            ))
        self.part("cc-tiles", BoxRow).show_boxes(cards)
        aside = Counter(self.set_aside())  # (said on the box's bottom edge: the tiles keep their room)
        wakers = aside[TO_BAG] + aside[TO_BOX]
        said = [f"{aside[IGNORE]} ⊘" if aside[IGNORE] else "", f"{wakers} ◷" if wakers else ""]
        paint.subtitle(self.part("cc-turn"), f"set aside, back to the bag: {' '.join(w for w in said if w)}" if aside else "")
        drawing = snap.my_turn and self.phase == "draw"
        live = {
            "draw": drawing,
            "stop": drawing and any(isinstance(a, Stop) for a in snap.legal),
            "play": choosing and len(self.picked) == self.need(),
        }
        buttons = self.part("cc-buttons", BoxRow)
        buttons.display = snap.seat is not None  # (a spectator has no keys to press)
        fg = buttons.visual_style.foreground
        words = fg.hex if fg is not None else ink.cream
        buttons.show_boxes([
            Box(lines=(label := button(key, what, ink, words, live[action]),), width=label.cell_len,
                hover=ink.felt_hover if live[action] else fade(ink.felt_hover, ink.felt), click=(f"action_{action}", ()))
            for key, what, action in BUTTONS
        ])
        box = self.part("cc-turn")
        whose = "Your" if snap.my_turn else f"{self.player_name(view['turn'])}'s"
        if self.phase == "over":
            paint.title(box, "The end")
        elif self.phase == "choose":
            paint.title(box, f"{whose} tiles · choose {self.need()}")
        else:  # (how many are drawn: the tiles show it, and the prompt says it)
            paint.title(box, f"{whose} turn · drawing")
        paint.wear_edge(box, ink.css("gold") if snap.my_turn else None)
        paint.show(self.part("cc-moment", Static), self._moment())

    def _moment(self) -> Text:
        """Two lines: what matters now, then the latest news of the clock."""
        ink = inks(self)
        snap = self.snapshot
        text = Text()
        if snap.result is not None:
            won = bool(snap.result.winners)
            text.append("Everyone wins: the story is told!" if won else "Scrooge woke up: everyone loses.",
                        style=f"bold {ink.gold}" if won else f"bold {ink.berry}")
        elif self.phase == "choose":
            need = self.need()
            text.append(f"Chosen {len(self.picked)} of {need}", style=f"bold {ink.gold}")
            text.append(" · Enter plays them" if len(self.picked) == need else " · 1-5 or click to choose", style="dim")
        else:
            bag = bag_counts(snap)
            wakers = bag[TO_BOX] + bag[TO_BAG]
            text.append("Next tile moves Scrooge: ", style="dim")
            text.append(chance(wakers, sum(bag.values())), style=f"bold {ink.berry}" if wakers else "dim")
        ended = turn_ended_by_scrooge(snap.log)
        news = ended or next((e for e in reversed(snap.log) if e.kind in NEWS), None)
        if ended is not None and ended.seat is not None:  # (the log has the whole story)
            text.append("\n◷ Turn over: ", style=f"bold {ink.berry}")
            text.append(f"{self.player_name(ended.seat)} drew a Move Scrooge tile: no more drawing, the others are played.",
                        style=f"italic {ink.news}")
        elif news is not None:
            text.append("\n")
            text.append(news.text, style=f"italic {ink.news}")
        return text

    # -------------------------------------------------------------- the table screen's lines
    def status_line(self) -> str:
        view = self.snapshot.view
        scrooge = view["scrooge"]
        where = "asleep on 9" if scrooge == 0 else "awake on 8" if scrooge >= AWAKE else f"on {hour(scrooge)}"
        if self.phase == "over":
            return f"{GAME.title} · {'won' if view['outcome'] == 'won' else 'lost'} · Scrooge {where}"
        whose = "your" if view["turn"] == self.snapshot.seat else f"{self.player_name(view['turn'])}'s"
        return f"{GAME.title} · Turn {view['turns'] + 1} · {whose} turn · Scrooge {where}"

    def prompt_line(self) -> str:
        snap = self.snapshot
        view = snap.view
        if snap.result is not None:
            return "The game is over."
        if not snap.my_turn:
            who = self.player_name(view["turn"])
            if self.phase == "choose":
                return f"{who} is choosing which tiles to play."
            return f"{who} is drawing tiles ({len(view.zone('drawn'))} of {MAX_DRAW} so far)."
        if self.phase == "choose":
            need = self.need()
            return (
                f"Choose {need} tile{'s' if need > 1 else ''} to play: press {'1-' + str(len(self.tiles()))} or click them, "
                "then Enter.\nThe others go back into the bag."
            )
        drawn = len(view.zone("drawn"))
        if not drawn:
            return "Draw tiles one at a time: press d (or click the bag), up to five.\nStop (s) whenever you like, then play two."
        return f"{drawn} of {MAX_DRAW} drawn: draw again (d) or stop (s) and play two.\nA ◷ tile stops you, plays every tile and moves Scrooge."

    def player_lines(self) -> list[PlayerLine]:
        view = self.snapshot.view
        lines = []
        for seat, name in enumerate(view["players"]):
            acting = seat in self.snapshot.to_act
            if acting and self.phase == "choose":
                summary = "choosing tiles to play"
            elif acting:
                summary = "drawing tiles"
            else:
                summary = "helping Mickey"
            lines.append(PlayerLine(seat, name, "", summary, acting))
        return lines

    # -------------------------------------------------------------- input
    def offers(self, action: str) -> bool:
        if action in ("draw", "stop"):
            return self.phase == "draw" and any(isinstance(a, Draw if action == "draw" else Stop) for a in self.snapshot.legal)
        return self.phase == "choose"  # (the tiles' keys, and Enter to play them)

    # A key always sends an action: if it is not legal, the rules say why.
    def action_draw(self) -> None:
        self.choose(Draw())

    def action_stop(self) -> None:
        self.choose(Stop())

    def action_pick(self, slot: int) -> None:
        """Choose (or unchoose) the tile in ``slot``; the rules are asked only when I play."""
        tiles = self.tiles()
        if not (self.snapshot.my_turn and self.phase == "choose") or slot >= len(tiles):
            self.choose(Play(tuple(self.picked)) if self.phase != "choose" else None)
            return
        self.cursor = slot
        handle = tiles[slot][0]
        if handle in self.picked:
            self.picked.remove(handle)
        else:
            self.picked.append(handle)
            if len(self.picked) > self.need():
                self.picked.pop(0)
        self._draw_turn()

    def action_pick_highlighted(self) -> None:
        self.action_pick(self.cursor)

    def action_move(self, step: int) -> None:
        tiles = self.tiles()
        if tiles:
            self.cursor = (self.cursor + step) % len(tiles)
            self._draw_turn()

    def action_play(self) -> None:
        order = [h for h, _ in self.tiles()]
        self.choose(Play(tuple(h for h in order if h in self.picked)))

