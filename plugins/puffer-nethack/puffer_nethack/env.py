"""NetHackEnv: an NLE task whose dict observation PufferLib flattens, with reproducible seeding.

NLE seeds NetHack through `env.seed(core, disp, reseed)`, and those seeds replay the
same game at every reset. Here `reset(seed=s)` starts a generator from `s` that draws
fresh (core, disp) seeds for each episode (`episode_seeds`), so a seeded run is
reproducible while its episodes still differ. Without a seed, NLE picks its own.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.envs.registration import load_env_creator
from gymnasium.wrappers import TimeLimit

from puffer_nethack.specs import task_kwargs
from pufferlib.errors import APIUsageError

#: Our task names -> NLE's Gymnasium ids.
TASKS = {
    "score": "NetHackScore-v0",
    "staircase": "NetHackStaircase-v0",
    "pet": "NetHackStaircasePet-v0",
    "oracle": "NetHackOracle-v0",
    "gold": "NetHackGold-v0",
    "eat": "NetHackEat-v0",
    "scout": "NetHackScout-v0",
    "challenge": "NetHackChallenge-v0",
}
#: The observation keys of every id unless `observation_keys` says otherwise.
OBSERVATION_KEYS = ("glyphs", "blstats", "message", "inv_glyphs")


def episode_seeds(rng: np.random.Generator) -> tuple[int, int]:
    """The (core, disp) NetHack seeds of the next episode of a seeded env."""
    core, disp = rng.integers(0, 2**31 - 1, size=2)
    return int(core), int(disp)


class NetHackEnv(gymnasium.Wrapper):
    """Wraps an NLE env: per-episode seeds from `reset(seed)`, RGB frames from `render()`."""

    # NLE's own metadata lists 'human'/'ansi', which this wrapper does not render.
    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, env: gymnasium.Env, render_mode: str | None = None):
        super().__init__(env)
        self._render_mode = render_mode
        self._rng: np.random.Generator | None = None

    @property
    def render_mode(self) -> str | None:
        """"rgb_array" (NLE's pixel rendering) or None."""
        return self._render_mode

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start an episode; a `seed` makes this and the following episodes reproducible."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self._rng is not None:
            core, disp = episode_seeds(self._rng)
            self.env.unwrapped.seed(core=core, disp=disp, reseed=False)
        return self.env.reset(seed=seed, options=options)

    def render(self) -> np.ndarray | None:
        """The screen as an RGB image with render_mode="rgb_array", else None."""
        return self.env.render() if self._render_mode == "rgb_array" else None


def make(task: str, observation_keys: tuple[str, ...] | list[str] = OBSERVATION_KEYS,
         max_episode_steps: int | None = None, character: str | None = None, fix_moon_phase: bool = True,
         render_mode: str | None = None, **nle_kwargs: Any) -> gymnasium.Env:
    """Creator of the `nethack-<task>` ids.

    `observation_keys`: which of NLE's observations to keep (glyphs, chars, colors,
    specials, blstats, message, inv_glyphs, inv_strs, inv_letters, inv_oclasses,
    screen_descriptions, tty_chars, tty_colors, tty_cursor, misc). `max_episode_steps`:
    the step limit, a truncation. `character`: role-race-alignment-gender, "@" for a
    random one. Both default to the task's (`puffer_nethack.specs.task_kwargs`: 5000 and
    "mon-hum-neu-mal"; the challenge: 1,000,000 and "@"). `fix_moon_phase`: derive the
    moon phase from the seeds rather than from the clock (reproducible luck). Other
    keyword arguments go to the NLE task.
    """
    if task not in TASKS:
        raise APIUsageError(f"Unknown NetHack task {task!r}; choose one of {', '.join(TASKS)}.")
    defaults = task_kwargs(task)
    max_episode_steps = defaults["max_episode_steps"] if max_episode_steps is None else max_episode_steps
    character = defaults["character"] if character is None else character
    if render_mode not in (None, "rgb_array"):
        raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
    if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int) or max_episode_steps < 1:
        raise APIUsageError(f"max_episode_steps must be an int >= 1, got {max_episode_steps!r}.")
    if isinstance(observation_keys, str) or not observation_keys:
        raise APIUsageError(f"observation_keys must be a non-empty list of NLE keys, got {observation_keys!r}.")
    try:
        import nle  # noqa: F401 - registers the NetHack ids with Gymnasium
        from nle.nethack import OBSERVATION_DESC
    except ModuleNotFoundError as exc:
        raise APIUsageError(
            f"puffer-nethack needs nle ({exc.name} is missing). Its metadata pins gymnasium==1.2.0, so it "
            "is installed without its declared dependencies: pip install --no-deps nle==1.3.0") from exc

    offered = [k for k in OBSERVATION_DESC if k not in ("internal", "program_state")]
    unknown = [k for k in observation_keys if k not in offered]
    if unknown:
        raise APIUsageError(f"Unknown observation keys {unknown}; NLE offers {', '.join(offered)}.")
    # NLE ends an episode at its own step limit as a terminal (it quits the game); a
    # TimeLimit one step earlier makes the limit a truncation, as it should be for learning.
    spec = gymnasium.spec(TASKS[task])
    task_class = load_env_creator(spec.entry_point)
    env = task_class(**{**spec.kwargs, **nle_kwargs}, observation_keys=tuple(observation_keys),
                     max_episode_steps=max_episode_steps + 1, character=character,
                     fix_moon_phase=fix_moon_phase, render_mode="pixel" if render_mode else None)
    return TimeLimit(NetHackEnv(env, render_mode=render_mode), max_episode_steps)
