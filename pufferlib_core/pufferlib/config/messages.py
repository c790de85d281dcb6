"""How messages quote what they were given: a long value is cut, with its length.

Contract: `short(text)` is `text` when it has at most `limit` characters, else its start and
how long it was; every value that a config or sweep message quotes from a config, a flag or
a trial's log goes through it, so that a 10 MB value gives a line, not 10 MB of output.
`close_matches` are difflib's "did you mean" candidates, found at once for such a value too.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

#: The characters of a quoted value that a message keeps: room for a deep path (a user must
#: see the whole path to act on it), still one screen for a value of any size.
LIMIT = 400


def short(text: str, limit: int = LIMIT) -> str:
    """`text`, or its first `limit` characters and how many it had."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def close_matches(word: str, options: Sequence[str], n: int = 3) -> list[str]:
    """The options close to `word` (difflib's, cutoff 0.6), best first.

    A word over 7/3 times as long as every option cannot be close (difflib's ratio is at most
    2 * shorter / total length), so it is not compared: comparing a 10 MB word takes seconds.
    """
    if 3 * len(word) > 7 * max((len(o) for o in options), default=0):
        return []
    return difflib.get_close_matches(word, options, n=n)
