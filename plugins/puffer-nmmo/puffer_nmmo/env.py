"""NMMOEnv: Neural MMO 2 (`nmmo` 2.1.2) as a PettingZoo ParallelEnv the core's emulation can flatten.

Contract:
- Agents are nmmo's players 1..num_agents; all share one Dict observation and one Dict action
  space (the emulation gives each a fixed row and flattens both).
- Observations are nmmo's own (`Tile` 225 x 3 around the agent, `Entity` 100 x 31 nearby
  players and NPCs, `Inventory`, `Market`, `Communication`, `AgentId`, `CurrentTick`), except:
  `ActionTargets` (nmmo's nested dict of 0/1 masks) becomes one flat int8 `action_mask`, in the
  order of the flattened action heads, so the trainer masks illegal choices; and `Task` (a
  4096-wide float16 task embedding, zero for the default survival task) is dropped unless
  `task_obs=True`.
- Rewards are nmmo's: the default task pays 1/horizon per tick alive; a death costs -1.
- Maps are generated in memory, from the seed of the last seeded `reset` (`num_maps` of them;
  each episode plays one, drawn by nmmo's RNG). nmmo itself writes its maps to `./maps` under the
  working directory; this adapter writes no file.
- `reset(seed=s)` seeds nmmo and the maps: the same seed and actions give the same episode.
- Infos: an agent's info is filled at the step it dies or the episode is truncated, with plain
  numbers only (see `AGENT_STATS`); averaged over the finishing agents by the trainer they are
  the population's statistics (`lifetime` is the mean agent lifetime in ticks).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from pufferlib.errors import APIUsageError

#: The nmmo release this adapter is written and tested for.
NMMO_VERSION = "2.1.2"
#: nmmo modules that call `np.in1d` (see `_give_nmmo_in1d`).
IN1D_USERS = ("nmmo.datastore.numpy_datastore", "nmmo.task.game_state", "nmmo.lib.event_log")
#: nmmo presets this adapter builds on (all game systems on, as `nmmo.config.Default`).
PRESETS = ("medium", "small")
#: The numbers an agent's final info carries (nmmo's event log and task, per agent).
AGENT_STATS = ("lifetime", "task_completed", "task_progress", "food_eaten", "water_drunk", "max_distance",
               "items_harvested", "max_level", "player_kills", "hits_scored", "gold_earned")


def _import_nmmo() -> Any:
    try:
        import nmmo
    except ImportError as exc:
        raise APIUsageError(
            "puffer-nmmo needs nmmo 2.1.2, whose published metadata blocks Python 3.11 and pins old "
            "numpy/pytest; install it as the plugin's README says: pip install --no-deps "
            "--no-build-isolation --ignore-requires-python nmmo==2.1.2 (with cython>=3 present)") from exc
    if getattr(nmmo, "__version__", None) != NMMO_VERSION:
        raise APIUsageError(f"puffer-nmmo is written for nmmo {NMMO_VERSION}; this is nmmo "
                            f"{getattr(nmmo, '__version__', '?')}: pip install --no-deps nmmo=={NMMO_VERSION}")
    _give_nmmo_in1d()
    return nmmo


def _in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> np.ndarray:
    """numpy's `in1d` (removed in numpy 2.4): `isin` over the flattened first array."""
    return np.isin(np.asarray(ar1).ravel(), ar2, assume_unique=assume_unique, invert=invert)


def _give_nmmo_in1d() -> None:
    """nmmo 2.1.2 calls `np.in1d` in three modules (its datastore queries, event log and game
    state); numpy 2.4 removed it. Where numpy lacks it, those modules get a copy of the numpy
    namespace that has it: numpy itself is left unchanged."""
    if hasattr(np, "in1d"):
        return
    import importlib
    import types

    shim = types.ModuleType(np.__name__, np.__doc__)
    shim.__dict__.update(np.__dict__)
    shim.__dict__["in1d"] = _in1d
    shim.__dict__["__getattr__"] = lambda name: getattr(np, name)  # numpy's lazily loaded submodules
    for name in IN1D_USERS:
        module = importlib.import_module(name)
        if getattr(module, "np", None) is np:
            module.np = shim


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low \
            or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise APIUsageError(f"{name} must be an int {bound}, got {value!r}.")
    return int(value)


def make_config(preset: str = "medium", num_agents: int | None = None, num_npcs: int | None = None,
                horizon: int | None = None, num_maps: int = 1) -> Any:
    """An nmmo config: the preset (`medium` is `nmmo.config.Default`; `small` is nmmo's Small map,
    64 x 64 with a 32 x 32 playable centre, with all game systems) with the given overrides.
    None keeps the preset's value (medium: 128 agents, 128 NPCs, horizon 1024; small: 64, 32, 128)."""
    if preset not in PRESETS:
        raise APIUsageError(f"preset must be one of {PRESETS}, got {preset!r}.")
    nmmo = _import_nmmo()
    from nmmo.core import config as cfg
    from nmmo.core.terrain import MapGenerator

    class _MapsInMemory(MapGenerator):
        """Generates no map files at env creation; NMMOEnv makes its maps in memory at reset."""

        def generate_all_maps(self, seed: Any = None) -> None:
            return None

    base = cfg.Medium if preset == "medium" else cfg.Small
    config = type(f"Puffer{base.__name__}", (base, cfg.AllGameSystems), {})()
    config.set("MAP_GENERATOR", _MapsInMemory)
    config.set("MAP_N", _check_int("num_maps", num_maps, 1, 1000))
    if num_agents is not None:
        config.set("PLAYER_N", _check_int("num_agents", num_agents, 1, 1024))
    if num_npcs is not None:
        config.set("NPC_N", _check_int("num_npcs", num_npcs, 0, 4096))
    if horizon is not None:
        config.set("HORIZON", _check_int("horizon", horizon, 1, config.MAX_HORIZON - 1))
    del nmmo
    return config


def _flat_mask_order(action_space: spaces.Dict) -> list[tuple[str, str]]:
    """(action, argument) pairs in the order of the flattened action heads (gymnasium Dict order)."""
    return [(atn, arg) for atn, sub in action_space.spaces.items() for arg in sub.spaces]


class NMMOEnv(ParallelEnv):
    """One Neural MMO world (see the module docstring). `preset`, `num_agents`, `num_npcs`,
    `horizon`, `num_maps`: see `make_config`. `task_obs`: keep nmmo's `Task` embedding."""

    metadata = {"render_modes": ["rgb_array"], "name": "nmmo"}

    def __init__(self, preset: str = "medium", num_agents: int | None = None, num_npcs: int | None = None,
                 horizon: int | None = None, num_maps: int = 1, task_obs: bool = False,
                 render_mode: str | None = None):
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        if not isinstance(task_obs, bool):
            raise APIUsageError(f"task_obs must be True or False, got {task_obs!r}.")
        self.config = make_config(preset, num_agents, num_npcs, horizon, num_maps)
        nmmo = _import_nmmo()
        from nmmo.lib import seeding

        self._seeding = seeding
        self.env = nmmo.Env(self.config)
        self.env._load_map_file = self._map_from_memory  # nmmo would read ./maps/<preset>/map<i>/*.npy
        self._maps: dict[int, dict[str, np.ndarray]] = {}
        self.task_obs, self.render_mode = task_obs, render_mode
        self.possible_agents: list[Hashable] = list(self.env.possible_agents)
        self.agents: list[Hashable] = []
        first = self.possible_agents[0]
        self._action_space = self.env.action_space(first)
        self._mask_order = _flat_mask_order(self._action_space)
        inner = self.env.observation_space(first).spaces
        obs = {k: v for k, v in inner.items() if k != "ActionTargets" and (task_obs or k != "Task")}
        width = sum(int(self._action_space[atn][arg].n) for atn, arg in self._mask_order)
        obs["action_mask"] = spaces.Box(0, 1, (width,), np.int8)
        self._observation_space = spaces.Dict(obs)
        self._ticks: dict[Hashable, int] = {}

    # PettingZoo API ------------------------------------------------------------------------

    def observation_space(self, agent: Hashable) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: Hashable) -> spaces.Dict:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new episode; `seed` also regenerates the maps (as do the first reset and any seedless one
        before maps exist)."""
        if seed is not None or not self._maps:
            self._generate_maps(seed)
        obs, _ = self.env.reset(seed=seed)
        self.agents = list(self.env.agents)
        self._ticks = dict.fromkeys(self.agents, 0)
        return {a: self._obs(o) for a, o in obs.items()}, {}

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terms, truncs, _ = self.env.step(actions)
        for agent in self._ticks:
            self._ticks[agent] += 1
        infos: dict[Hashable, dict] = {}
        for agent in obs:
            if terms.get(agent) or truncs.get(agent):
                infos[agent] = self._final_info(agent)
        self.agents = list(self.env.agents)
        for agent in infos:
            self._ticks.pop(agent, None)
        return ({a: self._obs(o) for a, o in obs.items()}, dict(rewards), dict(terms), dict(truncs), infos)

    def render(self) -> np.ndarray | None:
        """The map as an RGB image (one pixel a tile; players yellow, NPCs red), or None."""
        if self.render_mode is None or self.env.tile_map is None:
            return None
        palette = np.array(_PALETTE, np.uint8)
        tiles = np.clip(self.env.tile_map[:, :, 2], 0, len(palette) - 1)
        frame = palette[tiles]
        for ent, color in ((self.env.realm.players, (255, 255, 0)), (self.env.realm.npcs, (255, 0, 0))):
            for e in ent.values():
                frame[e.row.val, e.col.val] = color
        return frame

    def close(self) -> None:
        self.env.close()
        self._maps = {}

    # Internals ------------------------------------------------------------------------------

    def _generate_maps(self, seed: int | None) -> None:
        gen = self.config.MAP_GENERATOR(self.config)
        rng, _ = self._seeding.np_random(None if seed is None else int(seed) % 2 ** 32)
        maps = {}
        for idx in range(self.config.MAP_N):
            terrain, tiles = gen.generate_map(idx, rng)
            maps[idx + 1] = {"map": np.asarray(tiles).astype(int), "fractal": terrain.astype(np.float16).astype(float)}
        self._maps = maps

    def _map_from_memory(self, map_id: int | None = None) -> dict[str, np.ndarray]:
        map_id = map_id or int(self.env._np_random.integers(self.config.MAP_N)) + 1
        chosen = self._maps[map_id]
        return {k: v.copy() for k, v in chosen.items()}

    def _obs(self, obs: dict) -> dict:
        # nmmo hands out one shared dict for the observations of dead agents: build a new one
        out = {k: v for k, v in obs.items() if k != "ActionTargets" and (self.task_obs or k != "Task")}
        targets = obs["ActionTargets"]
        out["action_mask"] = np.concatenate([targets[atn][arg] for atn, arg in self._mask_order])
        return out

    def _final_info(self, agent: Hashable) -> dict[str, float]:
        from nmmo.lib.event_code import EventCode
        from nmmo.lib.event_log import EventAttr

        log = self.env.realm.event_log
        events = log.get_data(agents=[agent])
        codes = events[:, EventAttr["event"]] if len(events) else np.zeros(0)

        def count(code: int) -> float:
            return float(np.sum(codes == code))

        def most(code: int, attr: str) -> float:
            rows = events[codes == code]
            return float(rows[:, EventAttr[attr]].max()) if len(rows) else 0.0

        completed, progress = 0.0, 0.0
        tasks = self.env.agent_task_map.get(agent, [])
        if tasks:
            completed, progress = float(tasks[0].completed), float(tasks[0].progress)
        gold = events[codes == EventCode.EARN_GOLD]
        return {
            "lifetime": float(self._ticks.get(agent, 0)),
            "task_completed": completed,
            "task_progress": progress,
            "food_eaten": count(EventCode.EAT_FOOD),
            "water_drunk": count(EventCode.DRINK_WATER),
            "max_distance": most(EventCode.GO_FARTHEST, "number"),
            "items_harvested": count(EventCode.HARVEST_ITEM),
            "max_level": most(EventCode.LEVEL_UP, "level"),
            "player_kills": count(EventCode.PLAYER_KILL),
            "hits_scored": count(EventCode.SCORE_HIT),
            "gold_earned": float(gold[:, EventAttr["gold"]].sum()) if len(gold) else 0.0,
        }


#: Colours of nmmo 2.1's tile materials by index (void, water, grass, scrub, forest, stone, ...).
_PALETTE = [(0, 0, 0), (0, 0, 255), (0, 160, 0), (136, 69, 19), (34, 100, 34), (128, 128, 128),
            (136, 69, 19), (200, 120, 120), (136, 69, 19), (120, 200, 120), (136, 69, 19),
            (120, 120, 220), (136, 69, 19), (190, 240, 190), (0, 0, 200), (60, 60, 230)]


def make(preset: str = "medium", num_agents: int | None = None, num_npcs: int | None = None,
         horizon: int | None = None, num_maps: int = 1, task_obs: bool = False,
         render_mode: str | None = None) -> NMMOEnv:
    """Creator of the `nmmo-*` ids (see `NMMOEnv`)."""
    return NMMOEnv(preset=preset, num_agents=num_agents, num_npcs=num_npcs, horizon=horizon,
                   num_maps=num_maps, task_obs=task_obs, render_mode=render_mode)
