"""MagentEnv: one MAgent2 scenario as a PettingZoo parallel env, for the core's PettingZoo emulation.

Contract:
- `scenario` names one of `SCENARIOS` (puffer_magent2.specs); the gridworld, its rules and its
  rewards are MAgent2's own (`magent2.environments.<scenario>.parallel_env`), with its keyword
  arguments `map_size`, `max_cycles`, `minimap_mode`, `extra_features` and the scenario's reward
  arguments passed through (each checked here; any other is refused with the allowed ones).
- Agents: MAgent2's, by its names (`red_0` ... `blue_80`); the emulation gives each a fixed row
  and masks the dead. Observations are MAgent2's (H, W, C) float32 windows, values in [0, 2];
  actions are Discrete (battle: stay, 12 moves, 8 attacks).
- `opponent` (two-team scenarios): "none" (default): every agent of both teams is a row, so
  one shared policy plays both sides; "random": only the first team's agents (`red_*`) are rows,
  and the other team acts uniformly at random (drawn from a generator seeded by `reset(seed=...)`).
- At the end of an episode (every agent done, or the rows' team wiped out) the info of one ended
  row carries the episode's tally, from the first team's side: `kills` (second-team agents
  killed), `deaths` (first-team agents killed), `win` (1 more survivors than the other team,
  0.5 as many, 0 fewer), `alive` and `enemy_alive` (survivors). One-team scenarios (gather)
  report `alive`.
- `reset(seed=s)` seeds MAgent2's gridworld (`set_seed`) and the opponent's draws: the same
  seed and actions give the same episode.
- This is not declared as a game of `game_seats` seats (pufferlib.environment): the rows of a
  team are many agents of one seat, which that contract's blocks of one row per seat cannot say.
"""

from __future__ import annotations

import importlib
import numbers
from typing import Any

import numpy as np
from pettingzoo.utils.env import ParallelEnv

from puffer_magent2.specs import SCENARIOS
from pufferlib.errors import APIUsageError

#: The keyword arguments every scenario takes (besides its reward arguments in SCENARIOS).
COMMON_KWARGS = ("scenario", "opponent", "map_size", "max_cycles", "minimap_mode", "extra_features", "render_mode")
OPPONENTS = ("none", "random")


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise APIUsageError(f"{name} must be an int in [{low}, {high}], got {value!r}.")


class MagentEnv(ParallelEnv):
    """One MAgent2 scenario (see the module docstring for the contract)."""

    metadata = {"render_modes": ["rgb_array"], "name": "magent2", "is_parallelizable": True}

    def __init__(self, scenario: str = "battle", opponent: str = "none", render_mode: str | None = None,
                 **magent_kwargs: Any):
        if not isinstance(scenario, str) or scenario not in SCENARIOS:
            raise APIUsageError(f"scenario must be one of {', '.join(SCENARIOS)}; got {scenario!r}.")
        module, _, reward_names, teams = SCENARIOS[scenario]
        allowed = ("map_size", "max_cycles", "minimap_mode", "extra_features", *reward_names)
        unknown = sorted(set(magent_kwargs) - set(allowed))
        if unknown:
            raise APIUsageError(f"magent2-{scenario} does not take {', '.join(unknown)}; it takes only: "
                                f"{', '.join(COMMON_KWARGS[:2] + allowed + ('render_mode',))}.")
        if opponent not in OPPONENTS:
            raise APIUsageError(f"opponent must be one of {', '.join(map(repr, OPPONENTS))}; got {opponent!r}.")
        if opponent != "none" and not teams:
            raise APIUsageError(f"magent2-{scenario} has one team: it takes no opponent (leave it 'none').")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        for name in ("map_size", "max_cycles"):
            if name in magent_kwargs:
                _check_int(name, magent_kwargs[name], 12 if name == "map_size" else 1, 10_000 if name == "map_size"
                           else 10 ** 7)
        for name in ("minimap_mode", "extra_features"):
            if name in magent_kwargs and not isinstance(magent_kwargs[name], (bool, np.bool_)):
                raise APIUsageError(f"{name} must be True or False, got {magent_kwargs[name]!r}.")
        for name in reward_names:
            value = magent_kwargs.get(name, 0.0)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
                raise APIUsageError(f"{name} must be a finite number, got {value!r}.")
        self.scenario, self.opponent, self.render_mode = scenario, opponent, render_mode
        self.env = importlib.import_module(module).parallel_env(render_mode=render_mode, **magent_kwargs)
        self.teams = teams
        learners = [a for a in self.env.possible_agents if opponent == "none" or a.startswith(teams[0] + "_")]
        self.possible_agents = learners
        self._learner = frozenset(learners)
        self._others = [a for a in self.env.possible_agents if a not in self._learner]
        self._team_size = {team: sum(a.startswith(team + "_") for a in self.env.possible_agents) for team in teams}
        self._num_actions = int(self.env.action_space(self.env.possible_agents[-1]).n)
        self._rng = np.random.default_rng()
        self.agents: list[str] = []

    def observation_space(self, agent: str):
        """MAgent2's (H, W, C) float32 window of `agent`."""
        return self.env.observation_space(agent)

    def action_space(self, agent: str):
        """MAgent2's Discrete actions of `agent`."""
        return self.env.action_space(agent)

    def _keep(self, per_agent: dict) -> dict:
        return per_agent if self.opponent == "none" else {a: v for a, v in per_agent.items() if a in self._learner}

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new episode; with `seed`, MAgent2's gridworld and the opponent's draws restart from it."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        obs, infos = self.env.reset(seed=seed)
        self.agents = [a for a in self.env.agents if a in self._learner]
        return self._keep(obs), self._keep(infos)

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        """Step every agent: the rows' actions, and the random opponent's for the other team."""
        if self.opponent != "none":
            alive = [a for a in self.env.agents if a not in self._learner]
            actions = {**actions, **dict(zip(alive, self._rng.integers(0, self._num_actions, len(alive)).tolist()))}
        obs, rewards, terms, truncs, infos = self.env.step(actions)
        obs, rewards, terms, truncs, infos = (self._keep(d) for d in (obs, rewards, terms, truncs, infos))
        self.agents = [a for a in self.env.agents if a in self._learner]
        if not self.agents and infos:
            infos[next(iter(infos))] = self._tally()
        return obs, rewards, terms, truncs, infos

    def _tally(self) -> dict[str, float]:
        """The ended episode's kills, deaths, win and survivors, from the first team's side."""
        grid = self.env.env
        alive = [int(grid.get_num(handle)) for handle in self.env.handles]
        if not self.teams:
            return {"alive": float(sum(alive))}
        ours, theirs = alive[0], alive[1]
        first, second = self.teams
        return {"kills": float(self._team_size[second] - theirs), "deaths": float(self._team_size[first] - ours),
                "win": 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0,
                "alive": float(ours), "enemy_alive": float(theirs)}

    def render(self) -> Any:
        """MAgent2's rendering of the map (render_mode="rgb_array"), else None."""
        return self.env.render()

    def close(self) -> None:
        """Close MAgent2's env (its renderer, if any)."""
        self.env.close()


def make(scenario: str = "battle", opponent: str = "none", render_mode: str | None = None,
         **magent_kwargs: Any) -> MagentEnv:
    """Creator of the `magent2-*` ids (see `MagentEnv`); refuses keyword arguments the scenario does not take."""
    return MagentEnv(scenario=scenario, opponent=opponent, render_mode=render_mode, **magent_kwargs)
