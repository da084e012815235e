"""The Christmas Game board: the ring of 40 squares with the tokens, the infield, my gifts, the last card.

Draws only what the snapshot shows (every token, purse and receipt is public;
the decks are face down and only the card drawn last is face up). The ring
runs clockwise as on the printed board: START in the bottom-right corner,
TRAFFIC JAM bottom-left, CHRISTMAS CLUB top-left, SUPER SHOPPER top-right.
Under it, the bar of what I may do now: each choice has a number key (and
roll, buy and no thanks have letters too), and every key sends an action, so
an illegal one is refused by the rules with the rule it breaks.

Must not touch: the engine state.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Click, MouseMove
from textual.widgets import Static

from xmas_tui.games import Action
from xmas_tui.games.christmas_game import (
    BOARD,
    CARD_ZONE,
    DECK_NAMES,
    GAME,
    GIFTS,
    Buy,
    Card,
    Decline,
    Pick,
    Return,
    Roll,
    Square,
    card_of,
    effect_text,
    lucky_text,
    upper_first,
)
from xmas_tui.tables.table import Snapshot

from .. import paint
from ..theme import Inks, inks
from .base import Board, PlayerLine

CELL = 4
SIDE = 9  # squares down each side, between the corners
ACROSS = SIDE + 2  # squares along the top and the bottom, corners included
WIDTH = ACROSS * CELL
INNER = WIDTH - 4 * CELL  # the infield, between the side squares and their tokens
RING_LINES = SIDE + 4  # the top row and its tokens, the sides, the bottom row's tokens and the row
#: Slots in the bar of choices.
SLOTS = 7
#: Each seat's token colour.
TOKEN_COLOURS = ("berry", "blue", "green", "gold", "violet", "ember")
#: How each kind of square is drawn: its label and style. A square on the top or bottom row
#: is drawn in three columns and a blank one, so neighbours never run together ("$100WRAP"):
#: its label has at most three letters; the infield's key names the abbreviated ones. POST and
#: TAX sit on the sides, where a label has four columns to itself.
LOOK: dict[str, tuple[str, str]] = {
    "start": ("GO", "bold $light-ink on $green-ground"),
    "santa": ("★", "bold $gold-ground on $red-ground"),
    "scrooge": ("¤", "bold $light-ink on $grey-ground"),
    "reindeer": ("Ψ", "bold $sand-ground on $brown-ground"),
    "club": ("CLB", "bold $gold-ground on $club-ground"),
    "tax": ("TAX", "bold $on-ground on $status-ground"),
    "super": ("SUP", "bold $dark-ink on $gold-ground"),
    "jam": ("JAM", "bold $dark-ink on $orange-ground"),
    "post": ("POST", "bold $light-ink on $blue-ground"),
    "wrap": ("WRP", "bold $light-ink on $violet-ground"),
}
#: The infield's key to the squares: symbols first, then the abbreviations.
SQUARE_KEY = (
    (("★", "gold"), " Santa ", ("¤", "grey"), " Scrooge ", ("Ψ", "sand"), " Reindeer"),
    (("CLB", "leaf"), " Club ", ("WRP", "violet"), " Wrap ", ("SUP", "gold"), " Super"),
)
GIFT_COLOURS: dict[int, str] = {
    1: "gift-1", 5: "gift-5", 25: "gift-25", 50: "gift-50", 100: "gift-100", 200: "gift-200",
}
#: Gift squares are drawn on alternating grounds, so neighbours stand apart.
GIFT_GROUNDS = ("gift-ground", "gift-ground-2")
GIFT_GROUND = GIFT_GROUNDS[0]
DECK_MARKS = {"santa": "★", "scrooge": "¤", "reindeer": "Ψ"}
CARD_STYLES = {"santa": "bold $gold-ground on $red-ground", "scrooge": "bold $light-ink on $grey-ground", "reindeer": "bold $dark-ink on $sand-ground"}
#: Which phase a roll is for, in words.
ROLL_FOR = {"roll": "to move", "jam": "to leave TRAFFIC JAM", "reindeer": "for luck", "super": "for a 2 or 12"}


def square_label(square: Square, ink: Inks, number: int = 0, *, in_row: bool = True) -> Text:
    """A square's cell: on the top or bottom row its label in three columns and a blank one
    (a gift square shows its price; the ring's title says so), on a side all four."""
    if square.kind == "gift":
        label, style = str(square.value), f"bold {ink[GIFT_COLOURS[square.value]]} on {ink[GIFT_GROUNDS[number % 2]]}"
    else:
        label, template = LOOK[square.kind]
        style = ink.style(template)
    if not in_row:
        return Text(label.center(CELL), style=style)
    text = Text(label.center(CELL - 1), style=style)
    text.append(" ")
    return text


def ring_position(square: int) -> tuple[int, int]:
    """Where a square sits on the ring: (line, column of its cell).

    Lines 0-1 are the top (labels, then tokens), 2-10 the sides, 11-12 the
    bottom (tokens, then labels). START (0) is bottom-right; play runs
    clockwise: along the bottom to the left, up the left side, along the top
    to the right, and down the right side.
    """
    if square <= SIDE + 1:  # bottom row, right to left
        return 12, (ACROSS - 1 - square) * CELL
    if square <= 2 * SIDE + 1:  # left side, bottom to top
        return 2 + (2 * SIDE + 1 - square), 0
    if square <= 3 * SIDE + 3:  # top row, left to right
        return 0, (square - (2 * SIDE + 2)) * CELL
    return 2 + (square - (3 * SIDE + 4)), WIDTH - CELL  # right side, top to bottom


def token_spot(square: int) -> tuple[int, int]:
    """Where a square's tokens are drawn: beside its label, on the infield side."""
    line, col = ring_position(square)
    if line == 0:
        return 1, col
    if line == 12:
        return 11, col
    return line, col + CELL if col == 0 else col - CELL


def token_names(players: Sequence[str]) -> list[str]:
    """One letter per player: initials when they differ, else seat numbers."""
    initials = [p[:1].upper() or "?" for p in players]
    if len(set(initials)) == len(initials):
        return initials
    return [str(s + 1) for s in range(len(players))]


def gift_chips(gifts: Sequence[int], ink: Inks) -> Text:
    """The six gifts: owned ones ticked, bright on a ground; missing ones dim."""
    text = Text()
    for value in GIFTS:
        if value in gifts:
            text.append(f"✓${value} ", style=f"bold {ink[GIFT_COLOURS[value]]} on {ink[GIFT_GROUND]}")
        else:
            text.append(f" ${value} ", style=ink.felt_ink_dim)
        text.append(" ")
    text.rstrip()
    return text


def short_effect(effect: tuple) -> str:
    """A Reindeer outcome in a few words, for one line of the board."""
    what, n = effect
    return {
        "collect": f"collect ${n}",
        "pay": f"pay ${n} to the CLUB",
        "pay-bank": f"pay ${n} to the BANK",
        "collect-each": f"${n} from each player",
        "pay-each": f"pay each player ${n}",
        "receipt": f"a ${n} gift receipt",
    }.get(what, effect_text(effect))


def dice_faces(dice: Sequence[int]) -> str:
    return " ".join("⚀⚁⚂⚃⚄⚅"[d - 1] for d in dice)


class ChoiceBar(paint.Words):
    """The choices under the board, on one line (one widget: a new set of choices repaints a
    line, and moves nothing). Click a choice to choose it."""

    def __init__(self) -> None:
        super().__init__(id="cg-bar")
        #: where each choice is drawn: (first column, column after it, tooltip), by index
        self.spots: list[tuple[int, int, str]] = []

    def show(self, choices: Sequence[tuple[str, str, str]], cursor: int, waiting: str, ink: Inks) -> None:
        """``choices`` as (key, label, tooltip); the one at ``cursor`` highlighted. With none,
        ``waiting`` says who we wait for. Choices too many for the line as buttons are drawn
        closer together, then with their labels cut short (each still says its key)."""
        width = self.content_size.width or 48
        line, spots = self._line(choices, cursor, ink, 1)
        if line.cell_len > width:
            line, spots = self._line(choices, cursor, ink, 0)
        if line.cell_len > width and choices:
            room = max(1, (width + 1) // len(choices) - 4)  # (a key, a blank, the label, a gap; ▸ before one)
            cut = [(key, label if len(label) <= room else label[: max(1, room - 1)] + "…", tip) for key, label, tip in choices]
            line, spots = self._line(cut, cursor, ink, 0)
        self.spots = spots
        if not choices:
            line.append(f" {waiting} ", style=f"dim on {ink.felt_down}")
        paint.show(self, line)

    @staticmethod
    def _line(choices: Sequence[tuple[str, str, str]], cursor: int, ink: Inks, pad: int) -> tuple[Text, list[tuple[int, int, str]]]:
        """The choices on one line, as buttons ``pad`` blanks wide at each end (the highlighted
        one marked ▸ as well as lit, so it is seen without its colours), and where each is."""
        line = Text()
        spots = []
        ground = f"on {ink.felt_hover}"
        edge = " " * pad
        for index, (key, label, tip) in enumerate(choices):
            start = line.cell_len
            if index == cursor:
                chosen = f"bold {ink.dark_ink} on {ink.gold_ground}"
                line.append_text(Text.assemble("▸" + edge[1:], (key, f"{chosen} underline"), f" {label}{edge}", style=chosen))
            else:
                line.append_text(Text.assemble(edge, (key, f"bold {ink.gold}"), (f" {label}", "bold"), edge, style=ground))
            spots.append((start, line.cell_len, tip))
            line.append(" ")
        line.rstrip()
        return line, spots

    def _spot_at(self, x: int) -> int | None:
        return next((index for index, (start, end, _) in enumerate(self.spots) if start <= x < end), None)

    def on_click(self, event: Click) -> None:
        index = self._spot_at(event.x)
        if index is not None:
            self.screen.query_one(ChristmasGameBoard).action_slot(index)

    def on_mouse_move(self, event: MouseMove) -> None:
        index = self._spot_at(event.x)
        paint.tip(self, self.spots[index][2] if index is not None else None)


class ChristmasGameBoard(Board):
    game = GAME

    BINDINGS = [
        Binding("r", "roll", "Roll", key_display="r", tooltip="Roll the dice", id="cg.roll"),
        Binding("b", "buy", "Buy", tooltip="Buy the gift on offer", id="cg.buy"),
        Binding("n", "decline", "No", tooltip="Do not buy the gift on offer", id="cg.decline"),
        Binding("1", "slot(0)", "Choose", key_display="1-7", tooltip="Choose that option in the bar under the board", id="cg.slot1"),
        *[
            Binding(str(n + 1), f"slot({n})", f"Option {n + 1}", show=False, tooltip=f"Choose option {n + 1} in the bar", id=f"cg.slot{n + 1}")
            for n in range(1, SLOTS)
        ],
        Binding("left", "move(-1)", "Previous option", show=False, tooltip="Highlight the option before", id="cg.left"),
        Binding("right", "move(1)", "Next option", show=False, tooltip="Highlight the next option", id="cg.right"),
        Binding("enter", "choose_highlighted", "Choose", show=False, tooltip="Choose the highlighted option (Roll, when rolling)", id="cg.enter"),
    ]

    def __init__(self, snapshot: Snapshot, *, id: str | None = None) -> None:
        super().__init__(snapshot, id=id)
        self.options: list[Action] = []
        self.cursor = 0

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        with paint.Panel(id="cg-ring"):
            for number in range(RING_LINES):
                yield paint.Words(id=f"cg-ring-{number}", classes="cg-ring-line")
        yield paint.Words(id="cg-mine")
        yield paint.Words(id="cg-card")
        yield ChoiceBar()

    def on_mount(self) -> None:
        if not self.drawable:
            return
        self.part("cg-ring").border_title = "Clockwise from GO · gift prices in $"
        self.redraw()

    # -------------------------------------------------------------- reading the snapshot
    @property
    def me(self) -> int | None:
        return self.snapshot.seat

    @property
    def phase(self) -> str:
        return self.snapshot.view["phase"]

    def shown_seat(self) -> int:
        """Whose purse and gifts the board shows: mine, or (for a spectator) whoever is playing."""
        return self.me if self.me is not None else self.snapshot.view["turn"]

    def last_card(self) -> Card | None:
        faces = self.snapshot.view.faces_in(CARD_ZONE)
        return card_of(faces[-1], self.snapshot.view["personal"]) if faces else None

    # -------------------------------------------------------------- drawing
    def redraw(self) -> None:
        self._draw_ring()
        self._draw_mine()
        self._draw_card()
        self._draw_bar()

    def _draw_ring(self) -> None:
        ink = inks(self)
        view = self.snapshot.view
        players = view["players"]
        tokens = token_names(players)
        turn = view["turn"]
        lines = [[Text(" " * CELL) for _ in range(ACROSS)] for _ in range(13)]

        def put(line: int, col: int, text: Text) -> None:
            lines[line][col // CELL] = text

        here = view["position"][turn]
        for square, sq in enumerate(BOARD):
            in_row = ring_position(square)[0] in (0, 12)
            label = square_label(sq, ink, square, in_row=in_row)
            if square == here and view["phase"] != "over":
                label.stylize("reverse", 0, CELL - 1 if in_row else CELL)  # (not the blank after it)
            put(*ring_position(square), label)
        on_square: dict[int, list[int]] = {}
        for seat, square in enumerate(view["position"]):
            on_square.setdefault(square, []).append(seat)
        for square, seats in on_square.items():
            seats.sort(key=lambda s: s != turn)  # the player moving first
            line, col = token_spot(square)
            side = line not in (1, 11)
            room = CELL - 1 if side else CELL  # beside a side square, a space apart from it
            shown = seats if len(seats) <= room else seats[: room - 1]
            text = Text()
            for seat in shown:
                style = f"bold {ink[TOKEN_COLOURS[seat % len(TOKEN_COLOURS)]]}"
                text.append(tokens[seat], style=style + (" reverse" if seat == turn else ""))
            if len(shown) < len(seats):
                text.append("+", style="bold")
            if col == WIDTH - 2 * CELL:  # right side: tokens end a space before the label
                text = Text(" " * (room - text.cell_len)) + text + " "
            else:
                text = (Text(" ") if side else Text()) + text
                text.pad_right(CELL - text.cell_len)
            put(line, col, text)
        infield = self._infield()
        for number, cells in enumerate(lines):  # a line at a time: a move repaints the lines it changed
            if 2 <= number <= 10:
                cells = [cells[0], cells[1], infield[number - 2], cells[-2], cells[-1]]
            paint.show(self.part(f"cg-ring-{number}", Static), Text("").join(cells))

    def _infield(self) -> list[Text]:
        """The nine lines inside the ring: title, CHRISTMAS CLUB, the dice, a key to the squares."""
        ink = inks(self)
        view = self.snapshot.view
        players = view["players"]
        dice = view["dice"]
        rows: list[Text] = [Text() for _ in range(SIDE)]
        rows[0] = Text("❄ The Christmas Game ❄", style=f"bold {ink.gold}")
        rows[1] = Text.assemble(("Round ", "dim"), (f"{view['round']}", "bold"))
        rows[3] = Text.assemble(("CHRISTMAS CLUB ", ink.leaf), (f"${view['club']}", f"bold {ink.gold}"))
        if dice:
            who = players[view["roller"]]
            double = dice[0] == dice[1] and view["rolled_for"] in ("roll", "jam")
            rows[5] = Text.assemble(
                (dice_faces(dice), f"bold {ink.cream}"), ("  ", ""), (f"{sum(dice)}", f"bold {ink.gold}"),
                (" · doubles!" if double else "", f"bold {ink.gold}"),
            )  # on the dice row: the line below is full with a long name and purpose
            rows[6] = Text(f"{who} rolled {ROLL_FOR.get(view['rolled_for'], '')}", style="dim")
        else:
            rows[5] = Text("⚀ ⚀  roll to start", style="dim")
        for row, key in zip((7, 8), SQUARE_KEY, strict=True):
            rows[row] = Text.assemble(*(
                (part[0], f"bold {ink[part[1]]}") if isinstance(part, tuple) else (part, "dim") for part in key
            ))
        for row in rows:
            row.truncate(INNER)
            pad = INNER - row.cell_len
            row.pad_left(pad // 2)
            row.pad_right(pad - pad // 2)
        return rows

    def _draw_mine(self) -> None:
        ink = inks(self)
        view = self.snapshot.view
        seat = self.shown_seat()
        gifts = list(view["gifts"][seat])
        who = "You" if seat == self.me else view["players"][seat]
        text = Text.assemble((f"{who} ", "bold"), (f"${view['money'][seat]}", f"bold {ink.gold}"), "  ")
        text.append_text(gift_chips(gifts, ink))
        paint.show(self.part("cg-mine", Static), text)

    def _draw_card(self) -> None:
        ink = inks(self)
        card = self.last_card()
        box = self.part("cg-card", Static)
        if card is None:
            paint.show(box, Text("Draw a card on ★ Santa, ¤ Scrooge or Ψ Reindeer.\nBuy each gift on its own square: $1 $5 $25 $50 $100 $200.", style="dim"))
            return
        style = ink.style(CARD_STYLES[card.deck])
        text = Text.assemble((f" {DECK_MARKS[card.deck]} {DECK_NAMES[card.deck]} · {card.title} ", style), " ")
        if card.deck != "reindeer" and card.personal:  # the party's words, then what the card does
            text.append(card.text, style=ink.cream)
            text.truncate(2 * (self.content_size.width or 48) - 1, overflow="ellipsis")
            text.append(f"\n→ {upper_first(short_effect(card.effect))}", style=f"bold {ink.gold}")
        elif card.deck != "reindeer":
            text.append(card.text, style=ink.cream)
        else:
            text.append(card.text, style=ink.cream)
            text.truncate(self.content_size.width or 48, overflow="ellipsis")
            lucky = lucky_text(card.lucky_on)
            text.append(f"\n☺ {lucky[:1].upper() + lucky[1:]}, lucky: ", style=f"bold {ink.leaf}")
            text.append(short_effect(card.lucky), style=ink.leaf)
            text.append("\n☹ Otherwise, unlucky: ", style=f"bold {ink.rose}")
            text.append(short_effect(card.unlucky), style=ink.rose)
        paint.show(box, text)

    def _draw_bar(self) -> None:
        ink = inks(self)
        snap = self.snapshot
        self.options = list(snap.legal)
        self.cursor = min(self.cursor, max(0, len(self.options) - 1))
        choices = [self.describe(index, action) for index, action in enumerate(self.options[:SLOTS])]
        bar = self.part("cg-bar", ChoiceBar)
        bar.display = snap.seat is not None  # (a spectator has no choices: the prompt says whom we wait for)
        bar.show(choices, self.cursor, self._waiting(), ink)

    def describe(self, index: int, action: Action) -> tuple[str, str, str]:
        """A choice as (key, label, tooltip)."""
        view = self.snapshot.view
        number = str(index + 1)
        if isinstance(action, Roll):
            return "r", f"Roll {ROLL_FOR[self.phase]}", "Roll the two dice"
        if isinstance(action, Buy):
            if len(view["offer"]) == 1:
                return "b", f"Buy the ${action.value} gift", f"Pay ${action.value} to the BANK for a ${action.value} gift receipt"
            return number, f"${action.value}", f"Buy a ${action.value} gift now"
        if isinstance(action, Decline):
            return "n", "No thanks", "Keep your money"
        if isinstance(action, Return):
            return number, f"${action.value}", f"Return a ${action.value} gift receipt to the BANK"
        if isinstance(action, Pick):
            return number, view["players"][action.seat], f"You and {view['players'][action.seat]} each collect ${view['gift_money']}"
        return number, action.text(), action.text()

    def _waiting(self) -> str:
        view = self.snapshot.view
        if view["phase"] == "over":
            return "The game is over."
        return f"Waiting for {view['players'][view['turn']]}…"

    # -------------------------------------------------------------- the table screen's lines
    def status_line(self) -> str:
        view = self.snapshot.view
        if view["phase"] == "over":
            return f"{GAME.title} · game over"
        whose = "your" if view["turn"] == self.me else f"{view['players'][view['turn']]}'s"
        doing = {
            "jam": " (in TRAFFIC JAM)", "shop": " (shopping)", "reindeer": " (Reindeer roll)",
            "super": " (SUPER SHOPPER!)", "return": " (returning a gift)", "pick": " (Secret Santa)",
        }.get(view["phase"], "")
        return f"{GAME.title} · Round {view['round']} · {whose} turn{doing}"

    def prompt_line(self) -> str:
        snap = self.snapshot
        view = snap.view
        phase = view["phase"]
        if snap.result is not None:
            return "The game is over."
        players = view["players"]
        turn = view["turn"]
        where = BOARD[view["position"][turn]].name
        if not snap.my_turn:
            who = players[turn]
            doing = {
                "roll": "rolling the dice", "jam": "trying to leave TRAFFIC JAM", "shop": "deciding whether to buy",
                "reindeer": "rolling for a Reindeer card", "super": "rolling on SUPER SHOPPER",
                "return": "choosing a gift to return", "pick": "choosing a Secret Santa",
            }[phase]
            return f"{who} is {doing} ({where})."
        me = turn
        money = view["money"][me]
        if phase == "roll":
            again = "Doubles: roll again" if view["doubles"] else "Your turn"
            return f"{again}: press r or Enter to roll the dice.\nYou are on {where} with ${money}."
        if phase == "jam":
            tries = view["jammed"][me]
            bike = " (on a bicycle, your second roll gets you out)" if me in view["young"] and tries >= 1 else ""
            return f"You are in TRAFFIC JAM: press r to roll{bike}.\nA seven or doubles gets you out."
        if phase == "shop":
            offer = view["offer"]
            if len(offer) == 1:
                return f"Buy the ${offer[0]} gift for ${offer[0]}? You have ${money}.\nPress b to buy it, n for no thanks."
            return f"Early bird sale: press 1-{len(offer)} to buy a gift you need (you have ${money}),\nor n for no thanks."
        if phase == "return":
            count = len(snap.legal)
            return f"Scrooge: return one gift receipt to the BANK, no refund.\nPress 1-{count} to choose it." if count > 1 else "Scrooge: return your gift receipt to the BANK.\nPress 1."
        if phase == "pick":
            count = len(snap.legal)
            return f"Secret Santa: choose another player; you each collect ${view['gift_money']}.\nPress 1-{count}." if count > 1 else f"Secret Santa: you and {players[snap.legal[0].seat]} each collect ${view['gift_money']}. Press 1."
        if phase == "reindeer":
            card = self.last_card()
            lucky = lucky_text(card.lucky_on) if card is not None else ""
            return f"Roll for {card.title if card else 'your Reindeer card'}: press r.\n{lucky[:1].upper() + lucky[1:]} is lucky."
        return "SUPER SHOPPER: press r and roll a 2 or 12 to win the game at once!\nDoubles here give no extra roll."

    def player_lines(self) -> list[PlayerLine]:
        view = self.snapshot.view
        lines = []
        for seat, name in enumerate(view["players"]):
            gifts = list(view["gifts"][seat])
            owned = len(set(gifts))
            summary = f"${view['money'][seat]} · " + (" ".join(f"${v}" for v in GIFTS if v in gifts) or "no gifts yet")
            marker = "in JAM" if view["jammed"][seat] >= 0 else ""
            lines.append(PlayerLine(seat, name, f"{owned}/6 gifts", summary, seat in self.snapshot.to_act, marker))
        return lines

    # -------------------------------------------------------------- input
    def offers(self, action: str) -> bool:
        legal = self.snapshot.legal
        if action == "roll":
            return any(isinstance(a, Roll) for a in legal)
        if action == "buy":
            return len(self.snapshot.view["offer"]) == 1 and any(isinstance(a, Buy) for a in legal)
        if action == "decline":
            return any(isinstance(a, Decline) for a in legal)
        return any(self.describe(index, a)[0].isdigit() for index, a in enumerate(legal[:SLOTS]))  # (1-7: a choice by number)

    # A key always sends an action: if it is not legal now, the rules say why.
    def action_roll(self) -> None:
        self.choose(Roll())

    def action_buy(self) -> None:
        view = self.snapshot.view
        offer = view["offer"]
        highlighted = self.options[self.cursor] if self.options else None
        if isinstance(highlighted, Buy):
            self.choose(highlighted)
            return
        square = BOARD[view["position"][view["turn"]]]
        value = offer[0] if offer else (square.value if square.kind == "gift" else GIFTS[0])
        self.choose(Buy(value))

    def action_decline(self) -> None:
        self.choose(Decline())

    def action_slot(self, index: int) -> None:
        if index < len(self.options):
            self.cursor = index
            self.choose(self.options[index])
        else:
            self.choose(None)

    def action_move(self, step: int) -> None:
        if self.options:
            self.cursor = (self.cursor + step) % len(self.options)
            self._draw_bar()

    def action_choose_highlighted(self) -> None:
        if self.options:
            self.choose(self.options[self.cursor])
        else:
            self.choose(Roll())
