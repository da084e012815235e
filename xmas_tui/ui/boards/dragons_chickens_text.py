"""Dragons & Chickens in words: the text and the card looks the board and its dialogs draw.

Owns: how the race reads on screen, as pure functions of what the snapshot
shows: a treasure's symbol and colour, a revealed card (``card_body``, and its
box in the room, ``room_box``), a press and a shout heard (``press_text``,
``shout_text``), a player's key legend (``legend_text``), the last round
(``headline``, ``round_rows``, ``why_lines``, where each card went: ``fates``),
what a burned player may give the dragon (``offer_text``) and a loot looked
through (``loot_text``).

Must not touch: the engine state, the table, or any widget: every function here
is given the inks and the records and returns ``Text`` (or a ``Box``'s look);
the widgets show it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from rich.text import Text

from xmas_tui.games import count
from xmas_tui.games.dragons_chickens import (
    CHEST,
    NAME,
    SHIELD,
    SLAP,
    TREASURE_NAMES,
    Choice,
    RoundRecord,
    all_faces,
    card,
    counts_of,
    dragon_offers,
    face_name,
)
from xmas_tui.tables.table import HeardPress

from ..theme import Inks
from .base import Box
from .dragons_chickens_keys import BLOCKS

#: One single-width symbol and one colour per treasure, in ``TREASURES`` order.
SYMBOLS = ("○", "●", "♛", "$", "◆", "Ψ")
COLOURS = ("ember", "white", "violet", "gold", "sky", "green")
DRAGON_RED = "dragon"
CHICKEN = "pink"
DARK = "lilac"
TORCH = "¡"
NAME_WIDTH = 7


def treasure_text(ink: Inks, t: int, *, name: bool = True) -> Text:
    text = Text(SYMBOLS[t], style=f"bold {ink[COLOURS[t]]}")
    if name:
        text.append(f" {TREASURE_NAMES[t]}", style=ink[COLOURS[t]])
    return text


def card_body(ink: Inks, face: str | None) -> Text:
    """The inside of a revealed card: two treasures, then its chicken or dragon."""
    if face is None:
        return Text("\n empty\n", style="dim")
    c = card(face)
    text = Text.assemble(treasure_text(ink, c.treasures[0]), "\n", treasure_text(ink, c.treasures[1]), "\n")
    if c.dragon:
        text.append("DRAGON" + "▲" * c.dragon, style=f"bold {ink[DRAGON_RED]}")
    elif c.chicken:
        text.append("chicken", style=f"bold {ink[CHICKEN]}")
    return text


def short(name: str, width: int = NAME_WIDTH) -> str:
    """A name in ``width`` cells, keeping its last letter: "Player 2" -> "Play…2"."""
    return name if len(name) <= width else name[: width - 2] + "…" + name[-1]


_VERDICTS = {
    "won": ("takes the room", "bold $leaf"),
    "lost-tie": ("lost the draw", "$gold"),
    "late": ("too late", "dim"),
    "wrong": ("wrong: out", "bold $ember"),
    "out": ("ignored: out", "dim"),
    "tied-kind": ("a tie: chest!", "$gold"),
    "empty": ("nothing counts", "dim"),
    "dragon": ("dragon out", "$dragon"),
    "stole": ("steals it", "bold $leaf"),
    "beaten": ("beaten to it", "dim"),
    "missed": ("no dark room", "dim"),
    "safe": ("safe", "$leaf"),
    "top": ("last: burned", "bold $dragon"),
    "no-dragon": ("no dragon", "dim"),
}


def press_text(ink: Inks, kind: int, target: int, names: Sequence[str]) -> Text:
    if kind == NAME:
        return treasure_text(ink, target)
    if kind == CHEST:
        return Text("chest", style=f"bold {ink.gold}")
    if kind == SHIELD:
        return Text("shield", style=f"bold {ink.ice}")
    return Text(f"slap {short(names[target], 8)}", style=f"bold {ink[DARK]}")


def shout_text(ink: Inks, heard: HeardPress, names: Sequence[str], mine: Iterable[int] = (), *, timed: bool = True) -> Text:
    """A press heard as it happens: "Pablo: Ψ Chalice!" (after its time in ms, when ``timed``)."""
    kind, target = heard.shout
    text = Text(f"{heard.ms:>4} ms ", style=ink.leaf) if timed else Text()
    text.append(f"{names[heard.seat]}: ", style="bold" if heard.seat in set(mine) or not timed else "")
    if kind == NAME:
        text.append_text(treasure_text(ink, target))
    elif kind == CHEST:
        text.append("the chest", style=f"bold {ink.gold}")
    elif kind == SHIELD:
        text.append("the shield", style=f"bold {ink.ice}")
    else:
        owner = "my own" if target == heard.seat else f"{short(names[target], 8)}'s"
        text.append(f"slaps {owner} dark room", style=f"bold {ink[DARK]}")
    text.append("!")
    return text


def headline(ink: Inks, record: RoundRecord, names: Sequence[str]) -> Text:
    """The round in one line: who took the room and how, or the dragon."""
    o = record.outcome
    text = Text()
    if o.how == "dragon":
        text.append("DRAGON! ", style=f"bold {ink[DRAGON_RED]}")
        burned = [names[b.seat] for b in o.burns]
        text.append(f"{' and '.join(burned)} burned." if burned else "Nobody burned.")
    elif o.winner is not None:
        cards = len(record.taken)
        how = f"{TREASURE_NAMES[o.named]}" if o.how == "named" and o.named is not None else "the chest"
        text.append(names[o.winner], style="bold")
        text.append(f" takes {cards} card{'s' * (cards != 1)} with {how} at {o.win_ms} ms")
    else:
        text.append("Nobody took the room.", style="bold")
    return text


def counts_text(ink: Inks, counts: Sequence[int]) -> Text:
    text = Text()
    for t, n in sorted(enumerate(counts), key=lambda tn: -tn[1]):
        if n:
            text.append_text(treasure_text(ink, t, name=False))
            text.append(f"{n} ")
    return text


def round_rows(ink: Inks, record: RoundRecord, names: Sequence[str], mine: Iterable[int] = ()) -> list[Text]:
    """Who pressed what and when, and what came of it, in time order."""
    mine = set(mine)
    rows = []
    for v in record.outcome.verdicts:
        row = Text(f"{v.ms:>4} ms ", style=ink.leaf)
        row.append(f"{short(names[v.seat], 6):<6} ", style="bold" if v.seat in mine else "")
        what = press_text(ink, v.kind, v.target, names)
        what.pad_right(14 - what.cell_len)
        row.append_text(what)
        verdict, style = _VERDICTS.get(v.what, (v.what, ""))
        style = ink.style(style)
        row.append(f" {verdict}", style=style)
        rows.append(row)
    if not rows:
        rows.append(Text("nobody pressed anything", style="dim"))
    return rows


def why_lines(record: RoundRecord) -> list[str]:
    """The engine's account past one line per press: ties, the dragon, the room."""
    return list(record.lines[len(record.outcome.verdicts) :])


def fates(record: RoundRecord, names: Sequence[str]) -> dict[int, str]:
    """Where each revealed card went: seat -> a few words."""
    o = record.outcome
    out: dict[int, str] = {}
    stolen = {t.owner: t.thief for t in o.thefts}
    for seat, handle in record.revealed:
        if seat in stolen:  # a card border has room for six letters
            out[seat] = f"{TORCH}→{short(names[stolen[seat]], 4)}"
        elif handle in record.taken and o.winner is not None:
            out[seat] = f"→{short(names[o.winner], 5)}"
        elif handle in record.to_room:
            out[seat] = "room"
    return out



def legend_text(ink: Inks, block: int, name: str) -> tuple[Text, list[tuple[int, int, int, int, int]]]:
    """A player's keys in one line, and where each key is: (start, end, block, input, target)."""
    keys = BLOCKS[block]
    text = Text(f"{short(name, 6):<7}", style="bold")
    spots = []
    for t, key in enumerate(keys.treasures):
        start = len(text)
        text.append(key, style="bold reverse")
        text.append_text(treasure_text(ink, t, name=False))
        spots.append((start, len(text), block, NAME, t))
        text.append(" ")
    for key, label, kind, colour in (
        (keys.chest, "chest", CHEST, ink.gold),
        (keys.shield, "shield", SHIELD, ink.ice),
        (keys.slap, "slap", SLAP, ink[DARK]),
    ):
        start = len(text)
        text.append(key, style="bold reverse")
        text.append(f" {label}", style=colour)
        spots.append((start, len(text), block, kind, -1 if kind == SLAP else 0))
        text.append(" " if kind != SLAP else "")
    return text, spots


# ---------------------------------------------------------------- the room


CARD_WIDTH, CARD_HEIGHT = 12, 5
HIDDEN = Text("░" * (CARD_WIDTH - 2))


def room_box(ink: Inks, seat: int, name: str, face: str | None, *, hidden: bool = False, note: str = "",
             hover: bool = False) -> Box:
    """One seat's card in the room: face down (``hidden``), none, or its two treasures and its
    chicken or dragon; ``note`` on its bottom edge (where it went, a dark room's key); lit
    under the mouse if ``hover``, where a click on it slaps it (the first player's hand)."""
    look = dict(
        width=CARD_WIDTH, border="round", edge=ink.felt_line, title=Text(short(name, 6), style=ink.leaf),
        ground=ink.felt_card, hover=ink.felt_hover if hover else None, click=("slap_by_click", (seat,)) if hover else None,
    )
    subtitle = ink.gold
    if hidden:
        lines = tuple(Text(HIDDEN.plain, style=ink.felt_line) for _ in range(3))
        look["ground"] = ink.felt_down
    elif face is None:
        lines = tuple(card_body(ink, None).split("\n", allow_blank=True))
        look["edge"] = ink.felt_line_dim
    else:
        lines = tuple(card_body(ink, face).split("\n", allow_blank=True))
        c = card(face)
        note = note or (f"{TORCH} dark" if c.torch else "")
        if c.torch:
            look.update(border="dashed", edge=ink.lilac)
            subtitle = ink.lilac
        if c.dragon:  # (a dark room's dragon is drawn as a dragon, its note as a dark room's)
            look.update(border="heavy", edge=ink.dragon, ground=ink.dragon_ground,
                        title=Text(short(name, 6), style=f"bold {ink.dragon}"))
    return Box(lines=lines[: CARD_HEIGHT - 2], subtitle=Text(note, style=subtitle) if note else None, **look)


def cards_per_row(players: int) -> int:
    """How many cards a row of the board's room holds: five players' in rows of three and two."""
    return 3 if players == 5 else players


# ---------------------------------------------------------------- the dragon and the loots


def offer_text(ink: Inks, choice: Choice, offer: int, faces: Mapping[int, str]) -> Text:
    """One thing a burned player may give the dragon, as a person reads it."""
    handles, chicken = choice.offers[offer]
    if chicken:
        return Text.assemble(("your chicken", f"bold {ink[CHICKEN]}"), f" ({face_name(faces[handles[0]])}) · 1 card")
    chickens = sum(card(faces[h]).chicken for h in handles)
    also = f", {count(chickens, 'chicken')} among them" if chickens else ""
    return Text(f"the {count(len(handles), 'card')} it wants{also}")


def dragon_faces() -> list[str]:
    """The nine dragon cards, the largest (the easiest to see) first."""
    return sorted({f for f in all_faces() if card(f).dragon}, key=lambda f: (-card(f).dragon, card(f).treasures))


def loot_text(ink: Inks, loot: Sequence[str], who: str = "you") -> Text:
    """A player's loot as a person looks through it: how many cards show each treasure, what
    each dragon would take (or whether a chicken would do), and the cards themselves."""
    chickens = sum(card(f).chicken for f in loot)
    text = Text(f"{count(len(loot), 'card')}, {count(chickens, 'chicken')}\n", style="bold")
    shows = counts_of(loot)
    for t in range(len(TREASURE_NAMES)):
        text.append_text(treasure_text(ink, t))
        text.append(f" {shows[t]:<3} " if t % 3 < 2 else f" {shows[t]}\n")
    text.append(f"\nIf a dragon burned {who} now:\n", style=f"bold {ink[DRAGON_RED]}")
    for face in dragon_faces():
        c = card(face)
        offers = dragon_offers(loot, face)
        text.append(f" {'▲' * c.dragon:<3} ", style=f"bold {ink[DRAGON_RED]}")
        pair = Text.assemble(treasure_text(ink, c.treasures[0]), " & ", treasure_text(ink, c.treasures[1]))
        pair.pad_right(22 - pair.cell_len)
        text.append_text(pair)
        wants = next(o for o in offers if not o.chicken)
        text.append(f" takes {count(len(wants.lost), 'card')}")
        if len(offers) > 1:
            text.append(" · or a chicken", style=ink[CHICKEN])
        text.append("\n")
    text.append("\nThe cards, the newest last:\n", style="bold")
    for face, n in Counter(face_name(f) for f in loot).items():
        text.append(f" {n}× {face}\n")
    return text
