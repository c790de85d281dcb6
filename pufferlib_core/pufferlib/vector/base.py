"""What every vectorization backend shares: the API, spaces, action checks, env creation.

Sync API: `reset(seed) -> (obs, infos)`, `step(actions) -> (obs, rewards, terminals,
truncations, infos)`; only when `batch_size == num_envs`.

Async API (EnvPool style): `async_reset(seed)`, then alternate `recv()` and
`send(actions)`. `recv()` returns `(obs, rewards, terminals, truncations, infos,
env_ids, masks)` for `agents_per_batch` agent rows; `env_ids` are the indices of those
rows in the full batch of `num_agents` rows (agent rows, so multi-agent envs give one id
per agent), and `send(actions)` takes one action per returned row, in the same order.
Arrays returned by `recv()` are views of the vectorizer's buffers, valid until the next
`send()`. When `writes_final_observations` is True, `final_observations[env_ids[i]]`
holds the last observation of the episode that row i ended (terminal or truncated) in
that step, valid until the next `send()` too.

Misuse fails clearly and leaves the vectorizer as it was: `send()`/`step()` check the
actions (`pufferlib.spaces.ActionCheck`) before anything changes, so a rejected batch can
be sent again; `recv()` before the first reset, and every call after `close()`, raise
APIUsageError; seeds are None or ints in [0, 2**32) on every backend (`check_seed`).
`close()` closes every env even when some raise, then raises the first error.

The protocol checks live here once, for every backend: `_check_recv()`/`_check_send()`
(one test on the hot path, the message only on failure), the action check `_act_check`
(against `_batch_act_shape` for a whole batch), `_check_open()` and `_envs_of()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from pufferlib import spaces as pspaces
from pufferlib.emulation import _Emulated, wrap
from pufferlib.environment import Buffers, PufferEnv, action_shape, game_seats_of
from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    from pufferlib.protocols import Batch, EnvCreator, Info
    from pufferlib.registry.spec import EnvSpec
    from pufferlib.spaces import ActionLayout, ObsLayout


def probe_env(creator: EnvCreator, args: tuple[object, ...], kwargs: dict[str, object]) -> tuple[PufferEnv, bool]:
    """Create one env to learn the spaces; returns (env as PufferEnv, whether it is an in-place PufferEnv).

    A creator that refuses one of `kwargs` (a TypeError naming it as an unexpected keyword argument,
    e.g. an `opponent` that a plugin's game does not take) is an APIUsageError naming the key."""
    try:
        env = creator(*args, **kwargs)
    except TypeError as exc:
        refused = [key for key in kwargs if f"unexpected keyword argument '{key}'" in str(exc)]
        if not refused:
            raise
        raise APIUsageError(f"{getattr(creator, '__name__', creator)} does not take the keyword argument "
                            f"{refused[0]!r} ({exc}): remove it (an [env] key, an --env.* flag).") from None
    if isinstance(env, PufferEnv) and not env.is_simple_style:
        return env, True
    return wrap(env), False


def create_env(creator: EnvCreator, args: tuple[object, ...], kwargs: dict[str, object], buf: Buffers,
               in_place: bool, like: EnvShape, index: int) -> PufferEnv:
    """Create env `index` bound to `buf` and check that it matches `like` (env 0, or any object with
    its spaces and num_agents).

    In-place PufferEnvs get `buf=`; other envs are emulated, checked, then moved onto `buf`.
    """
    if not in_place:
        env = wrap(creator(*args, **kwargs))
        check_matches(env, like, index)
        assert isinstance(env, _Emulated)  # not an in-place PufferEnv: wrap emulated it
        env.rebind(buf)
        return env
    try:
        made = creator(*args, buf=buf, **kwargs)
    except TypeError as exc:
        if "buf" not in str(exc):
            raise
        raise APIUsageError(
            f"{getattr(creator, '__name__', creator)} makes a PufferEnv but does not accept buf=; "
            "give its __init__ a `buf=None` parameter and pass it to super().__init__(buf).") from exc
    if not isinstance(made, PufferEnv):
        raise APIUsageError(f"Env {index} is a {type(made).__name__}, but env 0 is an in-place PufferEnv; "
                            "every env creator must make the same kind of env.")
    check_matches(made, like, index)
    return made


class EnvShape(Protocol):
    """What all vectorized envs must share with env 0: the spaces of one agent and the agent count."""

    @property
    def single_observation_space(self) -> spaces.Space[object]:
        """The observation space of one agent."""
        ...

    @property
    def single_action_space(self) -> spaces.Space[object]:
        """The action space of one agent."""
        ...

    @property
    def num_agents(self) -> int:
        """Agents per env."""
        ...


class Closable(Protocol):
    """What `close_all` closes."""

    def close(self) -> None:
        """Release what the object holds."""
        ...


#: Seeds are ints in [0, SEED_LIMIT) or None (what numpy and C envs accept alike).
SEED_LIMIT = 2**32


def refuse_options(options: dict[str, object], why: str) -> None:
    """APIUsageError naming the multiprocessing backend's options given (not None) to another
    backend, which has no such options; `why` says what that backend does instead."""
    given = sorted(k for k, v in options.items() if v is not None)
    if given:
        raise APIUsageError(f"{', '.join(given)}: option(s) of the multiprocessing backend; {why}. "
                            "Pass backend='multiprocessing' or drop them.")


def check_seed(seed: object) -> int | None:
    """`seed` as an int, or None; APIUsageError unless it is None or an int in [0, 2**32).

    Every backend checks seeds here, so a bad seed fails the same way everywhere instead of
    being truncated (1.5), wrapped (-5) or rejected by one backend only.
    """
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
            or not 0 <= seed < SEED_LIMIT:
        raise APIUsageError(f"seed must be None or an int in [0, 2**32), got {seed!r}"
                            f"{' (' + type(seed).__name__ + ')' if not isinstance(seed, int) else ''}.")
    return int(seed)


def close_all(envs: Sequence[Closable], what: str = "env") -> None:
    """Close every env, even when some fail; then raise the first failure (others are chained notes)."""
    errors: list[BaseException] = []
    for i, env in enumerate(envs):
        try:
            env.close()
        except Exception as exc:  # noqa: BLE001 - reported below, after every env had its chance
            _note(exc, f"(while closing {what} {i} of {len(envs)}; every other {what} was closed too)")
            errors.append(exc)
    if errors:
        for other in errors[1:]:
            _note(errors[0], f"{what} close() also failed: {type(other).__name__}: {other}")
        raise errors[0]


def _note(exc: BaseException, text: str) -> None:
    if hasattr(exc, "add_note"):  # Python >= 3.11
        exc.add_note(text)


def worker_envs(w: int, envs_per_worker: int) -> str:
    """The envs of worker `w` when every worker holds `envs_per_worker` envs, for messages."""
    return f"envs {w * envs_per_worker}..{(w + 1) * envs_per_worker - 1}"


def check_matches(env: PufferEnv, like: EnvShape, index: int) -> None:
    """Raise unless `env` has the spaces and agent count of `like`."""
    if (env.single_observation_space != like.single_observation_space
            or env.single_action_space != like.single_action_space
            or env.num_agents != like.num_agents):
        raise APIUsageError(
            f"Env {index} has observation {env.single_observation_space}, action "
            f"{env.single_action_space} and {env.num_agents} agents, unlike env 0 "
            f"({like.single_observation_space}, {like.single_action_space}, {like.num_agents}). "
            "All vectorized envs must match.")


class Backend:
    """Base of the vectorization backends (serial, multiprocessing, Ray, and a backend of your own
    passed as `backend=`); subclasses implement async_reset/send/recv/close. Users type their
    vectorized envs with the protocol `pufferlib.VecEnv`, which every backend meets."""

    closed = False
    seed: int | None  # the seed given at creation (set by the backend)
    spec: EnvSpec | None = None  # set by pufferlib.make on the vectorizers it makes
    driver_env: PufferEnv  # env 0 (or a probe of it): its render_mode, attributes and layouts
    obs_layout: ObsLayout | None
    action_layout: ActionLayout | None
    # The batch arrays, set by `_bind_batch` (Buffers.expose).
    observations: np.ndarray
    rewards: np.ndarray
    terminals: np.ndarray
    truncations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    final_observations: np.ndarray | None
    outcomes: np.ndarray  # games only (`game_seats`): read at the rows that end, by global row id
    players: np.ndarray  # games with built-in players only: written by self-play, read by the envs
    _out: Buffers | None = None  # the batch arrays of `_gather_rows`, made on first use

    def _init_spaces(self, driver: PufferEnv, num_envs: int, batch_size: int) -> None:
        self.num_envs = num_envs
        self.batch_size = batch_size
        self.agents_per_env = driver.num_agents
        self.num_agents = num_envs * driver.num_agents
        self.agents_per_batch = batch_size * driver.num_agents
        self.single_observation_space = driver.single_observation_space
        self.single_action_space = driver.single_action_space
        self.observation_space = pspaces.joint_space(self.single_observation_space, self.agents_per_batch)
        self.action_space = pspaces.joint_space(self.single_action_space, self.agents_per_batch)
        #: Whether the envs keep the last observation of an episode in `final_observations`
        #: (see `pufferlib.environment`): rows `env_ids` of a recv() hold it where done.
        self.writes_final_observations = bool(driver.writes_final_observations)
        #: Rows per game of an env of competitive games (see `pufferlib.environment`); 0: not a game.
        self.game_seats = game_seats_of(driver)
        #: The built-in players that can take a seat of a game (`players`, see pufferlib.environment).
        self.builtin_players = dict(getattr(driver, "builtin_players", None) or {})
        #: How to unflatten structured observations/actions (None for in-place PufferEnvs).
        self.obs_layout = driver.obs_layout
        self.action_layout = driver.action_layout
        #: The shape of the actions of one recv() batch (what `_act_check` checks them against).
        self._batch_act_shape = (self.agents_per_batch, *action_shape(self.single_action_space))
        self._act_check = pspaces.ActionCheck(self.single_action_space).check
        self._started = False  # no recv() before the first async_reset()
        self._recv_pending = False

    def _bind_batch(self, buf: Buffers) -> None:
        buf.expose(self)
        # Per batch group: fixed views of every array, so recv()/send() create no arrays.
        self._group_views = []
        for group in range(self.num_agents // self.agents_per_batch):
            rows = self._rows(group)
            ids = np.arange(rows.start, rows.stop)
            self._group_views.append((buf.observations[rows], buf.rewards[rows], buf.terminals[rows],
                                      buf.truncations[rows], ids, buf.masks[rows], buf.actions[rows]))

    def _rows(self, group: int) -> slice:
        n = self.agents_per_batch
        return slice(group * n, (group + 1) * n)

    def _check_open(self) -> None:
        """APIUsageError once the env is closed."""
        if self.closed:
            raise APIUsageError("This vectorized env is closed; create a new one.")

    def _reset_seed(self, seed: object) -> int | None:
        """The seed of an async_reset(seed): checked, or the one given at creation when None."""
        self._check_open()
        self._started = True
        return self.seed if seed is None else check_seed(seed)

    def _check_recv(self, ready: bool = True) -> None:
        """APIUsageError unless a recv() may run now: the env is open and was reset, and the last
        batch got its send(). `ready`: whether enough envs are in flight to fill a batch (for the
        backends whose envs run elsewhere)."""
        if self.closed or not self._started or self._recv_pending or not ready:  # one test on the hot path
            self._check_open()
            if not self._started:
                raise APIUsageError("recv() before any reset: call reset() or async_reset() first.")
            if self._recv_pending:
                raise APIUsageError("recv() was called twice without send(); send actions for the last batch first.")
            raise APIUsageError("recv() needs envs in flight: call async_reset() first.")

    def _check_send(self) -> None:
        """APIUsageError unless a send() may run now: the env is open and a recv() awaits its actions."""
        if self.closed or not self._recv_pending:
            self._check_open()
            raise APIUsageError("send() needs a batch to act on: call async_reset() then recv() first.")

    def _envs_of(self, w: int) -> str:
        """The envs of worker `w` (backends with workers of `envs_per_worker` envs), for messages."""
        return worker_envs(w, getattr(self, "envs_per_worker", 1))

    def _expect_recv(self, group: int) -> int:
        self._check_recv()
        self._recv_pending = True
        self._last_group = group
        return group

    def _expect_send(self) -> int:
        """The group that send() acts on; the state changes only once its actions are accepted
        (`_write_actions`), so that a rejected send() can be retried."""
        self._check_send()
        return self._last_group

    def _write_actions(self, group: int, actions: npt.ArrayLike) -> None:
        """Validate `actions` for the rows of batch group `group`, copy them into the buffer and
        mark the batch as sent (nothing changes when they are rejected)."""
        dest = self._group_views[group][6]
        dest[...] = self._act_check(actions, dest.shape)
        self._recv_pending = False

    def _gather_rows(self, rows: np.ndarray, infos: list[Info]) -> Batch:
        """A recv() batch of agent rows `rows` (any order), copied into arrays the vectorizer owns
        (reused from batch to batch): for backends whose ready rows are not one contiguous group."""
        out = self._out
        if out is None:
            out = self._out = Buffers.allocate(self.single_observation_space, self.single_action_space,
                                               self.agents_per_batch)
        for name in ("observations", "rewards", "terminals", "truncations", "masks"):
            np.take(getattr(self, name), rows, axis=0, out=getattr(out, name))
        return out.observations, out.rewards, out.terminals, out.truncations, infos, rows, out.masks

    def pending_infos(self) -> list[Info]:
        """Episode statistics the envs hold but have not reported yet, collected now (a trainer asks
        at the end of a run). An env reports them through an optional `log()` method returning an
        info dict or None, as Ocean's native envs do (they report every `log_interval` steps).
        Only envs in this process are asked: a backend whose envs live elsewhere returns []."""
        return []

    def _require_sync(self, what: str) -> None:
        if self.batch_size != self.num_envs:
            raise APIUsageError(
                f"{what}() is the synchronous API and needs batch_size == num_envs "
                f"({self.batch_size} != {self.num_envs}); use async_reset()/recv()/send().")

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[Info]]:
        """Reset every env; return (observations, infos)."""
        self._require_sync("reset")
        self._recv_pending = False
        self.async_reset(seed)
        obs, _, _, _, infos, _, _ = self.recv()
        return obs, infos

    def step(self, actions: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[Info]]:
        """Step every env; return (observations, rewards, terminals, truncations, infos)."""
        self._require_sync("step")
        self.send(actions)
        obs, rewards, terminals, truncations, infos, _, _ = self.recv()
        return obs, rewards, terminals, truncations, infos

    def async_reset(self, seed: int | None = None) -> None:
        """Reset every env; env i gets `seed + i` (`seed` defaults to the one given at creation)."""
        raise NotImplementedError

    def send(self, actions: npt.ArrayLike) -> None:
        """Act for the rows of the last `recv()`."""
        raise NotImplementedError

    def recv(self) -> Batch:
        """The next ready batch: (obs, rewards, terminals, truncations, infos, env_ids, masks)."""
        raise NotImplementedError

    def close(self) -> None:
        """Close every env; safe to call more than once."""
        raise NotImplementedError

    def __enter__(self) -> Backend:
        """The env itself: `with make(...) as env:` closes it on leaving."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the env."""
        self.close()
