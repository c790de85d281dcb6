"""AtariVector: many copies of one Atari game stepped by ale-py's C++ vector interface.

ale-py's `ALEVectorInterface` runs the copies in C++ threads, preprocessing included
(frame skip, max-pooling, grayscale, resize, stacking, sticky actions, no-op starts), so
one Python call steps every copy. This is the native backend of the `atari-<game>` ids.
Its emulators are seeded by ale-py's vector env, each copy with its own seed drawn from
`seed` (`copy_seeds`), so episodes differ from those of the single-env `AtariEnv` with
the same seed; the preprocessing follows the same settings (`puffer_atari.specs.DEFAULTS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

import pufferlib
from puffer_atari.specs import check_options
from pufferlib import EpisodeStats
from pufferlib.errors import APIUsageError
from pufferlib.spaces import ActionCheck
from pufferlib.vector.base import check_seed


def copy_seeds(seed: int, num_envs: int) -> np.ndarray:
    """The emulator seeds of `num_envs` copies reset with `seed`.

    Drawn from `numpy.random.SeedSequence(seed)`, so that envs reset with neighbouring
    seeds (the workers of one vectorizer get `seed + w`) share no copy seed.
    """
    return (np.random.SeedSequence(seed).generate_state(num_envs) & 0x7FFFFFFF).astype(np.int64)


class AtariVector(pufferlib.PufferEnv):
    """`num_envs` copies of `game`; observations uint8 `(stack_num, screen_size, screen_size)`.

    Takes the keyword arguments of `puffer_atari.env.AtariEnv` (grayscale only) plus
    `num_threads` (0: one per core). Finished copies are reset in the same step; their
    infos carry `episode_return` and `episode_length` (agent steps), and
    `final_observations` their last stacked frames.
    """

    writes_final_observations = True

    def __init__(self, game: str, num_envs: int = 1, buf: Any = None, frameskip: int = 4,
                 repeat_action_probability: float = 0.25, full_action_space: bool = False,
                 noop_max: int = 30, screen_size: int = 84, grayscale: bool = True, stack_num: int = 4,
                 episodic_life: bool = False, reward_clipping: bool = False,
                 max_episode_frames: int = 108_000, num_threads: int = 0,
                 render_mode: str | None = None):
        import ale_py
        from ale_py import roms

        if not grayscale:
            raise APIUsageError("The native Atari backend is grayscale only; pass backend='serial' or "
                                "'multiprocessing' for grayscale=False.")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise APIUsageError(f"num_envs must be an int >= 1, got {num_envs!r}.")
        check_options(frameskip=frameskip, repeat_action_probability=repeat_action_probability,
                      noop_max=noop_max, screen_size=screen_size, stack_num=stack_num,
                      max_episode_frames=max_episode_frames, render_mode=render_mode, num_threads=num_threads,
                      full_action_space=full_action_space, episodic_life=episodic_life,
                      reward_clipping=reward_clipping)
        rom = roms.get_rom_path(game)
        if rom is None:
            raise APIUsageError(f"{game!r} is not an ale-py ROM; known ROMs: {', '.join(roms.get_all_rom_ids())}.")
        self.game, self.render_mode = game, render_mode
        self.ale = ale_py.ALEVectorInterface(
            rom_path=rom, num_envs=num_envs, frame_skip=frameskip, stack_num=stack_num,
            img_height=screen_size, img_width=screen_size, grayscale=True, maxpool=True,
            noop_max=noop_max, use_fire_reset=False, episodic_life=episodic_life, life_loss_info=False,
            reward_clipping=reward_clipping, max_episode_steps=max_episode_frames,
            repeat_action_probability=repeat_action_probability, full_action_space=full_action_space,
            batch_size=0, num_threads=num_threads, thread_affinity_offset=-1, autoreset_mode="SameStep")
        self.single_observation_space = spaces.Box(0, 255, (stack_num, screen_size, screen_size), np.uint8)
        self.single_action_space = spaces.Discrete(len(self.ale.get_action_set()))
        self.num_agents = num_envs
        super().__init__(buf)
        self._all = np.arange(num_envs)
        self._strength = np.ones(num_envs, np.float32)
        self._stats = EpisodeStats(num_envs)
        self._check_actions = ActionCheck(self.single_action_space, "AtariVector").check
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise APIUsageError("This AtariVector is closed; create a new one.")

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        """Reset every copy with seeds drawn from `seed` (`copy_seeds`; None: fresh entropy)."""
        self._check_open()
        seeds = np.full(self.num_agents, -1) if seed is None else copy_seeds(check_seed(seed), self.num_agents)
        obs, info = self.ale.reset(self._all, seeds)
        self._scatter(info["env_id"], obs)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self._stats.reset()
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple:
        """Step every copy with `actions` (one per copy); finished copies restart."""
        self._check_open()
        if actions is not self.actions:  # checked before the int32 cast: 2**32 or 0.5 never become 0
            actions = self._check_actions(actions, self.actions.shape)
        actions = np.ascontiguousarray(actions.reshape(-1), dtype=np.int32)
        self.ale.send(actions, self._strength)
        obs, rewards, terminals, truncations, info = self.ale.recv()
        ids = self._scatter(info["env_id"], obs)
        if "final_obs" in info:  # ale-py's SameStep mode: the last frames of the episodes that ended
            ended = np.logical_or(terminals, truncations)
            self.final_observations[info["env_id"][ended]] = info["final_obs"][ended]
        self.rewards[ids] = rewards
        self.terminals[ids] = terminals
        self.truncations[ids] = truncations
        infos = self._stats.step(self.rewards, self.terminals | self.truncations)
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def _scatter(self, env_ids: np.ndarray, obs: np.ndarray) -> Any:
        """Write `obs` into the rows `env_ids`; returns an index for the other arrays."""
        if np.array_equal(env_ids, self._all):
            self.observations[:] = obs
            return slice(None)
        self.observations[env_ids] = obs
        return env_ids

    def render(self) -> np.ndarray | None:
        """The last stacked frame of copy 0, as an RGB image, with render_mode="rgb_array"."""
        self._check_open()
        if self.render_mode != "rgb_array":
            return None
        return np.repeat(self.observations[0, -1][:, :, None], 3, axis=2)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            del self.ale
