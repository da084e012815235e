"""A guesser's view of a join code: the wrong codes it would still have to try at the host.

Owns: `guesses_that_fit`, wrong codes whose tag (`netcode.codes.code_tag`) is the right
code's, so an honest joiner's program would try them too. The tests and the screenshots
use them to show a guess that reaches the host, and be counted there.

Must not touch: anything but `netcode.codes`.
"""

from __future__ import annotations

from netcode.codes import code_key, code_tag


def guesses_that_fit(code: str, count: int = 1, prefix: str = "GUESS") -> list[str]:
    """``count`` wrong codes, ``PREFIX-0000`` on, whose tag is ``code``'s."""
    found: list[str] = []
    n = 0
    while len(found) < count:
        guess = f"{prefix}-{n:04d}"
        if code_tag(guess) == code_tag(code) and code_key(guess) != code_key(code):
            found.append(guess)
        n += 1
    return found
