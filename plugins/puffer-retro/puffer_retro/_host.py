"""A child process that hosts one RetroGameEnv for a process that already has an emulator open.

stable-retro allows one live emulator per process, so `puffer_retro.env.make` runs every env
beyond a process's first in a child of its own: `python -m puffer_retro._host FD`, started with
`subprocess` (not `multiprocessing`: vectorizer workers are daemonic and may not have children,
and a forked child would inherit the parent's open emulator). The two talk over a private
socket pair (`multiprocessing.connection.Connection` on the inherited descriptor): the parent
sends `(method, args, kwargs)` and receives `("ok", result)` or `("error", exception)`. The child ends
when the parent closes its end or dies (the socket reaches end of file), closing its env.
"""

from __future__ import annotations

import sys
from multiprocessing.connection import Connection


def serve(conn: Connection) -> None:
    """Make the env from the first message's kwargs, then answer calls until `close` or end of file."""
    from puffer_retro.env import RetroGameEnv

    env = None
    try:
        while True:
            try:
                method, args, kwargs = conn.recv()
            except (EOFError, OSError):
                return
            try:
                if method == "make":
                    env = RetroGameEnv(**kwargs)
                    result = (env.observation_space, env.action_space, env.actions)
                elif method == "close":
                    conn.send(("ok", None))
                    return
                elif method in ("reset", "step", "render"):
                    result = getattr(env, method)(*args, **kwargs)
                else:
                    raise ValueError(f"unknown call {method!r}")
            except Exception as exc:  # sent back to the parent, which raises it
                conn.send(("error", exc))
                continue
            conn.send(("ok", result))
    finally:
        if env is not None:
            env.close()
        conn.close()


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])))
