"""Text from files, made safe to print.

Contract: `printable(text)` is `text` with every character that `str.isprintable` calls
non-printable (C0 and C1 control characters such as ESC, DEL, format characters such as the
bidirectional overrides, line and paragraph separators) replaced by its escaped form as `repr`
writes it (`\\x1b`, `\\u202e`); everything else, non-ASCII letters included, is kept. Text that a
file supplies (a model card, versions.json, a published config, pool.json, a league's player
names) passes through it before it reaches a terminal, so a file cannot move the cursor, clear
the screen, retitle the window or forge lines of output.
"""

from __future__ import annotations


def printable(text: object, newlines: bool = False) -> str:
    """`str(text)` with its non-printable characters escaped (module docstring); `newlines` keeps
    line feeds (a message of several lines) and escapes the rest."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or (newlines and char == "\n") else repr(char)[1:-1] for char in text)


__all__ = ["printable"]
