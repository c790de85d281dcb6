"""MicroRTSEnv: Gym-μRTS games (Huang et al. 2021) against a built-in bot, as an in-place PufferEnv.

gym-microrts is itself a vectorized env: one Java client (`ts.JNIGridnetSharedMemVecClient` in
its microrts.jar) plays many games of one map and exchanges observations, action masks and
actions with Python through direct buffers shared with the JVM. This adapter drives that client
itself (gym-microrts' Python classes import the unmaintained `gym` only for its spaces and shut the
JVM down on `close()`, after which no env can be made again in that process), and writes into the
PufferEnv arrays: `num_games` games are the env's agent rows.

Contract:
- Observation of a row (the core's Dict emulation, flat uint8; `obs_layout` gives the leaves):
  `"obs"` (h, w, 27) one-hot feature planes per cell (hit points 5, resources 5, owner 3, unit
  type 8, current action 6), as microRTS writes them; `"action_mask"` (h*w*78,) the legal choices
  of each cell's 7 action components (1 = legal), cell after cell: what the trainer applies
  when it samples (`pufferlib.pytorch.action_mask`, one mask entry per choice of sum(nvec)).
- Action of a row: MultiDiscrete of h*w cells x [6 action types, 4 move, 4 harvest, 4 return,
  4 produce directions, 7 unit types, 49 attack targets (7x7 around the unit)] ("GridNet").
  microRTS acts only on cells that hold one of the agent's units ready for a new action; the
  choices of other cells are ignored (their masks are all 0).
- Reward: the raw rewards of microRTS' six reward functions (win/loss, resources gathered,
  workers produced, buildings built, attacks, combat units produced) weighted by
  `reward_weight`, the paper's (10, 1, 1, 0.2, 1, 4) by default.
- Ends: `terminals` when a side won; `truncations` when the game reached `max_steps` without a
  winner (microRTS calls it a tie). The Java client resets a finished game itself: the row's
  observation is then the new game's first one (no final observation is written).
- Games (`game_seats = 1`): in the step that ends a game its `outcomes` row holds 1 win,
  0 loss, 0.5 tie. Its info: `win`, `loss`, `tie` (1.0 or 0.0: averaged by the trainer they are
  rates), `episode_return`, `episode_length` and the episode's sum of each raw reward
  (`raw_<name>`).
- `reset(seed=s)` restarts every game and reseeds the bots' `java.util.Random` fields with
  s, s+1, ... (reflection); the microRTS engine itself draws no random numbers, so with the same
  seed and actions two copies play the same games (tests/microrts).
- The JVM (JPype) starts once per process, when the first env resets (not when it is made: the
  multiprocessing vectorizer makes one env in the main process to learn the spaces, then forks
  its workers, and a JVM does not survive a fork). An env stepped in a process forked from one
  whose JVM already runs raises an APIUsageError saying so.
"""

from __future__ import annotations

import difflib
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from pufferlib.environment import PufferEnv
from pufferlib.errors import APIUsageError
from pufferlib.spaces import ObsLayout

#: The built-in opponents: name -> (Java class, whether its constructor takes the unit type table).
OPPONENTS: dict[str, tuple[str, bool]] = {
    "passive": ("ai.PassiveAI", False),
    "randombiased": ("ai.RandomBiasedAI", False),
    "workerrush": ("ai.abstraction.WorkerRush", True),
    "lightrush": ("ai.abstraction.LightRush", True),
    "coac": ("ai.coac.CoacAI", True),
}
#: The names of microRTS' six reward functions, in the order of its raw reward vector.
REWARD_NAMES = ("winloss", "resources", "workers", "buildings", "attacks", "combat_units")
#: The paper's weights of those rewards (Huang et al. 2021, "Gym-μRTS", shaped reward).
REWARD_WEIGHT = (10.0, 1.0, 1.0, 0.2, 1.0, 4.0)
#: Feature planes of a cell (hit points, resources, owner, unit type, current action).
NUM_PLANES = 27
#: Choices of a cell's action components (action type, move, harvest, return, produce
#: direction, produce unit type, attack target), for microRTS' default unit type table.
CELL_NVEC = (6, 4, 4, 4, 4, 7, 49)
_JARS = ("microrts.jar", "lib/bots/Coac.jar")
#: The static `java.util.Random`s of microRTS' engine (shared by every game of the process):
#: unit conflicts, action generation, sampling.
_STATIC_RANDOMS = (("rts.GameState", "r"), ("rts.PlayerActionGenerator", "r"), ("rts.UnitAction", "r"),
                   ("util.Sampler", "generator"))
_JVM_PID: int | None = None  # the process that started the JVM through this module


def microrts_dir() -> Path:
    """The `microrts` folder of the installed gym-microrts (microrts.jar and the maps)."""
    try:
        import gym_microrts
    except ImportError as exc:
        raise ImportError("puffer-microrts needs gym-microrts 0.6.0, which declares Python < 3.10 and gym "
                          "0.21; install it without its metadata's pins: pip install --no-deps "
                          "--ignore-requires-python gym-microrts==0.6.0 (see puffer-microrts' README)") from exc
    return Path(gym_microrts.__path__[0]) / "microrts"


def map_names() -> list[str]:
    """The maps gym-microrts ships, as `map` takes them (e.g. "16x16/basesWorkers16x16")."""
    root = microrts_dir() / "maps"
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.xml"))


def _map_file(name: str) -> Path:
    root = (microrts_dir() / "maps").resolve()
    path = (root / f"{name}.xml").resolve()
    if not isinstance(name, str) or root not in path.parents or not path.is_file():
        close = difflib.get_close_matches(str(name), map_names(), n=3)
        raise APIUsageError(f"map={name!r} is not a map of gym-microrts; close: {close or 'none'} "
                            "(puffer_microrts.env.map_names() lists them).")
    return path


def _main_stack_kb() -> int:
    """The main thread's stack limit in KiB (`ulimit -s`; 8 MiB when unlimited or unknown)."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    return 8192 if soft in (resource.RLIM_INFINITY, -1) or soft <= 0 else max(soft // 1024, 1024)


def _start_jvm() -> Any:
    """Start the JVM with microrts.jar on its class path, once per process; return jpype."""
    global _JVM_PID
    import jpype
    import jpype.imports  # noqa: F401 - lets Java packages be imported

    if jpype.isJVMStarted():
        if _JVM_PID is not None and _JVM_PID != os.getpid():
            raise APIUsageError(
                f"The JVM of microRTS was started in process {_JVM_PID}, and this process ({os.getpid()}) was "
                "forked from it: a JVM does not survive a fork. Step microRTS envs only in worker processes "
                "(make them with backend='multiprocessing' before any microRTS env is reset in this process), "
                "or use start_method='spawn'.")
        return jpype
    from jpype.imports import registerDomain

    registerDomain("ts", alias="tests")  # microrts.jar's Java packages, importable from Python
    registerDomain("ai")
    registerDomain("rts")
    base = microrts_dir()
    for jar in _JARS:
        jpype.addClassPath(str(base / jar))
    # The process's signals stay Python's: without -Xrs and interrupt=False the JVM takes SIGINT,
    # SIGTERM, SIGHUP and SIGQUIT for its own shutdown (Ctrl-C or a scheduler's SIGTERM would end
    # the process at once, skipping the trainer's save and the vectorizer's cleanup).
    # -Xss: a JVM created on the main thread guards that thread's stack at -Xss (1 MB by default)
    # from the top, so native code that needs more on the main thread afterwards (Procgen's reset
    # does) dies of SIGSEGV, silently: the process keeps the whole stack its limit gives it.
    jpype.startJVM("-Djava.awt.headless=true", "-Xrs", f"-Xss{_main_stack_kb()}k", convertStrings=False,
                   interrupt=False)
    _JVM_PID = os.getpid()
    return jpype


def _seed_randoms(jpype: Any, obj: Any, seed: int) -> None:
    """Give every `java.util.Random` field of `obj` (its class and superclasses) a generator
    seeded with `seed`: microRTS' bots draw from unseeded ones."""
    random_cls = jpype.JClass("java.util.Random")
    cls = obj.getClass()
    while cls is not None:
        for field in cls.getDeclaredFields():
            if str(field.getType().getName()) == "java.util.Random":
                field.setAccessible(True)
                field.set(obj, random_cls(seed))
        cls = cls.getSuperclass()


def _direct_int_buffer(jpype: Any, count: int) -> tuple[Any, np.ndarray]:
    """A Java IntBuffer of `count` ints and the numpy array over the same memory."""
    from java.nio import ByteOrder
    from jpype.nio import convertToDirectBuffer

    jbuf = convertToDirectBuffer(bytearray(4 * count)).order(ByteOrder.nativeOrder()).asIntBuffer()
    return jbuf, np.asarray(jbuf)


class MicroRTSEnv(PufferEnv):
    """`num_games` games of `map` against the built-in bot `opponent` (see module doc).

    `max_steps`: steps after which a game ends in a tie (the paper's 2000 on 16x16 maps).
    `reward_weight`: six weights of microRTS' raw rewards (`REWARD_NAMES`).
    `render_mode="rgb_array"`: `render()` returns the first game as an RGB frame (`draw_frame`).
    """

    game_seats = 1
    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, opponent: str = "randombiased", map: str = "16x16/basesWorkers16x16",  # noqa: A002
                 num_games: int = 8, max_steps: int = 2000, reward_weight: tuple[float, ...] = REWARD_WEIGHT,
                 render_mode: str | None = None, buf: object = None):
        if opponent not in OPPONENTS:
            raise APIUsageError(f"opponent={opponent!r} is not a built-in bot; choose one of {sorted(OPPONENTS)}.")
        for name, value in (("num_games", num_games), ("max_steps", max_steps)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise APIUsageError(f"{name} must be an int >= 1, got {value!r}.")
        weights = np.asarray(reward_weight, np.float64) if not isinstance(reward_weight, str) else np.zeros(0)
        if weights.shape != (len(REWARD_NAMES),) or not np.all(np.isfinite(weights)):
            raise APIUsageError(f"reward_weight must be {len(REWARD_NAMES)} finite numbers, the weights of "
                                f"{REWARD_NAMES}; got {reward_weight!r}.")
        if render_mode not in (None, "rgb_array"):
            raise APIUsageError(f"render_mode must be None or 'rgb_array', got {render_mode!r}.")
        self.opponent, self.map, self.max_steps, self.render_mode = opponent, map, max_steps, render_mode
        self.reward_weight = weights.astype(np.float32)
        self._map_path = _map_file(map)
        root = ET.parse(self._map_path).getroot()
        self.height, self.width = int(root.get("height", 0)), int(root.get("width", 0))
        cells = self.height * self.width
        self.obs_layout = ObsLayout(spaces.Dict({
            "obs": spaces.Box(0, 1, (self.height, self.width, NUM_PLANES), np.uint8),
            "action_mask": spaces.Box(0, 1, (cells * sum(CELL_NVEC),), np.uint8)}))
        self.single_observation_space = self.obs_layout.flat_space
        self.single_action_space = spaces.MultiDiscrete(np.tile(CELL_NVEC, cells))
        self.num_agents = num_games
        super().__init__(buf)
        leaves = {leaf.path[0]: slice(leaf.offset, leaf.offset + leaf.length) for leaf in self.obs_layout.leaves}
        self._obs_cols, self._mask_cols = leaves["obs"], leaves["action_mask"]
        self._client: Any = None
        self._returns = np.zeros(num_games, np.float64)
        self._lengths = np.zeros(num_games, np.int64)
        self._raw_sums = np.zeros((num_games, len(REWARD_NAMES)), np.float64)

    def _start(self) -> None:
        """Start the JVM (once per process) and this env's Java client."""
        jpype = _start_jvm()
        from ai.core import AI
        from ai.rewardfunction import (
            AttackRewardFunction,
            ProduceBuildingRewardFunction,
            ProduceCombatUnitRewardFunction,
            ProduceWorkerRewardFunction,
            ResourceGatherRewardFunction,
            RewardFunctionInterface,
            WinLossRewardFunction,
        )
        from rts import GameState
        from rts.units import UnitTypeTable
        from ts import JNIGridnetSharedMemVecClient

        utt = UnitTypeTable()
        nvec = (6, 4, 4, 4, 4, len(utt.getUnitTypes()), (2 * int(utt.getMaxAttackRange()) + 1) ** 2)
        if nvec != CELL_NVEC or int(GameState.numFeaturePlanes) != NUM_PLANES:
            raise APIUsageError(f"This microrts.jar has {nvec} action choices and {GameState.numFeaturePlanes} "
                                f"feature planes per cell; puffer-microrts is written for {CELL_NVEC} and "
                                f"{NUM_PLANES} (gym-microrts 0.6.0).")
        n, cells = self.num_agents, self.height * self.width
        cls_name, takes_utt = OPPONENTS[self.opponent]
        bot = jpype.JClass(cls_name)
        bots = [bot(utt) if takes_utt else bot() for _ in range(n)]
        rewards = jpype.JArray(RewardFunctionInterface)([
            WinLossRewardFunction(), ResourceGatherRewardFunction(), ProduceWorkerRewardFunction(),
            ProduceBuildingRewardFunction(), AttackRewardFunction(), ProduceCombatUnitRewardFunction()])
        obs_j, obs_np = _direct_int_buffer(jpype, n * cells * NUM_PLANES)
        mask_j, mask_np = _direct_int_buffer(jpype, n * cells * sum(CELL_NVEC))
        act_j, act_np = _direct_int_buffer(jpype, n * cells * len(CELL_NVEC))
        self._obs_np, self._mask_np = obs_np.reshape(n, -1), mask_np.reshape(n, -1)
        self._act_np = act_np.reshape(n, cells * len(CELL_NVEC))
        self._client = JNIGridnetSharedMemVecClient(
            0, n, self.max_steps, rewards, str(microrts_dir()), f"maps/{self.map}.xml",
            jpype.JArray(AI)(bots), utt, False, obs_j, mask_j, act_j, 0)
        ai2 = jpype.JClass("tests.JNIGridnetSharedMemClient").class_.getDeclaredField("ai2")
        ai2.setAccessible(True)
        self._bots = [ai2.get(game) for game in self._client.clients]  # each game plays a clone of its bot
        self._zeros = [0] * n
        self._jpype = jpype

    def _write_obs(self) -> None:
        self._client.getMasks(0)
        self.observations[:, self._obs_cols] = self._obs_np
        self.observations[:, self._mask_cols] = self._mask_np

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        """Start new games; `seed` reseeds the bots (game i's bot with seed + i)."""
        if self._client is None:
            self._start()
        elif _JVM_PID != os.getpid():
            _start_jvm()  # raises: this process was forked from the one that runs this env's JVM
        self._client.reset(self._zeros)
        if seed is not None:
            random_cls = self._jpype.JClass("java.util.Random")
            for cls_name, field_name in _STATIC_RANDOMS:
                field = self._jpype.JClass(cls_name).class_.getDeclaredField(field_name)
                field.setAccessible(True)
                field.set(None, random_cls(int(seed) % 2 ** 63))
            for i, bot in enumerate(self._bots):
                _seed_randoms(self._jpype, bot, (int(seed) + 1 + i) % 2 ** 63)
        self._write_obs()
        self._returns[:], self._lengths[:], self._raw_sums[:] = 0, 0, 0
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        self.masks[:] = True
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """One step of every game; finished games restart (see module doc)."""
        if self._client is None:
            raise APIUsageError("MicroRTSEnv.step() before reset(): call reset() first.")
        self._act_np[:] = np.asarray(actions).reshape(self.num_agents, -1)
        response = self._client.gameStep(self._zeros)
        raw = np.array(response.reward, np.float64).reshape(self.num_agents, len(REWARD_NAMES))
        done = np.array(response.done, bool).reshape(self.num_agents, -1)[:, 0]
        self._write_obs()
        reward = raw @ self.reward_weight
        self.rewards[:] = reward
        self._returns += reward
        self._lengths += 1
        self._raw_sums += raw
        infos: list[dict] = []
        if done.any():
            for i in np.flatnonzero(done):
                result = raw[i, 0]  # +1 won, -1 lost, 0 tie, in the step that ends the game
                won, lost = float(result > 0), float(result < 0)
                self.outcomes[i] = 1.0 if won else 0.0 if lost else 0.5
                info = {"win": won, "loss": lost, "tie": 1.0 - won - lost,
                        "episode_return": float(self._returns[i]), "episode_length": int(self._lengths[i])}
                info.update({f"raw_{name}": float(v) for name, v in zip(REWARD_NAMES, self._raw_sums[i])})
                infos.append(info)
            self._returns[done], self._lengths[done], self._raw_sums[done] = 0, 0, 0
        decided = raw[:, 0] != 0
        self.terminals[:] = done & decided
        self.truncations[:] = done & ~decided
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def render(self) -> np.ndarray | None:
        """The first game as an RGB frame (CELL_PIXELS per cell) with render_mode="rgb_array", else None.

        Drawn from the observation (microRTS' own renderer opens a window, which a machine without
        a display cannot): resources green, bases and barracks as full squares, mobile units as
        smaller ones, the agent's in blue and the bot's in red."""
        if self.render_mode is None:
            return None
        planes = self.observations[0, self._obs_cols].reshape(self.height, self.width, NUM_PLANES)
        return draw_frame(planes)

    def close(self) -> None:
        """End this env's games (the JVM keeps running: it cannot start again in this process)."""
        if self._client is not None:
            self._client.close()
            self._client = None


#: Pixels per map cell in rendered frames.
CELL_PIXELS = 16
_OWNER_COLORS = np.array([[0, 170, 0], [60, 110, 255], [230, 60, 60]], np.uint8)  # resource/none, agent, bot


def draw_frame(planes: np.ndarray) -> np.ndarray:
    """An RGB frame of one game's (h, w, 27) feature planes (see `MicroRTSEnv.render`)."""
    height, width = planes.shape[:2]
    frame = np.full((height, width, CELL_PIXELS, CELL_PIXELS, 3), 30, np.uint8)
    unit_type = np.where(planes[..., 13:21].any(-1), planes[..., 13:21].argmax(-1), 0)
    owner = np.where(planes[..., 10:13].any(-1), planes[..., 10:13].argmax(-1), 0)
    for y, x in zip(*np.nonzero(unit_type)):
        margin = 1 if unit_type[y, x] in (1, 2, 3) else CELL_PIXELS // 4  # resource, base, barracks: full cell
        frame[y, x, margin:CELL_PIXELS - margin, margin:CELL_PIXELS - margin] = _OWNER_COLORS[owner[y, x]]
    return np.ascontiguousarray(frame.transpose(0, 2, 1, 3, 4).reshape(height * CELL_PIXELS, width * CELL_PIXELS, 3))


def make(opponent: str = "randombiased", map: str = "16x16/basesWorkers16x16", num_games: int = 8,  # noqa: A002
         max_steps: int = 2000, reward_weight: tuple[float, ...] = REWARD_WEIGHT, render_mode: str | None = None,
         buf: object = None) -> MicroRTSEnv:
    """Creator of the `microrts-*` ids (see `MicroRTSEnv`)."""
    return MicroRTSEnv(opponent=opponent, map=map, num_games=num_games, max_steps=max_steps,
                       reward_weight=reward_weight, render_mode=render_mode, buf=buf)
