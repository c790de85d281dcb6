"""The one play loop: `play_steps` drives players that answer `predict` (a `Predictor`: a loaded
`pufferlib.Agent`, a Stable-Baselines3 model, `ActorPredictor` over a torch policy) through a
vectorized env, for evaluation (`pufferlib.train.evaluation`), matches (`pufferlib.match`) and the
hub's replays (`pufferlib.hub`).

Each step: `recv()`; the caller's `step(t, batch)` reads it (counts episodes or games, records
frames) and says whether to stop; else every player predicts actions for every row (each keeps
its own LSTM state, reset where a row's episode starts), each row takes the action of the player
`holders()` gives it (player 0 everywhere by default), and they are sent. A `progress` line goes
to stderr every `PROGRESS_SECONDS` seconds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import torch

from pufferlib.protocols import Batch, VecEnv
from pufferlib.train.acting import ALL_ROWS, Actor

#: Seconds between progress lines of a long evaluation or match.
PROGRESS_SECONDS = 5.0


class Predictor(Protocol):
    """A player: Stable-Baselines3's `predict` (its `PolicyPredictor`), which `pufferlib.Agent` has."""

    def predict(self, observation: Any, state: Any = None, episode_start: Any = None,
                deterministic: bool = False) -> tuple[Any, Any]:
        """(actions, new state) for a batch of observations; `episode_start` flags the rows whose
        episode began (their state is reset)."""
        ...


class ActorPredictor:
    """A torch policy acting on every row of one env as a `Predictor`: its LSTM state is kept per row
    by the `Actor` (the `state` passed in and returned is unused, None)."""

    def __init__(self, actor: Actor):
        self.actor = actor

    def predict(self, observation: Any, state: Any = None, episode_start: Any = None,
                deterministic: bool = False) -> tuple[np.ndarray, None]:
        """Every row's action (greedy with `deterministic`, else sampled), as the env takes them."""
        actor = self.actor
        obs = np.asarray(observation)
        starts = np.zeros(len(obs), bool) if episode_start is None else np.asarray(episode_start, bool)
        action, new_state = actor.choose(torch.from_numpy(obs).to(actor.device),
                                         actor.state(ALL_ROWS, torch.from_numpy(starts).to(actor.device)),
                                         deterministic)
        actor.keep_state(ALL_ROWS, new_state)
        return actor.to_env(action), None


def play_steps(env: VecEnv, players: Sequence[Predictor], step: Callable[[int, Batch], bool], *,
               seed: int | None, deterministic: bool, holders: Callable[[], np.ndarray] | None = None,
               max_steps: int | None = None, progress: Callable[[int], str] | None = None) -> int | None:
    """Drive `players` through `env` (reset with `seed`) until `step(t, batch)` returns True after the
    t-th `recv()`: t, the steps taken; None when `max_steps` steps went by first.

    `holders()`: per row, the index in `players` of the player whose action it takes (asked before
    each step's actions; default player 0 on every row). `progress(t)`: the text of a progress line.
    """
    states: list[Any] = [None] * len(players)
    last_line = time.monotonic()
    env.async_reset(seed)
    t = 0
    while max_steps is None or t < max_steps:
        batch = env.recv()
        if step(t, batch):
            return t
        starts = np.asarray(batch[2]) | np.asarray(batch[3])
        holder = holders() if holders is not None else None
        actions = None
        for i, player in enumerate(players):
            act, states[i] = player.predict(batch[0], states[i], episode_start=starts, deterministic=deterministic)
            if actions is None:
                actions = np.asarray(act)
            elif holder is not None:
                mine = holder == i
                actions[mine] = np.asarray(act)[mine]
        assert actions is not None  # `players` is not empty
        env.send(actions)
        t += 1
        if progress is not None and time.monotonic() - last_line >= PROGRESS_SECONDS:
            last_line = time.monotonic()
            print(progress(t), file=sys.stderr, flush=True)
    return None
