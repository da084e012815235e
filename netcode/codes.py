"""Join codes: making one up, the one form every program keys on, and its public tag.

Owns: the alphabet of made-up codes (`CODE_ALPHABET`, Crockford's base32),
`new_code`, `code_key` (the normal form of a code, the only form anything is
computed from: the handshake's SPAKE2 password, the tag, every comparison),
`code_problem` (why a typed code cannot be a code, in words) and `code_tag`
(the few bits of a code a table announces).

One normal form, whoever types the code and wherever (the host's ``--code``,
a joiner's ``--code``, the lobby's field): Unicode NFKC (full-width letters
become letters), upper case, no spaces and no dashes of any kind, and the
look-alikes O read as 0 and I and L as 1. So ``SNOW-1234``, ``snow1234``,
``SN0W 1234`` and ``sn0w-l234`` are one code. Made-up codes use Crockford's
alphabet, digits and letters without I, L, O and U, so a made-up code loses
nothing to the look-alikes (0 and 1 are in it, O, I and L are not) and reads
the same aloud; codes people make up themselves (``--code SNOW-1234``) need
`MIN_CODE` letters and digits once normalised.

The tag. A table's announcement carries `TAG_BITS` bits of
SHA-256("xmas-tui code tag v1" ‖ key), so a joiner skips the tables its code
cannot open instead of trying it there (a wrong code is a failed attempt the
host is warned of, and slows that host's door). Anyone who hears the
announcement learns those bits and nothing more; that is all an offline
guesser gets, every other bit costs an online attempt against the host's
rate limit (`netcode.channel.config.Config`: once 20 attempts have failed at a
table, one new attempt a second from anyone). A made-up code has 8 symbols of
5 bits, 40 bits; 32 remain after the tag, so an online guesser needs 2^31
attempts on average: some 68 years at one a second. A typed code of 6 random
symbols keeps 30 - 8 = 22 bits, 2^21 attempts, some 24 days (made-up codes
are the default for that reason); a word someone chose has less, as it
always had. The tag is of the code alone, not of the table: a host who opens
table after table with the same code announces the same 8 bits each time,
where a tag salted by the table would hand out 8 fresh bits with every table
(five tables would give away a made-up code). The price is that tables with
the same code show the same tag, which says only that they might share a code.

Must not touch: sockets, clocks, the handshake's key schedule
(`netcode.channel.handshake` uses `code_key` as its password).
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

#: Crockford's base32: digits and letters, without I, L, O (read as 1, 1, 0) and U
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: what a look-alike is read as in every code
LOOK_ALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})
#: letters and digits a code needs (typed ones: a made-up code has 8)
MIN_CODE = 6
MAX_CODE = 32
#: bits of the code a table announces (see the module's docstring for the arithmetic)
TAG_BITS = 8
_TAG_LABEL = b"xmas-tui code tag v1\x00"


def new_code() -> str:
    """A join code made up for a table, 40 random bits a person can read out: ``XKCD-42QZ``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def _separates(char: str) -> bool:
    """Spaces and dashes of every kind (hyphen, en dash, minus, full-width…) do not count."""
    return char.isspace() or unicodedata.category(char) in ("Pd", "Zs") or char == "\u2212"


def code_key(code: str) -> str:
    """The normal form of a join code: ``"sn0w 1234"``, ``"SNOW-1234"`` → ``"SN0W1234"``."""
    text = unicodedata.normalize("NFKC", code).upper()
    return "".join(char for char in text if not _separates(char)).translate(LOOK_ALIKES)


def code_problem(code: str) -> str | None:
    """Why ``code`` cannot be a join code, in words, or None if it can."""
    key = code_key(code)
    if not key.isalnum() or len(key) > MAX_CODE:
        return "a join code is letters and digits, like ABCD-2345"
    if len(key) < MIN_CODE:
        return f"a join code needs at least {MIN_CODE} letters and digits (dashes not counted), not {len(key)}"
    return None


def code_tag(code: str) -> int:
    """The `TAG_BITS` bits of ``code`` a table announces (the same for every typing of it)."""
    digest = hashlib.sha256(_TAG_LABEL + code_key(code).encode("utf-8")).digest()
    return digest[0] >> (8 - TAG_BITS)
