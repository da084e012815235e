"""When two players' names would be taken for one another on a screen.

Owns: ``name_key``, the form of a name that two names share when a person could not
tell them apart: the same letters in another case ("HOLLY", "holly"), in another
width or style (full-width "Ｈｏｌｌｙ", mathematical bold), with invisible marks
added, or with look-alike letters from another script ("Hоlly" with a Cyrillic о).
It follows the idea of the confusables skeleton of Unicode TR39 (NFKC, then each
look-alike letter replaced by its Latin prototype, then case folded), with a small
table of the common Cyrillic, Greek and Armenian look-alikes of Latin letters
rather than Unicode's whole confusables list. Letters a terminal's font draws apart
(``l``, ``I``, ``1``; ``O``, ``0``) stay apart.

Must not touch: sockets, clocks, the seats themselves (``seats.py``, ``host.py``
decide who sits; this only says which names are one name).
"""

from __future__ import annotations

import unicodedata

#: Letters of other scripts that a screen draws like a Latin letter, with that letter
#: (case kept: Cyrillic "Н" is an H, its small "н" is no h).
LOOK_ALIKES = str.maketrans({
    # Cyrillic capitals and small letters
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M",
    "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W",
    "Ӏ": "I", "а": "a", "с": "c", "е": "e", "і": "i", "ј": "j", "о": "o", "р": "p", "ѕ": "s",
    "х": "x", "у": "y", "ү": "y", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    # Greek capitals and small letters
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J", "α": "a", "γ": "y",
    "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
    # Armenian small letters, and Latin letters drawn like others
    "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ɑ": "a", "ɡ": "g", "ı": "i",
})  # fmt: skip
#: Characters a screen shows as nothing (or as a blank) beside a letter.
INVISIBLE = {ord(c): None for c in "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u3164\uffa0"} | {
    code: None for code in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))
}


def name_key(name: str) -> str:
    """What ``name`` looks like on a screen, as a key: two names with the same key are one
    name to the people reading them ("Holly", "HOLLY", "Hоlly" with a Cyrillic о)."""
    shown = unicodedata.normalize("NFKC", name)
    shown = "".join(c for c in shown if unicodedata.category(c) != "Cf").translate(INVISIBLE)
    folded = shown.translate(LOOK_ALIKES).casefold()
    return " ".join(unicodedata.normalize("NFKC", folded).split())
