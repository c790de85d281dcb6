"""Helpers for tests that interrupt a child process with Ctrl-C (SIGINT)."""

import signal


def default_sigint() -> None:
    """`preexec_fn` of a child that a test will send SIGINT: restore the default handler.

    A shell's background job (`make test &`, `nohup ...`) ignores SIGINT and its children
    inherit that, so without this such a child never sees the Ctrl-C a test sends it.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
