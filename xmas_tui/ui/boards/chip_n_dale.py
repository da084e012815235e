"""The Chip 'n' Dale board: the tree of six, the piles, my Treasures.

Draws only what the snapshot shows: a card turned face down again is drawn
face down, whatever was seen before (it is a memory game; the screen must not
remember for the player).
"""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Grid, Horizontal, Vertical
from textual.events import Click
from textual.widgets import Static

from xmas_tui.games import Action, count
from xmas_tui.games.chip_n_dale import (
    EVENT_TITLES,
    GAME,
    NAMES,
    PLUTO_LIMIT,
    SLOT_ZONES,
    STAR_EVENTS,
    Collect,
    Continue,
    Discard,
    Flip,
    Give,
    Pass,
    Peek,
    Stop,
    Take,
    right_of,
    score,
    treasure,
)

from .. import paint
from ..theme import Inks, inks
from .base import Board, Box, BoxRow, PlayerLine, legal_where

PLUTO = "☻"
#: The tree's rows of places, top to bottom.
TREE_ROWS = ((0,), (1, 2), (3, 4, 5))
#: A place in the tree: its width and height (its border's included), and the cells between two.
SLOT_WIDTH, SLOT_HEIGHT, SLOT_GAP = 14, 4, 1
#: Places for my Treasures, four a row (more are made if a collection ever outgrows them).
CHIP_PLACES = 16
#: What pressing a slot key or choosing one of my Treasures means in each phase.
SLOT_ACTIONS = {"flip": Flip, "collect": Collect, "peek": Peek, "take": Take}
CARD_ACTIONS = {"discard": Discard, "give": Give, "pass": Pass}
#: The ink (see ``theme``) and the two lines drawn on a face-up card, by kind.
LOOK: dict[str, tuple[str, str, str]] = {
    "ornament-chip": ("berry", "Ornament", "Chip"),
    "ornament-dale": ("ember", "Ornament", "Dale"),
    "candy-chip": ("white", "Candy Cane", "Chip"),
    "candy-dale": ("pink", "Candy Cane", "Dale"),
    "popcorn": ("yellow", "Popcorn", ""),
    "acorn": ("brown", "Acorn", ""),
    "bell": ("gold", "Bell", ""),
}
SHORT = {
    "ornament-chip": "Orn·C",
    "ornament-dale": "Orn·D",
    "candy-chip": "Cane·C",
    "candy-dale": "Cane·D",
    "popcorn": "Popcorn",
    "acorn": "Acorn",
    "bell": "Bell",
}
ORDER = list(LOOK)
#: Each Event in one line of the prompt (the rules screen has the rulebook's words).
EVENT_BRIEF = {
    "collect-three": "Before each turn: collect three Treasures, then discard one.",
    "peek": "Before each turn: peek at two Treasures in the tree.",
    "swap": "Before each turn: swap one of your Treasures with one in the tree.",
    "collect-two": "Everyone collects two Treasures, then all pass one to the right.",
    "discard-tree": "The tree is discarded and filled again from the deck.",
    "flip-tree": "The tree is shown face up, then shuffled face down again.",
}


def card_text(face: str, ink: Inks) -> Text:
    kind, plutos = treasure(face)
    hue, line1, line2 = LOOK[kind]
    colour = ink[hue]
    text = Text(f"{line1}\n", style=f"bold {colour}")
    text.append(f"{line2:<5}", style=colour)
    text.append(PLUTO * plutos, style=f"bold {ink.ice}")
    return text


def summary(faces: list[str]) -> str:
    """A collection counted in words: ``2 ornaments, 1 candy cane, 3 popcorn, 2 bells``."""
    kinds = Counter(treasure(f)[0] for f in faces)
    counted = (
        (kinds["ornament-chip"] + kinds["ornament-dale"], "ornament", "ornaments"),
        (kinds["candy-chip"] + kinds["candy-dale"], "candy cane", "candy canes"),
        (kinds["popcorn"], "popcorn", "popcorn"),
        (kinds["acorn"], "acorn", "acorns"),
        (kinds["bell"], "bell", "bells"),
    )
    parts = [f"{n} {one if n == 1 else many}" for n, one, many in counted if n]
    return ", ".join(parts) or "no Treasures yet"


def slot_box(slot: int, words: Text, looks: frozenset[str], ink: Inks) -> Box:
    """A place in the tree, as a card of its ``looks``: ``down`` (face down), ``flipped``
    (flipped this turn), ``peeked`` (seen by me this turn), ``empty``, ``choosable`` (a key or
    a click on it does something now). Click it to flip, collect, peek or take it."""
    edge = ink.felt_line_dim if "empty" in looks else ink.ice if "peeked" in looks else ink.gold if "flipped" in looks else ink.felt_line
    choosable = "choosable" in looks
    said = "peeked" if "peeked" in looks else "flipped" if "flipped" in looks else ""  # (not by its colour alone)
    return Box(
        lines=tuple(Text(" ").append_text(line) for line in words.split("\n")), width=SLOT_WIDTH,
        border="dashed" if "peeked" in looks and "empty" not in looks else "round", edge=edge,
        title=Text(str(slot + 1), style=f"bold {ink.gold}" if choosable else ink.leaf),
        subtitle=Text(said, style=edge) if said and "empty" not in looks else None,
        ground=ink.felt_down if "down" in looks else ink.felt_card, hover=ink.felt_hover, click=("action_slot", (slot,)),
    )


class TreasureChip(paint.Words):
    """A place for one of my Treasures. Click it to choose its Treasure (discard, swap, pass).
    The places stay (empty ones show nothing), so a Treasure won or lost moves nothing else.
    A chip's look (chosen, empty) is worn, not a class: a move restyles no widget."""

    handle: int | None = None

    def show(self, handle: int, face: str, selected: bool, ink: Inks) -> None:
        kind, plutos = treasure(face)
        self.handle = handle
        # (chosen, it is dark on gold, and says so with ▸: a Bell's or a Popcorn's own ink would vanish there)
        paint.show(self, Text(f"{'▸' if selected else ' '}{SHORT[kind]}{PLUTO * plutos}",
                              style=ink.dark_ink if selected else ink[LOOK[kind][0]]))
        if selected:
            paint.wear(self, ink.css("gold-ground"), ink.css("dark-ink"), "bold")
        else:
            paint.wear(self)  # (the stylesheet's, which lights it under the mouse)

    def empty(self, ink: Inks) -> None:
        self.handle = None
        paint.show(self, "")
        paint.wear(self, ink.css("felt"))  # (and not lit under the mouse)

    def on_click(self, event: Click) -> None:
        if self.handle is not None:
            self.screen.query_one(ChipNDaleBoard).pick_card(self.handle)


class ChipNDaleBoard(Board):
    game = GAME

    BINDINGS = [
        Binding("1", "slot(0)", "Slot", key_display="1-6", tooltip="Flip, collect, peek or take the Treasure in that slot", id="cnd.slot"),
        *[Binding(str(n + 1), f"slot({n})", f"Slot {n + 1}", show=False, id=f"cnd.slot{n + 1}") for n in range(1, 6)],
        Binding("s", "stop", "Stop", tooltip="Stop flipping and collect", id="cnd.stop"),
        Binding("left", "move(-1)", "Prev", show=False, id="cnd.left"),
        Binding("right", "move(1)", "Next", show=False, id="cnd.right"),
        Binding("enter", "pick", "Choose", key_display="←→⏎", tooltip="Choose one of your Treasures", id="cnd.pick"),
        Binding("c", "carry_on", "Continue", tooltip="Shuffle the shown tree face down", id="cnd.continue"),
    ]

    def __init__(self, snapshot, *, id: str | None = None) -> None:
        super().__init__(snapshot, id=id)
        self.selected = 0

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with Vertical(id="tree"):
            yield paint.Words(id="star-top", classes="star")
            for index, row in enumerate(TREE_ROWS):
                with Center(), Horizontal(classes="tree-row"):
                    width = len(row) * (SLOT_WIDTH + SLOT_GAP) - SLOT_GAP
                    yield BoxRow(SLOT_HEIGHT, SLOT_GAP, width=width, id=f"cnd-row-{index}")
        yield paint.Words(id="piles")
        yield paint.Words(id="mine-title")
        with Grid(id="mine"):
            self._chips = [TreasureChip(classes="chip") for _ in range(CHIP_PLACES)]
            yield from self._chips

    def on_mount(self) -> None:
        if not self.drawable:
            return
        self.redraw()

    # -------------------------------------------------------------- drawing
    def redraw(self) -> None:
        ink = inks(self)
        snap = self.snapshot
        view = snap.view
        me = snap.seat
        phase = view["phase"]
        flipped = set(view["flipped"])
        peeked = set(view["peeked"])
        boxes = []
        self.slot_looks = []
        for slot, zone in enumerate(SLOT_ZONES):
            cards = view.cards(zone)
            looks = set()
            if not cards:
                words = Text("\n  empty", style="dim")
                looks.add("empty")
            else:
                face = cards[0][1]
                if face is None:
                    words = Text("░░░░░░░░░\n░░░░░░░░░", style=ink.felt_line)
                    looks.add("down")
                else:
                    words = card_text(face, ink)
                    if slot in flipped:
                        looks.add("flipped")
                    if slot in peeked and me == view["turn"]:
                        looks.add("peeked")
                if any(getattr(a, "slot", None) == slot for a in snap.legal):
                    looks.add("choosable")
            self.slot_looks.append(frozenset(looks))
            boxes.append(slot_box(slot, words, self.slot_looks[-1], ink))
        for index, row in enumerate(TREE_ROWS):
            self.part(f"cnd-row-{index}", BoxRow).show_boxes([boxes[slot] for slot in row])
        star = view["star"]
        if star is None:
            paint.show(self.part("star-top", Static), Text("★", style=f"bold {ink.gold}"))
        else:
            paint.show(self.part("star-top", Static), Text(f"★ with {'you' if star == me else self.player_name(star)}", style=ink.gold))
        deck = len(view.zone("deck"))
        discard = view.faces_in("discard")
        counting = phase in ("flip", "collect")
        top = f" ({NAMES[treasure(discard[-1])[0]]} on top)" if discard and not counting else ""
        piles = Text(f"Deck {deck} · Discard {len(discard)}{top}")
        if counting:
            style = f"bold {ink.berry}" if view["caught"] else f"bold {ink.ice}"
            piles.append(f" · Pluto {view['plutos']}/{PLUTO_LIMIT} {PLUTO * view['plutos']}", style=style)
        offered = view.faces_in("swap")
        if offered:
            piles.append(f" · Offered: {NAMES[treasure(offered[0])[0]]}", style=ink.gold)
        paint.show(self.part("piles", Static), piles)
        mine = self._my_treasures()
        faces = [f for _, f in mine if f]
        points = score(faces).total
        title, grid = self.part("mine-title", Static), self.part("mine", Grid)
        title.display = grid.display = me is not None  # (a spectator)
        paint.show(title, Text.assemble(
            ("Your Treasures ", "bold"), (count(points, "point"), f"bold {ink.gold}"), f" · {count(len(mine), 'card')}"
        ))
        if mine:
            self.selected = min(self.selected, len(mine) - 1)
        self._ordered = [h for h, _ in mine]
        self._draw_chips(mine, self._picking(), ink)

    def _my_treasures(self) -> list[tuple[int, str | None]]:
        """My Treasures (handle, face), in the order their places show them: by kind, then as won."""
        snap = self.snapshot
        mine = snap.view.cards(f"collection.{snap.seat}") if snap.seat is not None else []
        return sorted(mine, key=lambda hf: (ORDER.index(treasure(hf[1] or "acorn/0")[0]), hf[0]))

    def _picking(self) -> bool:
        """Whether I am to pick one of my Treasures now (a chip is selected only then)."""
        return any(hasattr(a, "card") for a in self.snapshot.legal)

    def _draw_chips(self, ordered: list[tuple[int, str | None]], picking: bool, ink: Inks) -> None:
        """My Treasures in their places: only a place whose Treasure changed is drawn again."""
        chips = self._chips
        while len(chips) < len(ordered):
            chips.append(TreasureChip(classes="chip"))
            self.part("mine", Grid).mount(chips[-1])
        for i, chip in enumerate(chips):
            if i < len(ordered):
                handle, face = ordered[i]
                chip.show(handle, face or "acorn/0", picking and i == self.selected, ink)
            else:
                chip.empty(ink)

    def status_line(self) -> str:
        view = self.snapshot.view
        event = view["event"]
        total = view["round"] + len(view["events"])
        if event is None:
            return f"{GAME.title} · game over"
        star = " ★" if event in STAR_EVENTS else ""
        turn = view["turn"]
        if view["phase"] == "pass":
            whose = "everyone chooses"
        elif view["phase"] == "tree-shown":
            whose = "look at the tree!"
        elif turn == self.snapshot.seat:
            whose = "your turn"
        else:
            whose = f"{self.player_name(turn)}'s turn"
        return f"Round {view['round']}/{total} · Event: {EVENT_TITLES[event]}{star} · {whose}"

    def prompt_line(self) -> str:
        snap = self.snapshot
        view = snap.view
        phase = view["phase"]
        if snap.result is not None:
            return "The game is over."
        if not snap.my_turn:
            if phase == "pass":
                waiting = ", ".join(self.player_name(s) for s in sorted(snap.to_act))
                return f"Waiting for {waiting} to choose a Treasure to pass."
            return f"{self.player_name(view['turn'])} is playing.\nEvent: {EVENT_BRIEF.get(view['event'] or '', '')}"
        if phase == "flip":
            need = 2 - len(view["flipped"])
            base = "Flip a Treasure: press 1-6 or click it."
            return base + (" Press s to stop and collect." if any(isinstance(a, Stop) for a in snap.legal) else f" Flip {need} more before you may stop.")
        if phase == "collect":
            n = view["to_collect"]
            caught = "Pluto caught you! " if view["caught"] else ""
            which = "its slot number" if n == 1 else "their slot numbers"
            return f"{caught}Collect {count(n, 'face-up Treasure')}: press {which}."
        if phase == "discard":
            return "Collect three: choose one of your Treasures to discard (←/→ then Enter, or click)."
        if phase == "peek":
            return f"Peek: choose a face-down Treasure to look at ({2 - len(view['peeked'])} left). Only you will see it."
        if phase == "give":
            return "Swap: choose one of your Treasures to put into the tree (←/→ then Enter, or click)."
        if phase == "take":
            return "Swap: choose the tree slot whose Treasure you take (1-6)."
        if phase == "pass":
            me = snap.seat or 0
            right = self.player_name(right_of(me, len(view["players"])))
            return f"Choose a Treasure to pass to {right} (←/→ then Enter). It stays secret until all have chosen."
        if phase == "tree-shown":
            return "The whole tree is face up — remember it! Press c to shuffle it face down."
        return ""

    def player_lines(self) -> list[PlayerLine]:
        view = self.snapshot.view
        lines = []
        for seat, name in enumerate(view["players"]):
            faces = view.faces_in(f"collection.{seat}")
            marker = "★" if view["star"] == seat else ""
            lines.append(
                PlayerLine(seat, name, count(score(faces).total, "point"), summary(faces), seat in self.snapshot.to_act, marker)
            )
        return lines

    # -------------------------------------------------------------- input
    def offers(self, action: str) -> bool:
        legal = self.snapshot.legal
        if action == "slot":
            return any(hasattr(a, "slot") for a in legal)
        if action == "stop":
            return any(isinstance(a, Stop) for a in legal)
        if action == "carry_on":
            return any(isinstance(a, Continue) for a in legal)
        return self._picking()  # (←/→ and Enter choose one of my Treasures)

    # A key always sends an action: if it is not legal, the rules say why.
    def action_slot(self, slot: int) -> None:
        legal = legal_where(self.snapshot, lambda a: getattr(a, "slot", None) == slot)
        self.choose(legal or SLOT_ACTIONS.get(self.snapshot.view["phase"], Flip)(slot))

    def action_stop(self) -> None:
        self.choose(Stop())

    def action_carry_on(self) -> None:
        self.choose(Continue())

    def action_move(self, step: int) -> None:
        if self._ordered:
            self.selected = (self.selected + step) % len(self._ordered)
            self._draw_chips(self._my_treasures(), self._picking(), inks(self))

    def action_pick(self) -> None:
        if any(isinstance(a, Continue) for a in self.snapshot.legal):
            self.action_carry_on()
        elif self._ordered:
            self.pick_card(self._ordered[self.selected])

    def pick_card(self, handle: int) -> None:
        if handle in self._ordered:
            self.selected = self._ordered.index(handle)
        legal = legal_where(self.snapshot, lambda a: getattr(a, "card", None) == handle)
        self.choose(legal or CARD_ACTIONS.get(self.snapshot.view["phase"], Discard)(handle))

    _ordered: list[int] = []
    _chips: list[TreasureChip] = []  # (the places for my Treasures, in order)
    #: each place's looks, as drawn (see ``slot_box``)
    slot_looks: list[frozenset[str]] = []

    def describe(self, action: Action) -> str:
        return action.text()
