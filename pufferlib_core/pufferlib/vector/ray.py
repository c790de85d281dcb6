"""Ray vectorization: blocks of envs stepped by Ray actors, across the nodes of a Ray cluster.

`num_envs` envs are split into `num_workers` contiguous blocks of `envs_per_worker`, as in
the multiprocessing backend; each block lives in one Ray actor (placed by Ray on any node).
Two transports (TRANSPORTS), chosen once Ray has placed the actors:

- shared memory, when every actor is on the driver's node and reserves one CPU: the
  actors run the multiprocessing backend's worker loop on its shared block
  (`SharedMemoryActors`, on the pieces of `pufferlib.vector.ray_shared`); a step costs a flag, not a remote call.
- the object store, otherwise (`ObjectStoreActors`): an actor steps its block with `Serial`,
  or with `Multiprocessing` over `cpus_per_worker` processes when it asks for several cores
  (hierarchical vectorization); each step is a remote call per actor, which returns its
  block's arrays, and the driver copies them into its own buffers as blocks arrive.

`Ray(...)` (what `pufferlib.vector.make(..., backend='ray')` calls) checks the options,
starts the actors (`ActorGroup`, which also waits for their results and turns a late, failed
or dead actor into a `WorkerError`), and returns the env of the transport they allow: an
instance of one of the two classes above, both subclasses of `Ray` (and so of
`pufferlib.vector.Backend`), whose `transport` attribute names it.

The API and its contract are those of `pufferlib.vector.base` and of the multiprocessing
backend: `batch_size` is counted in envs and filled by whole actors; `recv()` returns the
actors that finished first, in actor order, with their `env_ids`; env i is reset with
`seed + i`, so results equal `Serial`'s for the same seeds and actions.

Ray: the driver uses the Ray instance this process is connected to, else connects to
`address` ('auto' or 'HOST:PORT'), else starts a local instance that binds to 127.0.0.1
only (see `connect`). Faults: an actor that raises, dies or whose node dies gives a
`WorkerError` naming the node and the envs (after at most `timeout` seconds without a result; an
actor that dies is seen within a fraction of a second on the shared-memory transport, once
Ray reports it on the object store); `close()` kills every actor.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from pufferlib.cpu.cores import usable_cores
from pufferlib.environment import Buffers
from pufferlib.errors import APIUsageError, PufferError, WorkerError
from pufferlib.vector import ray_shared
from pufferlib.vector.base import Backend, check_seed, probe_env, refuse_options, worker_envs
from pufferlib.vector.multiprocessing import Multiprocessing, check_timeout, resolve_layout
from pufferlib.vector.ray_shared import MemfdBlock, _ActorProcess, _identity, _proc_path
from pufferlib.vector.shared import Layout, WorkerSpec

if TYPE_CHECKING:
    from ray import ObjectRef

    from pufferlib.protocols import Batch, Env, EnvCreator, Info

#: What a block returns per reset/step: (obs, rewards, terminals, truncations, masks,
#: final observations or None, game outcomes or None (envs of games only), infos).
BlockResult: TypeAlias = ("tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, "
                          "np.ndarray | None, list[Info]]")

#: Ray reads this when imported: "0" makes a local instance use 127.0.0.1 as its node address.
_LOCAL_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: Ray's setting of its worker processes' niceness (Ray's default: 15).
WORKER_NICENESS_ENV = "RAY_worker_niceness"
INSTALL_HINT = "pip install 'puffer-core[ray]'"
#: Default longest wait for the actors to start and for a block's result, in seconds.
TIMEOUT_S = 300.0
#: How actions and results travel between the driver and the actors.
TRANSPORTS = {
    "auto": "shared memory when every actor is on the driver's node, else the object store",
    "shared_memory": "the multiprocessing backend's shared block and flags (pufferlib.vector.ray_shared)",
    "object_store": "a remote call per actor per step, its block's arrays through Ray's object store",
}


def _ray() -> ModuleType:
    try:
        import ray
    except ModuleNotFoundError as exc:
        if exc.name != "ray":
            raise
        raise APIUsageError(f"The 'ray' backend needs Ray, which is not installed: {INSTALL_HINT}") from exc
    return ray


def connect(address: str | None = None, num_cpus: int | None = None) -> ModuleType:
    """Connect this process to Ray, once; returns the `ray` module.

    Keeps an existing connection (e.g. your own `ray.init(...)`); else `address` ('auto'
    for the cluster started with `ray start` on this node, or 'HOST:PORT' of its head);
    else starts a local single-node instance whose servers bind to 127.0.0.1 only and whose
    workers run at this process's priority (Ray's default is nice 15; `RAY_worker_niceness`
    overrides), `num_cpus` its CPU count (default the cores this process may use), shut down
    when this process exits. The vector backend and `puffer sweep`'s Ray trials both start Ray here.
    """
    # A local instance, or one at a loopback address, stays on loopback: without this Ray
    # swaps 127.0.0.1 for the machine's network address.
    local = not address or address.rpartition(":")[0].strip("[]") in ("127.0.0.1", "localhost", "::1")
    if local and "ray" not in sys.modules:
        os.environ.setdefault(_LOCAL_ONLY_ENV, "0")
    if not address:
        # Ray starts its workers at nice 15; the actors step the envs the trainer waits for, and
        # beside a busy learner they starved (an actor's start took 85 s instead of 18 s). A
        # local instance runs them at this process's priority unless the variable says otherwise.
        os.environ.setdefault(WORKER_NICENESS_ENV, "0")
    ray = _ray()
    if ray.is_initialized():
        return ray
    if local:
        from ray._private import ray_constants  # also when ray was imported before the variable was set

        ray_constants.ENABLE_RAY_CLUSTER = False
    # A local Ray fails to start when its agents take more than Ray's fixed wait to come up (a
    # loaded machine); the second try finds their modules in the page cache.
    error: Exception | None = None
    for _attempt in range(1 if address else 2):
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(_node_ip_address="127.0.0.1", include_dashboard=False, num_cpus=num_cpus or usable_cores(),
                         log_to_driver=False)
            return ray
        except Exception as exc:  # noqa: BLE001 - Ray raises bare Exceptions on startup failures
            ray.shutdown()
            error = exc
    logs = f"{os.environ.get('RAY_TMPDIR') or os.environ.get('TMPDIR') or '/tmp'}/ray/session_latest/logs"
    raise PufferError(f"Ray did not start ({error}); see the raylet logs in {logs}.")


class _Cloudpickled:
    """A creator carried as cloudpickle bytes, so that spawned processes can unpickle lambdas."""

    def __init__(self, fn: EnvCreator):
        from ray import cloudpickle

        self.blob = cloudpickle.dumps(fn)

    def __call__(self, *args: object, **kwargs: object) -> Env:
        """Create the env, as the creator would."""
        from ray import cloudpickle

        return cloudpickle.loads(self.blob)(*args, **kwargs)


class _Block:
    """One actor's block of envs (Ray turns this class into an actor class).

    `where()` tells the driver where Ray placed it; then either `build()` creates the block's
    envs for the object-store transport, or `serve()` runs the shared-memory worker loop.
    """

    def build(self, creators: Sequence[EnvCreator], args: Sequence[tuple[object, ...]],
              kwargs: Sequence[dict[str, object]], seed_offset: int, cpus: int) -> None:
        """Object-store transport: create the block's envs (env i of the block is env
        `seed_offset + i` of the vectorized env), in `cpus` processes when given several."""
        from pufferlib import vector

        if cpus > 1 and len(creators) > 1:
            workers = max(d for d in range(1, min(cpus, len(creators)) + 1) if len(creators) % d == 0)
            # spawn: forking a process that runs Ray's threads is unsafe
            self.vec = vector.make([_Cloudpickled(c) for c in creators], list(args), list(kwargs),
                                   backend="multiprocessing", num_envs=len(creators), num_workers=workers,
                                   start_method="spawn")
        else:
            self.vec = vector.make(list(creators), list(args), list(kwargs), backend="serial",
                                   num_envs=len(creators))
        self.offset = seed_offset

    def serve(self, spec: WorkerSpec, pipe_path: str, pipe_identity: tuple[int, int]) -> None:
        """Shared-memory transport: run the worker loop over the driver's block until CLOSE."""
        ray_shared.serve(spec, pipe_path, pipe_identity)

    def where(self) -> tuple[str, str, int]:
        """(node id, node address, pid) of this actor."""
        import ray

        return ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address(), os.getpid()

    def _result(self) -> BlockResult:
        obs, rewards, terminals, truncations, infos, _, masks = self.vec.recv()
        final = self.vec.final_observations if self.vec.writes_final_observations else None
        outcomes = self.vec.outcomes if self.vec.game_seats else None
        return obs, rewards, terminals, truncations, masks, final, outcomes, infos

    def reset(self, seed: int | None) -> BlockResult:
        """Reset the block (its env i with `seed + offset + i`); return its first result."""
        self.vec.async_reset(None if seed is None else seed + self.offset)
        return self._result()

    def step(self, actions: bytes) -> BlockResult:
        """Step with the block's actions, sent as raw bytes of the actions array: a numpy
        argument costs a Ray call more to submit (figures in the CHANGELOG)."""
        self.vec.send(np.frombuffer(actions, self.vec.actions.dtype).reshape(self.vec.actions.shape))
        return self._result()

    def close(self) -> None:
        """Close the block's envs (if it built them)."""
        if hasattr(self, "vec"):
            self.vec.close()


class ActorGroup:
    """The Ray actors of one vectorized env, one per block of `envs_per_worker` envs: started
    and placed by Ray, then used by either transport.

    What both transports share: the actors' start-up and placement (`nodes`, `pids`,
    `on_this_node`), the `timeout`, how an actor is named in messages (`describe`), the
    errors of a late or dead actor (`late`, `died`), and `kill`. `get` waits for their
    results, turning a late, failed or dead actor into a `WorkerError` that names its envs
    and node (after calling `on_error`, which closes the env)."""

    def __init__(self, ray: ModuleType, num_workers: int, envs_per_worker: int, cpus_per_worker: int,
                 timeout: float | None):
        self.ray, self.envs_per_worker, self.timeout = ray, envs_per_worker, timeout
        need, have = num_workers * cpus_per_worker, ray.cluster_resources().get("CPU", 0)
        if need > have:  # the actors would wait for CPUs that the cluster does not have, up to the timeout
            raise APIUsageError(
                f"The Ray backend's {num_workers} actors reserve {cpus_per_worker} CPU(s) each ({need} in all), but "
                f"the Ray cluster has {have:g} CPUs ({ray.available_resources().get('CPU', 0):g} free). Use fewer "
                "num_workers (more envs per worker), a lower cpus_per_worker, or a cluster with more CPUs.")
        self.nodes: list[str] = []
        self.pids: list[int] = []
        actor_cls = ray.remote(num_cpus=cpus_per_worker, max_restarts=0)(_Block)
        self.handles: list = []
        try:
            self.handles = [actor_cls.remote() for _ in range(num_workers)]
            placed = self.get([a.where.remote() for a in self.handles], list(range(num_workers)), self.kill)
        except BaseException:
            self.kill()
            raise
        here = ray.get_runtime_context().get_node_id()
        #: Node of each actor: the start of its Ray node id, and its address.
        self.nodes = [f"{node[:8]} at {ip}" for node, ip, _ in placed]
        #: Process id of each actor.
        self.pids = [pid for _, _, pid in placed]
        # (a Ray Client driver is not on any node of the cluster)
        self.on_this_node = all(node == here for node, _, _ in placed) and not ray.util.client.ray.is_connected()

    def describe(self, w: int) -> str:
        """Actor `w`'s envs and node, for messages."""
        where = f"node {self.nodes[w]}" if self.nodes else "its node"
        return f"{worker_envs(w, self.envs_per_worker)} on {where}"

    def get(self, futures: list, workers: list[int], on_error: Callable[[], None]) -> list:
        """The futures' results; a failure calls `on_error` and raises WorkerError naming the block."""
        ray = self.ray
        try:
            return ray.get(futures, timeout=self.timeout)  # one call: the common case
        except ray.exceptions.GetTimeoutError:
            wait_s: float | None = 0.0  # the whole timeout has passed: the first unfinished block is late
        except ray.exceptions.RayError:
            wait_s = self.timeout  # a block failed: find it (the others may still be running)
        out = []
        for fut, w in zip(futures, workers):
            try:
                ready, _ = ray.wait([fut], timeout=wait_s)
                if not ready:
                    raise TimeoutError
                out.append(ray.get(fut))
            except TimeoutError:
                on_error()
                raise self.late(w, " (an actor also waits there while the cluster lacks the CPUs it reserves: "
                                   "see `ray status`)") from None
            except ray.exceptions.RayTaskError as exc:
                on_error()
                raise WorkerError(f"Ray actor {w} ({self.describe(w)}) raised an exception:\n\n{exc}\n\n"
                                  "The vectorized env is closed; fix the env and create a new one.") from None
            except ray.exceptions.RayError as exc:
                on_error()
                raise self.died(w, type(exc).__name__) from None
        return out

    def late(self, w: int, why: str = "") -> WorkerError:
        """The error of actor `w` sending no result within the timeout."""
        return WorkerError(f"Ray actor {w} ({self.describe(w)}) sent no result within timeout={self.timeout} s"
                           f"{why}. The vectorized env is closed.")

    def died(self, w: int, why: str) -> WorkerError:
        """The error of actor `w` having died; `why`: what is known of how (e.g. Ray's error).
        The message names the actor's pid too, once its placement is known."""
        pid = f"pid {self.pids[w]}; " if self.pids else ""
        return WorkerError(f"Ray actor {w} ({self.describe(w)}) died ({pid}{why}): the actor process or its node "
                           "ended. The vectorized env is closed; create a new one.")

    def kill(self) -> None:
        """Kill every actor (Ray ends their processes)."""
        for actor in self.handles:
            self.ray.kill(actor)


class _PicksTransport(type):
    """Metaclass of `Ray`: calling `Ray` itself starts the actors and returns the env of the
    transport they allow (see `_start`); calling a transport's class constructs it as usual."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        """`Ray(...)`: the transport's env; `SomeTransport(...)`: an instance of that class."""
        if cls is Ray:
            return _start(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    @property
    def __signature__(cls) -> inspect.Signature:
        """What calling the class takes, for `help()` and `inspect`: `Ray` takes `_start`'s
        arguments, a transport's class those of its `__init__`."""
        if cls is Ray:
            return inspect.signature(_start)
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]  # type: ignore[misc]
        return inspect.Signature(params)


class Ray(Backend, metaclass=_PicksTransport):
    """Steps `num_envs` envs in `num_workers` Ray actors (see module doc): `Ray(...)` starts the
    actors, then returns the vectorized env of the transport they allow, a `SharedMemoryActors`
    or an `ObjectStoreActors`: both subclasses of `Ray`, so `isinstance(env, Ray)` holds either
    way, and `env.transport` names the one used.

    `cpus_per_worker`: CPUs each actor reserves; above 1 it runs its block with the
    multiprocessing backend. `address`: see `connect`. `timeout`: longest wait, in seconds,
    for the actors to start and for a block's result before it counts as lost (None: wait
    forever). `transport`: how actions and results travel (see TRANSPORTS). The multiprocessing
    backend's other options (`start_method`, `init_timeout`, `zero_copy`, `spin_us`) have no
    meaning here and are refused.

    What the transports share lives here and in their `ActorGroup`: the actors' nodes and
    pids (`actor_nodes`, `actor_pids`) and how an actor is named in messages.
    """

    transport: str  # the transport's name (a key of TRANSPORTS), set by each transport's class
    _actors: ActorGroup

    def _adopt(self, actors: ActorGroup) -> None:
        """Take over the started actors (first thing a transport's __init__ does)."""
        self._actors = actors
        #: Node (the start of its Ray node id, and its address) and process id of each actor.
        self.actor_nodes, self.actor_pids = actors.nodes, actors.pids

    def _envs_of(self, w: int) -> str:
        """Actor `w`'s envs and node, for messages."""
        return self._actors.describe(w)


def _start(env_creators: Sequence[EnvCreator], env_args: Sequence[tuple[object, ...]],
           env_kwargs: Sequence[dict[str, object]], num_envs: int, batch_size: int | None = None,
           seed: int | None = 0, num_workers: int | None = None,
           envs_per_worker: int | None = None, cpus_per_worker: int = 1,
           address: str | None = None, timeout: float | None = TIMEOUT_S, transport: str = "auto",
           **options: object) -> Ray:
    """What `Ray(...)` does: check the options, connect to Ray, start the actors, and construct
    the env of the transport they allow over them (see `Ray`)."""
    refuse_options(options, "the Ray backend's actors run in Ray's own processes")
    timeout, seed = check_timeout("timeout", timeout), check_seed(seed)  # before any actor starts
    ray = _ray()
    if transport not in TRANSPORTS:
        raise APIUsageError(f"transport={transport!r} is not one of {sorted(TRANSPORTS)}: {TRANSPORTS}")
    workers, per_worker, batch_size = resolve_layout(num_envs, num_workers, envs_per_worker, batch_size)
    connect(address)
    actors = ActorGroup(ray, workers, per_worker, cpus_per_worker, timeout)
    try:
        if _choose(transport, actors.on_this_node, cpus_per_worker) == "shared_memory":

            return SharedMemoryActors(actors, env_creators, env_args, env_kwargs, num_envs, batch_size, seed)
        return ObjectStoreActors(actors, env_creators, env_args, env_kwargs, num_envs, batch_size, seed,
                                 cpus_per_worker)
    except BaseException:
        actors.kill()  # no env holds them
        raise


def _choose(transport: str, on_this_node: bool, cpus_per_worker: int) -> str:
    """The transport to use: shared memory where asked or allowed ('auto'), else the object store."""

    shared_ok = on_this_node and cpus_per_worker == 1 and ray_shared.available()
    if transport == "shared_memory" and not shared_ok:
        raise APIUsageError(
            "transport='shared_memory' needs every actor on the driver's node, cpus_per_worker=1 and "
            f"Linux (here: all on this node: {on_this_node}, cpus_per_worker={cpus_per_worker}, "
            f"platform {sys.platform}); use transport='auto' to fall back to the object store.")
    return "shared_memory" if transport != "object_store" and shared_ok else "object_store"


class ObjectStoreActors(Ray):
    """The object-store transport: each actor steps its block (`_Block.build`) and returns the
    block's arrays through Ray's object store; the driver copies them into its own buffers."""

    transport = "object_store"

    def __init__(self, actors: ActorGroup, env_creators: Sequence[EnvCreator],
                 env_args: Sequence[tuple[object, ...]], env_kwargs: Sequence[dict[str, object]],
                 num_envs: int, batch_size: int, seed: int | None, cpus_per_worker: int):
        self._adopt(actors)
        self.seed, self.timeout = check_seed(seed), actors.timeout
        self.num_workers, self.envs_per_worker = len(actors.handles), actors.envs_per_worker
        self._pending: dict[int, ObjectRef[BlockResult]] = {}   # worker -> future of its next result
        self._held: list[int] = []
        try:
            driver, _ = probe_env(env_creators[0], env_args[0], env_kwargs[0])
            driver.close()
            self.driver_env = driver
            self._init_spaces(driver, num_envs, batch_size)
            self.buffers = Buffers.allocate(self.single_observation_space, self.single_action_space,
                                            self.num_agents)
            per_worker = self.envs_per_worker
            blocks = [slice(w * per_worker, (w + 1) * per_worker) for w in range(self.num_workers)]
            self._get([actor.build.remote(env_creators[envs], env_args[envs], env_kwargs[envs], envs.start,
                                          cpus_per_worker) for actor, envs in zip(actors.handles, blocks)],
                      list(range(self.num_workers)))
            self._bind_batch(self.buffers)
        except BaseException:
            self.close()
            raise
        self._rows_per_worker = per_worker * self.agents_per_env
        self._workers_per_batch = batch_size // per_worker

    def _get(self, futures: list, workers: list[int]) -> list:
        return self._actors.get(futures, workers, self.close)

    def _store(self, w: int, result: BlockResult) -> list[Info]:
        """Copy actor w's block into the driver's buffers; return its infos."""
        obs, rewards, terminals, truncations, masks, final, outcomes, infos = result
        rows = slice(w * self._rows_per_worker, (w + 1) * self._rows_per_worker)
        buf = self.buffers
        buf.observations[rows] = obs
        buf.rewards[rows] = rewards
        buf.terminals[rows] = terminals
        buf.truncations[rows] = truncations
        buf.masks[rows] = masks
        if final is not None:
            assert buf.final_observations is not None  # Buffers.allocate made it
            buf.final_observations[rows] = final
        if outcomes is not None:
            assert buf.outcomes is not None  # Buffers.allocate made it
            buf.outcomes[rows] = outcomes
        return infos

    # ---- the async API ------------------------------------------------------------

    def async_reset(self, seed: int | None = None) -> None:
        """Reset every block (env i gets `seed + i`); results in flight are dropped."""
        seed = self._reset_seed(seed)
        if self._pending:  # results nobody will receive
            self._get(list(self._pending.values()), list(self._pending))
        self._pending = {w: actor.reset.remote(seed) for w, actor in enumerate(self._actors.handles)}
        self._recv_pending = False

    def recv(self) -> Batch:
        """The batch of the first `batch_size` envs (whole actors) to return, in actor order."""
        need = self._workers_per_batch
        self._check_recv(need <= len(self._pending))
        by_future = {fut: w for w, fut in self._pending.items()}
        if need == len(by_future):  # every block in flight is needed: no need to ask which are ready
            ready = list(by_future)
        else:
            ready, _ = self._actors.ray.wait(list(by_future), num_returns=need, timeout=self.timeout)
        if len(ready) < need:  # a failed actor's result is ready (with its error): these are late
            w = min(set(self._pending) - {by_future[f] for f in ready})
            self.close()
            raise self._actors.late(w)
        held = sorted(by_future[f] for f in ready)
        results = self._get([self._pending.pop(w) for w in held], held)
        infos: list = []
        for w, result in zip(held, results):
            infos.extend(self._store(w, result))
        self._held, self._recv_pending = held, True
        if held[-1] - held[0] + 1 == need:  # contiguous: views of the buffers
            rows = slice(held[0] * self._rows_per_worker, (held[-1] + 1) * self._rows_per_worker)
            ids = np.arange(rows.start, rows.stop)
            return (self.observations[rows], self.rewards[rows], self.terminals[rows],
                    self.truncations[rows], infos, ids, self.masks[rows])
        rows_of = [np.arange(w * self._rows_per_worker, (w + 1) * self._rows_per_worker) for w in held]
        return self._gather_rows(np.concatenate(rows_of), infos)

    def send(self, actions: npt.ArrayLike) -> None:
        """Act for the rows of the last recv(): one remote step call per actor of the batch."""
        self._check_send()
        actions = self._act_check(actions, self._batch_act_shape)
        n = self._rows_per_worker
        for i, w in enumerate(self._held):
            block = self.actions[w * n:(w + 1) * n]
            block[...] = actions[i * n:(i + 1) * n]  # in the actions' dtype, as the actor's buffer
            self._pending[w] = self._actors.handles[w].step.remote(block.tobytes())
        self._recv_pending = False

    def close(self) -> None:
        """Close every block's envs and kill its actor; safe to call more than once."""
        if self.closed:
            return
        self.closed = True
        closing = []
        for actor in self._actors.handles:
            try:
                closing.append(actor.close.remote())
            except Exception:  # noqa: BLE001 - a dead actor has nothing to close
                pass
        if closing:
            self._actors.ray.wait(closing, num_returns=len(closing), timeout=5.0)
        self._actors.kill()
        self._pending = {}


class SharedMemoryActors(Multiprocessing, Ray):
    """`Multiprocessing` whose workers are Ray actors on this node (see module doc): the
    shared-memory transport of `pufferlib.vector.ray.Ray`.

    `actors`: the started actors, one per worker (`_Block`s, whose `serve` calls `ray_shared.serve`),
    with their nodes, pids and timeout: the longest wait for a step or reset, and for the actors
    to create their envs.
    """

    transport = "shared_memory"

    def __init__(self, actors: ActorGroup, env_creators: Sequence[EnvCreator],
                 env_args: Sequence[tuple[object, ...]], env_kwargs: Sequence[dict[str, object]],
                 num_envs: int, batch_size: int | None, seed: int | None):
        self._adopt(actors)
        self._write_ends: list[int] = []
        try:
            super().__init__(env_creators, env_args, env_kwargs, num_envs, batch_size, seed,
                             num_workers=len(actors.handles), timeout=actors.timeout, init_timeout=actors.timeout)
        finally:
            self._release_fds()  # every actor has its own descriptors now (or has failed)

    def _new_block(self, nbytes: int) -> MemfdBlock:
        return MemfdBlock(nbytes)

    def _start_workers(self, creators: Sequence[EnvCreator], args: Sequence[tuple[object, ...]],
                       kwargs: Sequence[dict[str, object]], in_place: bool, layout: Layout) -> None:
        """Start each actor's worker loop (`serve`) on its block of envs, with a pipe for its messages."""
        like = SimpleNamespace(single_observation_space=self.single_observation_space,
                               single_action_space=self.single_action_space, num_agents=self.agents_per_env)
        for w, actor in enumerate(self._actors.handles):
            envs = slice(w * self.envs_per_worker, (w + 1) * self.envs_per_worker)
            spec = WorkerSpec(w, self._block, layout, creators[envs], args[envs], kwargs[envs], in_place,
                              envs.start, like, None)
            read_end, write_end = os.pipe()
            self._conns.append(Connection(read_end, writable=False))
            self._write_ends.append(write_end)
            serving = actor.serve.remote(spec, _proc_path(write_end), _identity(write_end))
            # what Multiprocessing uses of a process, _ActorProcess has
            self._procs.append(cast(Any, _ActorProcess(self._actors.ray, actor, serving, self.actor_pids[w])))

    def _release_fds(self) -> None:
        if hasattr(self, "_block"):
            self._block.release_fd()
        for fd in self._write_ends:  # from now on a dead actor's pipe reads as closed
            os.close(fd)
        self._write_ends.clear()

    def _raise_dead(self, w: int) -> None:
        proc = cast(_ActorProcess, self._procs[w])
        try:
            self._actors.ray.get(proc.serving, timeout=1.0)
            why = "its worker loop returned"
        except Exception as exc:  # noqa: BLE001 - whatever ended it goes into the message
            why = f"{type(exc).__name__}: {exc}".splitlines()[0]
        self.close()
        raise self._actors.died(w, why)

    def close(self) -> None:
        """End the worker loops, then kill the actors; safe to call more than once."""
        if self.closed:
            return
        try:
            super().close()
        finally:
            self._release_fds()
            self._actors.kill()
