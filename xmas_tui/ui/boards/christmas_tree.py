"""The Christmas Tree board: the five rows, my hand by type, the sets I can play.

Draws only what the snapshot shows: the rows (face up for everyone), my own
hand, and for everyone else how many cards they hold and how many Points they
keep. The list of sets is worked out from my own hand, so it can be shown
(dimmed) while I wait; what I may do now comes from the snapshot's legal
actions, and every key sends an action, so an illegal one is refused by the
rules with the rule it breaks.

Must not touch: the engine state, or any hand but mine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from xmas_tui.games import Event, count
from xmas_tui.games.christmas_tree import (
    GAME,
    ITEMS,
    NAMES,
    PLURALS,
    ROW_SIZES,
    ROW_ZONES,
    ROWS,
    SANTA,
    TYPES,
    Done,
    Pay,
    Play,
    Take,
    counted,
    set_points,
)
from xmas_tui.tables.table import Snapshot

from .. import paint
from ..theme import Inks, inks
from .base import Board, LineBox, PlayerLine

#: How each type is drawn: a single-width symbol, its colour, a card background, a short name.
LOOK: dict[str, tuple[str, str, str, str]] = {
    "tree": ("▲", "green", "tree-ground", "Tree"),
    "gifts": ("⊞", "red", "gifts-ground", "Gifts"),
    "gingerbread": ("♟", "ginger", "ginger-ground", "Gingerbread"),
    "reindeer": ("Ψ", "sand", "sand-card-ground", "Reindeer"),
    "snowman": ("☃", "white", "snow-ground", "Snowman"),
    SANTA: ("★", "gold", "santa-ground", "Santa"),
}
#: The key that pays with a type while paying for a row.
PAY_KEYS: dict[str, str] = {
    "tree": "t",
    "gifts": "g",
    "gingerbread": "b",
    "reindeer": "r",
    "snowman": "n",
    SANTA: "s",
}
#: Set sizes worth offering: each is the smallest that scores 1, 2 or 3 Points.
SET_SIZES = (6, 5, 3)
#: A set's type, named in the list of sets where a long name has no room (its symbols show it too).
SET_NAMES = {"gingerbread": "Ginger"}
#: Lines in the list of sets; longer lists scroll with the highlight.
SET_LINES = 8
SCORING = Content.from_markup("[dim][b]3/5/6[/b] → [b $leaf]1/2/3[/] pts[/dim]")


def no_set(ink: Inks) -> tuple[Text, ...]:
    """Said in the list of sets while there is none, a line a row."""
    santa = Text(LOOK[SANTA][0], style=ink[LOOK[SANTA][1]])
    return (
        Text("No set to play yet.", style="dim"),
        Text("A set: 3+ of a type,", style="dim"),
        Text.assemble(santa, " Santa is wild.", style="dim"),
    )
#: Events after which the one who made them has moved (anything else just happens to them).
MOVES = frozenset({"take", "choose-row", "pay", "score", "done"})
SURPRISE = frozenset({"surprise", "reward"})
#: Reading a Surprise! event: "… discards 2 Reindeer." or "Nobody has to discard Reindeer."
#: A row's number and its longest run of cards (3 cells each, 1 apart).
ROW_WIDTH = 2 + 4 * max(ROW_SIZES) - 1


def chip(ink: Inks, item: str) -> Text:
    """One card as a small coloured tile."""
    symbol, colour, ground, _ = LOOK[item]
    return Text(f" {symbol} ", style=f"bold {ink[colour]} on {ink[ground]}")


def row_cards(ink: Inks, faces: Sequence[str]) -> Text:
    """A row's cards as tiles; a row grown long by payments as a tile and a count per type."""
    text = Text()
    if len(faces) <= max(ROW_SIZES):
        for face in faces:
            text.append_text(chip(ink, face))
            text.append(" ")
    else:
        counts = Counter(faces)
        for item in TYPES:
            if counts[item]:
                text.append_text(chip(ink, item))
                text.append(f"{counts[item]} ", style="bold")
    text.rstrip()
    return text


def badge(label: str, style: str) -> Text:
    """A label on a coloured ground, at the start of a line that goes on unstyled."""
    text = Text()
    text.append(label, style=style)
    return text


def symbols(ink: Inks, item: str, n: int) -> Text:
    symbol, colour, _, _ = LOOK[item]
    return Text(symbol * n, style=f"bold {ink[colour]}")


def set_text(ink: Inks, play: Play) -> Text:
    """``▲▲▲★`` for three Trees and a Santa Claus."""
    text = Text()
    if play.item != SANTA:
        text.append_text(symbols(ink, play.item, play.naturals))
    text.append_text(symbols(ink, SANTA, play.santas))
    return text


def set_words(play: Play) -> str:
    """``3 Christmas Tree and 1 Santa Claus``, as the log says it (my own cards only)."""
    if play.item == SANTA:
        return counted({SANTA: play.santas})
    return counted({play.item: play.naturals, SANTA: play.santas})


def pts(n: int) -> str:
    return count(n, "point")


def offered_sets(counts: Counter[str]) -> list[Play]:
    """The sets worth playing from this hand, by type, the biggest first.

    For each type, a set of 6, 5 and 3 cards (the sizes that score 3, 2 and 1
    Points: a 4 or a 7 scores no more and only costs a card), its own cards
    first and Santa Claus to make up the rest; and Santa Claus alone.
    """
    santas = counts.get(SANTA, 0)
    plays: list[Play] = []
    for item in ITEMS:
        own = counts.get(item, 0)
        if not own:
            continue
        for size in SET_SIZES:
            naturals = min(own, size)
            if size - naturals <= santas:
                plays.append(Play(item, naturals, size - naturals))
    plays += [Play(SANTA, 0, size) for size in SET_SIZES if size <= santas]
    return plays


def last_surprise(log: Sequence[Event], me: int | None) -> range:
    """Where in the log the last Surprise! since my last move is, with its reward (maybe empty).

    What I must not miss when my turn comes: a Surprise! that took my cards.
    """
    start = next((i + 1 for i in range(len(log) - 1, -1, -1) if log[i].seat == me and log[i].kind in MOVES), 0)
    last = next((i for i in range(len(log) - 1, start - 1, -1) if log[i].kind == "surprise"), None)
    if last is None:
        return range(0)
    first, end = last, last + 1
    while first > start and log[first - 1].kind in SURPRISE:
        first -= 1
    while end < len(log) and log[end].kind in SURPRISE:
        end += 1
    return range(first, end)


class ChristmasTreeBoard(Board):
    game = GAME

    BINDINGS = [
        Binding("1", "take(0)", "Take", key_display="1-5", tooltip="Take that row: row 1 is free, lower rows cost 1 card per row skipped", id="ct.take"),
        *[
            Binding(str(n + 1), f"take({n})", f"Take row {n + 1}", show=False, tooltip=f"Take row {n + 1}: pay {n} card{'s' if n > 1 else ''} onto the rows above it", id=f"ct.take{n + 1}")
            for n in range(1, ROWS)
        ],
        Binding("up", "move_set(-1)", "Previous set", show=False, tooltip="Highlight the set above", id="ct.up"),
        Binding("down", "move_set(1)", "Next set", show=False, tooltip="Highlight the set below", id="ct.down"),
        Binding("p", "play", "Play", key_display="↑↓p", tooltip="Play the highlighted set to score Points", id="ct.play"),
        Binding("d", "done", "Done", tooltip="Stop playing sets: end your turn, or finish your final plays", id="ct.done"),
        Binding("left", "move_hand(-1)", "Previous type", show=False, tooltip="Highlight the type before in your hand", id="ct.left"),
        Binding("right", "move_hand(1)", "Next type", show=False, tooltip="Highlight the next type in your hand", id="ct.right"),
        Binding("enter", "choose", "Pay", key_display="←→⏎", tooltip="While paying: pay with the highlighted type; otherwise play the highlighted set", id="ct.enter"),
        *[
            Binding(key, f"pay('{item}')", f"Pay {LOOK[item][3]}", show=False, tooltip=f"Pay one {NAMES[item]} onto the next row you skip", id=f"ct.pay.{item}")
            for item, key in PAY_KEYS.items()
        ],
    ]

    def __init__(self, snapshot: Snapshot, *, id: str | None = None) -> None:
        super().__init__(snapshot, id=id)
        self.offered: list[Play] = []
        self.set_cursor = 0
        self._set_top = 0
        self.hand_cursor = 0

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield paint.Words(id="ct-info")
        yield paint.Words(id="ct-moment")
        with paint.Panel(id="ct-rows"):
            yield LineBox(ROWS, id="ct-row-lines")  # one a row: click to take it
        with Horizontal(id="ct-lower"):
            with paint.Panel(id="ct-hand"):
                yield LineBox(len(TYPES), id="ct-hand-lines")  # one a type: click to pay with it or play a set
                yield paint.Words(SCORING, id="ct-scoring")
            with paint.Panel(id="ct-sets"):
                yield LineBox(SET_LINES, id="ct-set-lines")  # one a set I could play: click to play it

    def on_mount(self) -> None:
        if not self.drawable:
            return
        self.redraw()

    # -------------------------------------------------------------- reading the snapshot
    @property
    def me(self) -> int | None:
        return self.snapshot.seat

    def hand(self) -> Counter[str]:
        me = self.me
        return Counter(self.snapshot.view.faces_in(f"hand.{me}")) if me is not None else Counter()

    def held_types(self) -> list[str]:
        hand = self.hand()
        return [item for item in TYPES if hand[item]]

    @property
    def phase(self) -> str:
        return self.snapshot.view["phase"]

    def paying(self) -> bool:
        return self.snapshot.my_turn and self.phase == "pay"

    def last_player(self) -> int:
        view = self.snapshot.view
        return (view["first"] - 1) % len(view["players"])

    # -------------------------------------------------------------- drawing
    def redraw(self) -> None:
        self.part("ct-lower").display = self.me is not None  # (a hand and its sets: a spectator has none)
        self._draw_info()
        self._draw_moment()
        self._draw_rows()
        self._draw_hand()
        self._draw_sets()

    def _draw_info(self) -> None:
        ink = inks(self)
        view = self.snapshot.view
        text = Text.assemble(
            ("Deck ", "dim"), (str(len(view.zone("deck"))), "bold"),
            ("  Discard ", "dim"), (str(len(view.zone("discard"))), "bold"),
            ("  Target ", "dim"), (pts(view["target"]), f"bold {ink.gold}"),
        )
        more = []  # (each where it has room: the last round first; the type left out is in my hand's list too)
        if view["ending"] and view["phase"] not in ("final", "over"):
            more.append(Text("  ⚑ last round", style=f"bold {ink.berry}"))
        if view["removed"] >= 0:
            more.append(Text(f"  no {LOOK[TYPES[view['removed']]][3]}", style="dim"))
        info = self.part("ct-info", Static)
        for part in more:
            if text.cell_len + part.cell_len <= (info.content_size.width or 48):
                text.append_text(part)
        paint.show(info, text)

    def _draw_moment(self) -> None:
        """The one thing not to miss now, on two lines: final plays, a Surprise!, a payment."""
        ink = inks(self)
        snap = self.snapshot
        view = snap.view
        phase = view["phase"]
        gold = f"bold {ink.dark_ink} on {ink.gold_ground}"
        red = f"bold {ink.on_ground} on {ink.red_ground}"
        news = last_surprise(snap.log, self.me)
        if phase == "over":
            winners = snap.result.winners if snap.result is not None else ()
            line = badge(" Game over ", gold)
            line.append(" " + " and ".join(self.player_name(w) for w in winners) + " won", style=ink.gold)
        elif phase == "final":
            line = badge(" Final plays ", gold)
            who = "your" if snap.my_turn else f"{self.player_name(view['turn'])}'s"
            line.append(f" {who} last sets", style=f"bold {ink.gold}")
            line.append("\nSets score as usual; no Surprise! now.", style=ink.gold)
        elif phase == "pay" and snap.my_turn:
            row, paid = view["taking"], view["paid"]
            line = badge(f" Taking row {row + 1} ", gold)
            line.append(f" card {paid + 1} of {row} goes onto row {paid + 1}", style=f"bold {ink.gold}")
            line.append("\nChoose which: press its key or click it.", style=ink.gold)
        elif news and not (snap.my_turn and phase == "turn" and self._scorer(news) == self.me):
            # (my own Surprise! from my last turn is old news when my turn comes again)
            line = self._surprise_text(news)
        elif view["ending"]:
            line = badge(" Last round ", red)
            line.append(f" ends after {self.player_name(self.last_player())}'s turn", style=f"bold {ink.rose}")
            line.append("\nThen everyone plays their last sets.", style=ink.rose)
        else:
            line = Text(f"First to {pts(view['target'])} ends the game after the round.", style="dim")
        paint.show(self.part("ct-moment", Static), line)

    def _scorer(self, news: range) -> int | None:
        """Who scored the sets that made this Surprise!."""
        return next((e.seat for e in reversed(self.snapshot.log[: news.start]) if e.kind == "score"), None)

    def _surprise_text(self, news: range) -> Text:
        """``Surprise! Ivy scored ★, draws 6`` over ``you −3★ · Holly −2★``."""
        ink = inks(self)
        log = self.snapshot.log
        scorer = self._scorer(news)
        types: list[str] = []
        losses = Text()
        drawn = 0
        for event in log[news.start : news.stop]:
            data = event.data or {}
            if event.kind == "reward":
                drawn += data.get("cards", 0)
                continue
            item = data.get("item")
            if item is None:
                losses.append(event.text.removeprefix("Surprise! "), style=ink.rose)
                continue
            if item not in types:
                types.append(item)
            if data.get("cards") and event.seat is not None:
                if losses:
                    losses.append(" · ", style="dim")
                hit = event.seat == self.me
                who = "you" if hit else self.player_name(event.seat)
                losses.append(f"{who} −{data['cards']}", style=f"bold {ink.berry}" if hit else ink.rose)
                losses.append_text(symbols(ink, item, 1))
        line = badge(" Surprise! ", f"bold {ink.on_ground} on {ink.red_ground}")
        if scorer is not None:
            line.append(f" {'you' if scorer == self.me else self.player_name(scorer)} scored ", style="bold")
            for item in types:
                line.append_text(symbols(ink, item, 1))
            if drawn:
                line.append(f", draw{'s' if scorer != self.me else ''} {drawn}", style="bold")
        line.append("\n")
        line.append_text(losses or Text("Nobody had to discard.", style=ink.rose))
        return line

    def _draw_rows(self) -> None:
        ink = inks(self)
        snap = self.snapshot
        view = snap.view
        held = sum(self.hand().values())
        paying = self.paying()
        taking = snap.my_turn and view["phase"] == "turn"  # (the keys say so only when they take a row)
        paint.title(self.part("ct-rows"), "Rows · 1-5 take" if taking else "Rows")
        lines = self.part("ct-row-lines", LineBox)
        for row, zone in enumerate(ROW_ZONES):
            faces = view.faces_in(zone)
            takeable = bool(faces) and held >= row and view["phase"] == "turn"
            legal = any(isinstance(a, Take) and a.row == row for a in snap.legal)
            text = Text(f"{row + 1} ", style=f"bold {ink.gold}" if legal else "dim")
            text.append_text(row_cards(ink, faces))
            text.pad_right(ROW_WIDTH - text.cell_len)
            text.append(" ")
            if paying and row == view["taking"]:
                text.append("◀ taking", style=f"bold {ink.gold}")
            elif paying and row == view["paid"]:
                text.append("◀ pay here", style=f"bold {ink.gold}")
            elif paying and row < view["paid"]:
                text.append("paid ✓", style=ink.leaf)
            elif not faces:
                text.append("empty", style="dim")
            else:
                cost = "free" if row == 0 else f"pay {row}"
                if view["phase"] != "turn":
                    text.append(cost, style="dim")
                elif takeable:
                    text.append(f"{cost} ✓", style=ink.leaf if legal else ink.faded_leaf)
                else:
                    text.append(f"{cost} ✗", style=ink.berry if snap.my_turn else ink.faded_berry)
            if not faces:
                tip = f"Row {row + 1} is empty"
            elif row == 0:
                tip = "Take row 1: it is free"
            else:
                tip = f"Take row {row + 1}: pay {row} card{'s' if row > 1 else ''} (you hold {held})"
            look = "pick" if paying and row == view["taking"] else "mark" if paying and row == view["paid"] else ""
            lines.set_line(row, text, look=look, tip=tip, click=("action_take", (row,)), hover=legal)

    def _draw_hand(self) -> None:
        ink = inks(self)
        view = self.snapshot.view
        hand = self.hand()
        held = self.held_types()
        removed = TYPES[view["removed"]] if view["removed"] >= 0 else None
        self.hand_cursor = min(self.hand_cursor, max(0, len(held) - 1))
        paying = self.paying()
        highlighted = held[self.hand_cursor] if paying and held else None
        lines = self.part("ct-hand-lines", LineBox)
        for y, item in enumerate(TYPES):
            symbol, colour, _, short = LOOK[item]
            n = hand[item]
            key_style = f"bold {ink.gold}" if paying and n else "dim"
            text = Text.assemble(("▸" if item == highlighted else " ", f"bold {ink.gold}"), (PAY_KEYS[item], key_style), " ")
            if item == removed:
                text.append(f"{symbol} {short}", style="dim strike")
                text.append(" out", style="dim")
            else:
                text.append_text(chip(ink, item) if n else Text(f" {symbol} ", style="dim"))
                label = f" {short}{' wild' if item == SANTA else ''}"
                text.append(f"{label:<12}", style=ink[colour] if n else "dim")
                text.append(f"{n:>2}", style="bold" if n else "dim")
            tip = (
                f"Pay one {NAMES[item]} onto row {view['paid'] + 1}" if paying else f"Play a set of {PLURALS[item]}"
            ) if n else f"You hold no {PLURALS[item]}"
            lines.set_line(y, text, look="pick" if item == highlighted else "", tip=tip, click=("use_item", (item,)))
        total = sum(hand.values())
        box = self.part("ct-hand")
        paint.title(box, f"Pay from hand · {total}" if paying else f"Your hand · {total}")
        paint.wear_edge(box, ink.css("gold") if paying else None)

    def _draw_sets(self) -> None:
        ink = inks(self)
        snap = self.snapshot
        was = self.offered[self.set_cursor] if self.offered and self.set_cursor < len(self.offered) else None
        self.offered = offered_sets(self.hand())
        if was in self.offered:
            self.set_cursor = self.offered.index(was)
        self.set_cursor = min(self.set_cursor, max(0, len(self.offered) - 1))
        live = snap.my_turn and self.phase in ("turn", "play", "final") and bool(self.offered)
        top = self._set_top
        if self.set_cursor < top:
            top = self.set_cursor
        elif self.set_cursor >= top + SET_LINES:
            top = self.set_cursor - SET_LINES + 1
        self._set_top = top = max(0, min(top, len(self.offered) - SET_LINES))
        lines = self.part("ct-set-lines", LineBox)
        for slot in range(SET_LINES):
            index = top + slot
            selected = live and index == self.set_cursor
            if index >= len(self.offered):
                none = no_set(ink) if not self.offered else ()
                lines.set_line(slot, none[slot] if slot < len(none) else "")
                continue
            play = self.offered[index]
            size = play.naturals + play.santas
            text = Text("▸ " if selected else "  ", style=f"bold {ink.gold}")
            shown = set_text(ink, play)
            text.append_text(shown)
            text.append(" " * (max(SET_SIZES) + 1 - shown.cell_len))
            text.append(f"+{set_points(size)} ", style=f"bold {ink.leaf}")
            text.append(SET_NAMES.get(play.item, LOOK[play.item][3]), style=ink[LOOK[play.item][1]])
            tip = f"Play {set_words(play)}: {pts(set_points(size))}"
            lines.set_line(slot, text, look="pick" if selected else "", tip=tip, click=("play_slot", (slot,)))
        box = self.part("ct-sets")
        paint.wear_edge(box, ink.css("gold") if live else None)
        paint.title(box, "Sets · p play" if live else "Sets")
        below = len(self.offered) - top - SET_LINES
        paint.subtitle(box, f"↓ {below} more" if below > 0 else ("↑ more" if top else ""))

    # -------------------------------------------------------------- the table screen's lines
    def status_line(self) -> str:
        view = self.snapshot.view
        phase = view["phase"]
        players = view["players"]
        if phase == "over":
            return f"{GAME.title} · game over"
        whose = "your" if view["turn"] == self.me else f"{players[view['turn']]}'s"
        if phase == "final":
            return f"{GAME.title} · Final plays · {whose} last sets"
        round_ = view["turns"] // len(players) + 1
        ending = " · Last round!" if view["ending"] else ""
        doing = {"pay": " (paying for a row)", "play": " (playing sets)"}.get(phase, "")
        return f"{GAME.title} · Round {round_}{ending} · {whose} turn{doing}"

    def prompt_line(self) -> str:
        snap = self.snapshot
        view = snap.view
        phase = view["phase"]
        if snap.result is not None:
            return "The game is over."
        if not snap.my_turn:
            who = self.player_name(view["turn"])
            if phase == "final":
                return f"Final plays: {who} plays their last sets (no Surprise!)."
            if phase == "pay":
                return f"{who} is paying for row {view['taking'] + 1}."
            return f"{who} is playing: taking a row or playing sets."
        choose = "↑/↓ to choose a set, p or Enter to play it"
        if phase == "pay":
            row, paid = view["taking"], view["paid"]
            keys = " ".join(PAY_KEYS[t] for t in self.held_types())
            return (
                f"Taking row {row + 1}: pay 1 card onto row {paid + 1} ({paid} of {row} paid).\n"
                f"Press a type's key ({keys}), ←/→ then Enter, or click it in your hand."
            )
        if phase == "play":
            return f"Play another set: {choose}.\nEach set makes a Surprise! at once. Press d when you are done."
        if phase == "final":
            return f"Final plays (no Surprise!): {choose}.\nPress d when you are done."
        if self.offered and any(isinstance(a, Play) for a in snap.legal):
            return "Take a row: press 1-5 or click it (row 1 is free, lower rows cost cards).\nOr play a set: ↑/↓ to choose one, p or Enter to play it, or click it."
        return "Take a row: press 1-5 or click it.\nRow 1 is free; each row below it costs 1 card for each row skipped."

    def player_lines(self) -> list[PlayerLine]:
        view = self.snapshot.view
        ending = bool(view["ending"]) and view["phase"] not in ("final", "over")
        last = self.last_player()
        lines = []
        for seat, name in enumerate(view["players"]):
            held = len(view.zone(f"hand.{seat}"))
            points = len(view.zone(f"points.{seat}"))
            summary = f"{held} card{'s' if held != 1 else ''} in hand"
            lines.append(
                PlayerLine(seat, name, pts(points), summary, seat in self.snapshot.to_act, "⚑" if ending and seat == last else "")
            )
        return lines

    # -------------------------------------------------------------- input
    def offers(self, action: str) -> bool:
        phase = self.phase
        if action == "take":
            return phase == "turn"
        if action == "play":
            return phase in ("turn", "play", "final") and bool(self.offered)
        if action == "done":
            return phase in ("play", "final")
        return phase == "pay"  # (Enter, and ←/→ through my hand: pay with a type)

    # A key always sends an action: if it is not legal, the rules say why.
    def action_take(self, row: int) -> None:
        self.choose(Take(row))

    def action_pay(self, item: str) -> None:
        self.choose(Pay(item))

    def action_play(self) -> None:
        if self.offered:
            self.choose(self.offered[self.set_cursor])
        else:
            self.choose(self._nearest_set())

    def action_done(self) -> None:
        self.choose(Done())

    def action_choose(self) -> None:
        if self.phase == "pay":
            held = self.held_types()
            self.choose(Pay(held[self.hand_cursor]) if held else None)
        else:
            self.action_play()

    def action_move_set(self, step: int) -> None:
        if self.offered:
            self.set_cursor = (self.set_cursor + step) % len(self.offered)
            self._draw_sets()

    def action_move_hand(self, step: int) -> None:
        held = self.held_types()
        if held:
            self.hand_cursor = (self.hand_cursor + step) % len(held)
            self._draw_hand()

    def use_item(self, item: str) -> None:
        """A click on a type in my hand: pay with it, or play its biggest set."""
        held = self.held_types()
        if item in held:
            self.hand_cursor = held.index(item)
        if self.phase == "pay":
            self.choose(Pay(item))
            return
        mine = [p for p in self.offered if p.item == item]
        if mine:
            self.set_cursor = self.offered.index(mine[0])
            self.choose(mine[0])
        else:
            self.choose(self._nearest_set(item))

    def play_slot(self, slot: int) -> None:
        index = self._set_top + slot
        if index < len(self.offered):
            self.set_cursor = index
            self.choose(self.offered[index])

    def _nearest_set(self, item: str | None = None) -> Play:
        """My cards of ``item`` (else of the type I hold most of) as a set, for the rules to say why it is none."""
        hand = self.hand()
        if item is None:
            item = max(ITEMS, key=lambda t: hand[t])
            if not hand[item]:
                item = SANTA
        return Play(item, 0 if item == SANTA else hand[item], hand[SANTA])
