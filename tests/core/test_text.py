"""`pufferlib._text.printable`: text from files, with what would drive a terminal escaped."""

import pytest

from pufferlib._text import printable


@pytest.mark.parametrize("text, shown", [
    ("plain ascii, punctuation: 'quotes' \\ and all", "plain ascii, punctuation: 'quotes' \\ and all"),
    ("accents and scripts stay: é, 日本, Ω", "accents and scripts stay: é, 日本, Ω"),
    ("\x1b[2J\x1b]0;title\x07", "\\x1b[2J\\x1b]0;title\\x07"),  # C0: ESC, BEL
    ("\x9b31m\x85", "\\x9b31m\\x85"),  # C1: CSI, NEL
    ("a\nforged line\r\tb\x7f", "a\\nforged line\\r\\tb\\x7f"),
    ("evil\u202egnp.exe\u2028", "evil\\u202egnp.exe\\u2028"),  # a bidi override, a line separator
])
def test_control_characters_are_escaped_and_everything_else_kept(text, shown):
    assert printable(text) == shown
    assert printable(shown) == shown  # an escaped text is printable as it is


def test_newlines_may_be_kept_for_messages_of_several_lines():
    assert printable("one\ntwo\x1b", newlines=True) == "one\ntwo\\x1b"
    assert printable(7) == "7"
