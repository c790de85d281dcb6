"""A trained agent, ready to act: `agent = pufferlib.load(source, env=None)`.

    agent = pufferlib.load("experiments/ocean-breakout_20261203-101500_3fa2c1")
    action, state = agent.act(obs)                     # one observation, greedy
    value = agent.value(obs)[0]                        # its value head's estimate of the return
    actions, state = agent.act(batch, state, deterministic=False)   # a batch, sampled
    print(agent.evaluate(episodes=100).summary())      # the rule of pufferlib.train.evaluation

`source`: a checkpoint file, a run folder (its newest intact checkpoint), "latest" (the
newest checkpoint of `env`'s id under `data_dir`), or a published agent: `hf://ORG/NAME[@REV]`
or its folder (`pufferlib.train.published`: safetensors weights and a TOML config). Checkpoints
are read weights-only (`pufferlib.train.checkpoint`). The policy is rebuilt from the checkpoint's config (policy
class and keywords, LSTM, observation normalisation, whose statistics the checkpoint holds).

`act` takes what an env gives: one observation of a Gymnasium env (a Dict/Tuple one too,
flattened as emulation does), one flat observation of a PufferEnv agent row, or a batch of
rows of a vectorized env. It returns actions in the same form (one action, structured for a
structured action space, or a batch as `env.send()` takes it) and the new LSTM state
(None for a feed-forward policy). Pass the state back on the next call, and `episode_start`
(one flag per row) where an episode began, as with Stable-Baselines3's `predict`. `predict` is
`act` under SB3's argument names and default (sampled actions): an Agent is an SB3 `PolicyPredictor`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from gymnasium import spaces

import pufferlib.pytorch
from pufferlib.config import load_default, merge
from pufferlib.errors import APIUsageError
from pufferlib.protocols import VecEnv
from pufferlib.registry.make import make_from_config
from pufferlib.spaces import ActionLayout, ObsLayout
from pufferlib.train import checkpoint, normalize
from pufferlib.train.acting import Actor, LSTMState
from pufferlib.train.evaluation import EvalResult, eval_env_config, evaluate
from pufferlib.train.policy import make_policy

#: The config sections a checkpoint's policy is rebuilt from.
POLICY_SECTIONS = ("policy", "rnn", "normalize")
#: What a loaded agent takes of its file's config: its policy and its env's settings (with those
#: every evaluation sets, `[eval] env`); the rest (how many envs, where to run) is the loader's.
AGENT_SECTIONS = (*POLICY_SECTIONS, "env", "eval")


@dataclass(frozen=True)
class AgentSpaces:
    """The spaces of one agent row (what a policy is built for and acts in)."""

    single_observation_space: spaces.Space[Any]
    single_action_space: spaces.Space[Any]
    obs_layout: ObsLayout | None
    action_layout: ActionLayout | None
    num_agents: int = 1

    @classmethod
    def of(cls, env: VecEnv) -> AgentSpaces:
        return cls(env.single_observation_space, env.single_action_space, env.obs_layout,
                   getattr(env, "action_layout", None))


class Agent:
    """A policy with what acting needs: see the module docstring. Made by `load` (or `build`)."""

    def __init__(self, policy: torch.nn.Module, env_spaces: AgentSpaces, config: Mapping[str, Any],
                 env_id: str | None, checkpoint_path: str | None = None, device: str | torch.device = "cpu"):
        self.policy = policy.to(device).eval()
        self.spaces, self.config, self.env_id = env_spaces, dict(config), env_id
        self.checkpoint = checkpoint_path
        self.device = torch.device(device)
        self._actor = Actor(env_spaces, self.policy, self.device)
        self.recurrent = self._actor.recurrent
        shape = env_spaces.single_observation_space.shape
        assert shape is not None, "observation spaces are Boxes"
        self._obs_shape = tuple(shape)
        self._obs_dtype = pufferlib.pytorch.torch_dtype(env_spaces.single_observation_space.dtype)

    def __repr__(self) -> str:
        return f"Agent({self.env_id!r}, checkpoint={self.checkpoint!r}, recurrent={self.recurrent})"

    def initial_state(self, batch: int = 1) -> LSTMState | None:
        """Zero LSTM state for `batch` rows (None for a feed-forward policy)."""
        if not self.recurrent:
            return None
        size = self._actor.h.shape[1]
        return torch.zeros(batch, size, device=self.device), torch.zeros(batch, size, device=self.device)

    @torch.no_grad()
    def act(self, obs: Any, state: LSTMState | None = None, deterministic: bool = True,
            episode_start: npt.ArrayLike | None = None) -> tuple[Any, LSTMState | None]:
        """(action(s), new LSTM state) for one observation or a batch; see the module docstring."""
        batch, single = self._as_batch(obs)
        starts = None if episode_start is None else np.asarray(episode_start, dtype=bool).reshape(-1)
        if starts is not None and len(starts) != len(batch):
            raise APIUsageError(f"act(): episode_start has {len(starts)} flag(s) for {len(batch)} observation "
                                "row(s): give one flag per row (or none).")
        if self.recurrent:
            state = state if state is not None else self.initial_state(len(batch))
            assert state is not None  # a recurrent agent's initial state
            if starts is not None:
                keep = torch.from_numpy(~starts).to(self.device)
                state = (state[0] * keep.unsqueeze(1), state[1] * keep.unsqueeze(1))
        action, state = self._actor.choose(batch, state, deterministic)
        out = self._actor.to_env(action)
        if not single:
            return out, state
        if self.spaces.action_layout is not None and self.spaces.action_layout.structured:
            return self.spaces.action_layout.unflatten(out[0]), state
        return (out[0].item() if out[0].ndim == 0 else out[0]), state

    def predict(self, observation: Any, state: LSTMState | None = None, episode_start: npt.ArrayLike | None = None,
                deterministic: bool = False) -> tuple[Any, LSTMState | None]:
        """`act` with Stable-Baselines3's argument names and default (sampled actions), so that SB3's
        `evaluate_policy(agent, pufferlib.vector.to_sb3(vecenv))` plays this agent."""
        return self.act(observation, state, deterministic, episode_start)

    @torch.no_grad()
    def value(self, obs: Any, state: LSTMState | None = None) -> np.ndarray:
        """The value head's estimate of the return to come, in the env's reward units (reward
        scaling undone), for one observation or a batch as `act` takes them: a (rows,) float array.
        `state`: the LSTM state `act` would take (not advanced here)."""
        batch, _ = self._as_batch(obs)
        if self.recurrent:
            out = self.policy(batch, state if state is not None else self.initial_state(len(batch)))
        else:
            out = self.policy(batch)
        reward_scale = getattr(self.policy, "reward_scale", None)  # a NormalizedPolicy's, when rewards are scaled
        scale = float(reward_scale()) if callable(reward_scale) else 1.0
        return out[1].float().view(-1).cpu().numpy() / scale

    def _as_batch(self, obs: Any) -> tuple[torch.Tensor, bool]:
        """(a (batch, *obs shape) tensor, whether `obs` was one observation)."""
        layout = self.spaces.obs_layout
        if isinstance(obs, (dict, tuple, list)) and layout is not None and layout.structured:
            return torch.from_numpy(layout.flatten(obs)[None]).to(self.device), True
        array = np.asarray(obs)
        if array.shape == self._obs_shape:
            array, single = array[None], True
        elif array.shape[1:] == self._obs_shape:
            single = False
        elif layout is not None and not layout.structured and array.size == int(np.prod(self._obs_shape)):
            array, single = array.reshape(1, *self._obs_shape), True
        else:
            raise APIUsageError(f"act() takes one observation of shape {self._obs_shape} or a batch of shape "
                                f"(n, {', '.join(map(str, self._obs_shape))}), got shape {array.shape}"
                                f" for {self.env_id or 'this agent'}.")
        return torch.as_tensor(array, dtype=self._obs_dtype, device=self.device), single

    def make_env(self, num_envs: int | None = None, **env_overrides: Any) -> VecEnv:
        """A vectorized env of the agent's env id and config, stepped synchronously (for evaluation)."""
        if self.env_id is None:
            raise APIUsageError("This agent's checkpoint records no env id: pass env= (a vectorized env).")
        return make_from_config(self.env_id, eval_env_config(self.config, num_envs), **env_overrides)

    def evaluate(self, env: VecEnv | None = None, episodes: int = 10, deterministic: bool = False,
                 seed: int | None = 0, num_envs: int | None = None, on_step: Callable[[], object] | None = None,
                 progress: str | None = None) -> EvalResult:
        """Play `episodes` episodes (the rule of `pufferlib.train.evaluation`) on `env`, or on an env
        made from the agent's config (`num_envs` copies; closed afterwards). Actions are sampled,
        as in training and `puffer eval`, unless `deterministic`."""
        own = env is None
        env = self.make_env(num_envs) if env is None else env
        try:
            return evaluate(env, self.policy, episodes, deterministic=deterministic, seed=seed, on_step=on_step,
                            progress=progress, device=self.device)
        finally:
            if own:
                env.close()


def build(env_id: str | None, config: Mapping[str, Any], payload: Mapping[str, Any] | None = None,
          env: VecEnv | None = None, device: str | torch.device = "cpu") -> Agent:
    """The agent of `config` (its policy sections replaced by the checkpoint `payload`'s when
    given, with the checkpoint's weights), built for `env`'s spaces or those of `env_id`."""
    if payload is not None:
        config = merge(config, {k: payload["config"][k] for k in POLICY_SECTIONS if k in payload["config"]})
    probe = env if env is not None else make_from_config(str(env_id), eval_env_config(config, 1))
    try:
        env_spaces = AgentSpaces.of(probe)
        policy = normalize.wrap(make_policy(probe, config, env_id=env_id), probe, config["normalize"],
                                config["train"]["gamma"])
    finally:
        if env is None:
            probe.close()
    if payload is not None:
        checkpoint.load_policy(policy, payload)
    return Agent(policy, env_spaces, config, env_id, payload.get("path") if payload else None, device)


def load(source: str | Path, env: str | VecEnv | None = None, *, device: str | torch.device = "cpu",
         data_dir: str | Path | None = None, allow_env_mismatch: bool = False,
         hub_dir: str | Path | None = None, trust_code: bool | None = None) -> Agent:
    """The agent of a checkpoint file, a run folder, "latest" or an `hf://` address; see the
    module docstring.

    `env`: an env id (the checkpoint must be of that env, unless `allow_env_mismatch`; with
    "latest", the env whose newest checkpoint is loaded) or a vectorized env to act in
    (its spaces must fit the checkpoint's). `data_dir`: where "latest" looks (default: the
    config's `train.data_dir`, "experiments"). `hub_dir`: the local hub that `hf://` addresses
    are read from (default: $PUFFER_HUB_DIR, else the Hugging Face Hub).

    The file is data (`pufferlib.train.trust`): the agent takes its policy sections and env
    settings (`AGENT_SECTIONS`), never where to run; a policy class or env id it names must be
    installed, unless `trust_code=True` (None: as `trust.trusting()` says).
    """
    env_id = env if isinstance(env, str) else (env.spec.id if env is not None and env.spec is not None else None)
    if str(source) == "latest" and env_id is None:
        raise APIUsageError("pufferlib.load('latest') needs env= (an env id): 'latest' is the newest checkpoint "
                            "of that env.")
    data_dir = data_dir if data_dir is not None else load_default()["train"]["data_dir"]
    payload = checkpoint.load(source, data_dir, env_id=env_id, allow_env_mismatch=allow_env_mismatch,
                              hub_dir=hub_dir, trust_code=trust_code)
    config = merge(load_default(), {k: v for k, v in payload["config"].items() if k in AGENT_SECTIONS})
    vec_env = None if isinstance(env, str) else env
    return build(env_id or payload.get("env_id"), config, payload, vec_env, device)


__all__ = ["AGENT_SECTIONS", "Agent", "AgentSpaces", "build", "load"]
