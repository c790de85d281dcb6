"""`call_watched`: call a function that should return at once, without being held up by it.

A plugin's declaration hooks (the env specs, id prefixes, config sections and loggers it
offers) must return at once: its entry module imports nothing heavy (see
`pufferlib.registry.hookspecs`). One that hangs, or imports for half a minute, must not
leave the user waiting without a word, nor forever. `call_watched` runs the function in a
helper thread while the caller waits: after `slow_s` it calls `on_slow()` (the caller warns,
naming the plugin) and waits on, up to `deadline_s` in all; then it raises `Overdue` and
leaves the thread behind (Python cannot stop a thread; it is a daemon thread, which does not
keep the process alive). The function's result is returned and its exception, whatever it
is, raised in the caller's thread. Ctrl-C while waiting raises KeyboardInterrupt in the
caller's thread, as it would without the helper.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any


class Overdue(Exception):
    """The watched function was still running at its deadline."""


def call_watched(function: Callable[..., Any], args: Sequence[object], slow_s: float, deadline_s: float,
                 on_slow: Callable[[], None]) -> Any:
    """`function(*args)` run in a helper thread: `on_slow()` once it has run `slow_s` seconds,
    `Overdue` once it has run `deadline_s`; else its result, or its exception raised here."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, function(*args)))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, which decides
            outcome.append((False, exc))

    thread = threading.Thread(target=run, name=f"pufferlib watched {getattr(function, '__name__', 'call')}",
                              daemon=True)
    thread.start()
    thread.join(slow_s)
    if thread.is_alive():
        on_slow()
        thread.join(max(deadline_s - slow_s, 0.0))
        if thread.is_alive():
            raise Overdue(f"still running after {deadline_s:g} s")
    returned, value = outcome[0]
    if not returned:
        raise value
    return value
