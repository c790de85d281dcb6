"""`pufferlib.check_env` and `puffer check ENV`: does an environment keep PufferLib's contract?

`check_env(env)` takes an env id, an env class or creator, a Gymnasium/PettingZoo env, a
PufferEnv, or an already vectorized env, and runs the checks of `pufferlib._env_checks` on a
small serial vector of it. It returns a `Report`: one `Check` per row with a status (pass,
fail, warn, skip), a detail and, for failures and warnings, a hint that says how to fix it.
`str(report)` is the table that `puffer check` prints; `report.ok` is False when any check
failed (`puffer check` then exits with 1).

Rows, in order: isolation (where the checks ran), spaces, return values and observations
(what the env's own reset() and step() return, before emulation casts it:
`pufferlib._env_returns`), buffers, action bounds, auto-reset (a random rollout), then, only
when that rollout ran, masks, final observations, episode stats, determinism (needs an id or
a creator: two copies are made), render modes and speed; then close.

Isolation: the env runs in a child process (multiprocessing's forkserver, or spawn where
there is none; never fork, as torch may be loaded here) and each check has `timeout`
seconds. A check that passes its deadline, or during which that process dies (a segfault,
`os._exit`), fails with what happened, and the checks after it go on in a fresh process with
what the earlier ones saw; the report is built here, so every check reports. An env that
cannot travel to a child process (a lambda, a class defined inside a function or in an
interactive session, a vectorized env) is checked in this process, and the isolation row
warns: a hang or a crash of the env then ends the caller too. As with any multiprocessing
code, the child process imports the main script again, so a script must call `check_env`
under `if __name__ == "__main__":`; without it, the child fails with multiprocessing's
message and the checks run in this process.

Raises: APIUsageError for bad arguments (`num_envs`, `steps`, `seed`, `timeout`), before
anything runs. A broken env never raises: an env that cannot be created (or a vector
without spaces) is a failed `make` check, an exception inside a check (SystemExit too) is
that check's failure, and so is a close() that raises. `report[name]` raises KeyError for a
check the report lacks.
"""

from __future__ import annotations

import faulthandler
import functools
import multiprocessing as mp
import pickle
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, NamedTuple

import numpy as np

from pufferlib._env_checks import FAIL, PASS, SKIP, STEPS, WARN, Context, Findings, Result, due
from pufferlib.errors import APIUsageError

__all__ = ["DEFAULT_TIMEOUT", "FAIL", "PASS", "SKIP", "WARN", "Check", "Report", "Result", "check_env"]

#: Seconds each check may take (`timeout=`, `puffer check --timeout`): room for slow envs
#: (a NetHack rollout, a pistonball step), short of a hang that nobody notices.
DEFAULT_TIMEOUT = 60.0
#: The index of making the env, the step before `STEPS`.
MAKE = -1
#: Seconds a child that said it is done may take to exit before it is killed.
_EXIT_GRACE = 5.0
_IMPORTABLE = ("pass an env id, or a class or function defined at module level (functools.partial for "
               "arguments), which a child process can import")


@dataclass
class Check:
    """One item of a report."""

    name: str
    status: str
    detail: str = ""
    hint: str = ""


@dataclass
class Report:
    """The result of `check_env`: `ok` unless a check failed; `str()` is the readable table."""

    target: str
    checks: list[Check] = field(default_factory=list)
    steps_per_second: float = float("nan")

    @property
    def ok(self) -> bool:
        """True unless a check failed (warnings and skips do not count)."""
        return all(c.status != FAIL for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        """The checks that failed, in report order."""
        return [c for c in self.checks if c.status == FAIL]

    def __getitem__(self, name: str) -> Check:
        """The check named `name`; KeyError naming the checks there are when none is."""
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(f"no check named {name!r}; checks: {', '.join(c.name for c in self.checks)}")

    def __str__(self) -> str:
        """The table `puffer check` prints: a row per check, its hint under a failure or warning, a total."""
        lines = [f"puffer check {self.target}"]
        for c in self.checks:
            lines.append(f"  [{c.status:>4}] {c.name:<20} {c.detail}")
            if c.hint and c.status in (FAIL, WARN):
                lines.append(f"  {'':>6} {'':<20} hint: {c.hint}")
        failed = len(self.failures)
        lines.append(f"{'FAILED' if failed else 'OK'}: {len(self.checks) - failed}/{len(self.checks)} checks "
                     f"did not fail" + (f"; {failed} failed" if failed else ""))
        return "\n".join(lines)


def check_env(env: Any, num_envs: int = 2, steps: int = 512, seed: int = 0, timeout: float = DEFAULT_TIMEOUT,
              **env_kwargs: Any) -> Report:
    """Run the contract checks on `env` (see the module docstring); returns a `Report`.

    `env`: an id, an env, an env class or creator, or a vectorized env; `env_kwargs` go to the env.
    `num_envs` env copies, `steps` random steps, `seed`; `timeout`: the seconds each check may
    take (`math.inf`: no deadline).
    """
    _check_arguments(num_envs, steps, seed, timeout)
    try:
        target = _Target.of(env, env_kwargs)
    except Exception as exc:  # an unknown id: EnvNotFoundError says what to install
        return Report(str(env), [Check("make", *_make_failure(exc))])
    run = _Run(target, _Plan(num_envs, steps, seed))
    why = run.isolated(timeout)
    if why is None:
        deadline = f"a {timeout:g} s deadline" if timeout < float("inf") else "no deadline"
        isolation = Check("isolation", PASS, f"each check ran in a child process, with {deadline}")
    else:
        since = f"from {_name(run.next)} on, " if run.rows else ""
        isolation = Check("isolation", WARN, f"{since}checks ran in this process: {why[0]}; a hang of the env "
                                             "would hang it, a crash would end it", why[1])
        _run_steps(target, run.plan, run.next, run.seen, run.record)
    return Report(target.name, [isolation, *run.rows], run.seen.steps_per_second)


def _check_arguments(num_envs: object, steps: object, seed: object, timeout: object) -> None:
    """APIUsageError naming the first bad argument and what it must be."""
    for name, value, what in (("num_envs", num_envs, "env copies"), ("steps", steps, "random steps")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise APIUsageError(f"{name} must be an int >= 1 (the {what} to check with), got {value!r}.")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise APIUsageError(f"seed must be an int in [0, 2**32) (the envs' seed; the determinism check needs one), "
                            f"got {seed!r}.")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)) \
            or not timeout > 0:
        raise APIUsageError(f"timeout must be a number of seconds > 0 (the deadline of each check; inf for none), "
                            f"got {timeout!r}.")


class _Plan(NamedTuple):
    """How to check: env copies, random steps, seed."""

    num_envs: int
    steps: int
    seed: int


@dataclass
class _Target:
    """What check_env checks, in a form that can travel to a child process (`payload`)."""

    name: str
    env: Any  # an EnvSpec (for an id), an env class or creator, an env instance, or a vectorized env
    kwargs: dict[str, Any]
    env_id: str | None = None  # the id asked for
    own_copy: bool = False  # an env instance that was copied into this (child) process

    @classmethod
    def of(cls, env: Any, kwargs: dict[str, Any]) -> _Target:
        """The target of `env`; an id is resolved here (raising what `registry.spec` raises)."""
        if isinstance(env, str):
            from pufferlib import registry

            return cls(env, registry.spec(env), kwargs, env_id=env)
        return cls(getattr(env, "__name__", repr(env)) if _is_creator(env) else type(env).__name__, env, kwargs)

    def payload(self) -> bytes | tuple[str, str]:
        """This target pickled for a child process, or (why it cannot go, how to fix that)."""
        from pufferlib.vector.base import Backend

        if isinstance(self.env, Backend):
            return ("a vectorized env stays in the process that made it",
                    "pass the env, its class or its id to check it in a child process")
        try:
            return pickle.dumps(self)
        except Exception as exc:  # noqa: BLE001 - any pickling error means the same: it cannot go
            return f"{self.name} cannot be sent to a child process ({type(exc).__name__}: {exc})", _IMPORTABLE

    def moved(self) -> None:
        """In the child process: an env instance is now a copy of its own, and the id resolves to the
        spec the parent resolved (registered here, so that ids registered in the parent work)."""
        self.own_copy = True
        if self.env_id is not None:
            from pufferlib import registry

            spec = self.env
            registry.register(self.env_id, spec.creator, kwargs=spec.kwargs, backend=spec.backend, overwrite=True)

    def context(self, plan: _Plan, seen: Findings) -> Context:
        """Make the serial vector of this target (or take the vector given) and the context of its checks."""
        from pufferlib.registry.make import emulate, make
        from pufferlib.vector.base import Backend

        env, kwargs, maker = self.env, self.kwargs, None
        if self.env_id is not None:
            env_id = self.env_id

            def maker(**extra: Any) -> Backend:
                return make(env_id, num_envs=plan.num_envs, backend="serial", seed=plan.seed, **{**kwargs, **extra})
        elif _is_creator(env) and not isinstance(env, Backend):
            def maker(**extra: Any) -> Backend:
                creator = functools.partial(env, **kwargs, **extra) if (kwargs or extra) else env
                return emulate(creator, num_envs=plan.num_envs, backend="serial", seed=plan.seed)
        if maker is not None:
            vec, owned = maker(), True
        elif isinstance(env, Backend):
            vec, owned = env, False
        else:
            vec, owned = emulate(env, num_envs=1, seed=plan.seed), self.own_copy
        try:
            return Context(vec, maker, owned, plan.steps, plan.seed, seen)
        except BaseException:
            if owned:
                vec.close()
            raise


def _is_creator(env: object) -> bool:
    """An env class or a function that makes one (as opposed to an env or a vector)."""
    return isinstance(env, type) or (callable(env) and not hasattr(env, "step"))


def _name(index: int) -> str:
    return "make" if index == MAKE else STEPS[index][0]


def _make_failure(exc: BaseException) -> Result:
    return (FAIL, f"raised {type(exc).__name__}: {exc}",
            "the env could not be created: check its id, creator and arguments")


def _guarded(check: Callable[[Context], Result], ctx: Context) -> Result:
    """What `check` returns, or its failure naming the exception it raised (SystemExit too)."""
    try:
        return check(ctx)
    except (Exception, SystemExit) as exc:  # a broken env fails its check; the report goes on
        return (FAIL, f"raised {type(exc).__name__}: {exc}",
                "fix the exception above (run the env by hand to see the traceback)")


def _run_steps(target: _Target, plan: _Plan, start: int, seen: Findings,
               emit: Callable[[tuple[Any, ...]], object]) -> None:
    """Make the env, then run the due steps from `start`, emitting ("begin", index) and ("end",
    index, result, findings) for each (index MAKE: making the env failed), then ("done",)."""
    try:
        ctx = target.context(plan, seen)
    except (Exception, SystemExit) as exc:
        emit(("end", MAKE, _make_failure(exc), seen))
    else:
        for index in range(start, len(STEPS)):
            if due(index, seen):
                emit(("begin", index))
                emit(("end", index, _guarded(STEPS[index][1], ctx), seen))
    emit(("done",))


class _Lost(NamedTuple):
    """How a child process was lost during a step: the detail and the hint of that step's failure,
    and its exit code (None: killed at the deadline)."""

    detail: str
    hint: str
    code: int | None = None


class _Run:
    """One check_env call: the rows so far, what the checks saw, and the step to run next."""

    def __init__(self, target: _Target, plan: _Plan):
        self.target, self.plan = target, plan
        self.rows: list[Check] = []
        self.seen = Findings()
        self.next = 0
        self.done = False

    def record(self, message: tuple[Any, ...]) -> None:
        """Take a message of `_run_steps` (from this process or a child): "end" and "done" count."""
        if message[0] == "end":
            _, index, result, self.seen = message
            self.rows.append(Check(_name(index), *result))
            self.next = index + 1
        elif message[0] == "done":
            self.done = True

    def isolated(self, timeout: float) -> tuple[str, str] | None:
        """Run the steps in child processes, a fresh one after each crash or deadline. None when
        every step ran; else (why, how to fix it) the steps from `self.next` on must run here."""
        payload = self.target.payload()
        if not isinstance(payload, bytes):
            return payload
        while not self.done:
            try:
                child = _Child(payload, self.plan, self.next, self.seen)
            except RuntimeError:  # multiprocessing's own words: this is a child process that runs a script
                raise  # calling check_env when imported; the parent says how to fix it and checks the env itself
            except Exception as exc:  # e.g. a daemonic process may not have children
                return f"a child process could not start ({type(exc).__name__}: {exc})", \
                    "call check_env from a process that may start child processes"
            try:
                unloadable = self._follow(child, timeout)
            finally:
                child.stop()
            if unloadable is not None:
                return unloadable
        return None

    def _follow(self, child: _Child, timeout: float) -> tuple[str, str] | None:
        """Record what `child` says until it is done or lost (a step then fails, and the next one is
        due in a fresh process). When it could not load the target: why, and how to fix it."""
        current: int | None = MAKE  # the step running in the child; None between steps
        loaded = False
        while not self.done:
            message = child.next(timeout)
            if isinstance(message, _Lost):
                if not loaded and message.code is not None and message.code >= 0:
                    # A Python error before the target loaded: multiprocessing could not prepare the child,
                    # in which it runs the main script again (a script read from stdin, or one that calls
                    # check_env when imported).
                    return (f"a child process ended before it loaded {self.target.name} (exit status "
                            f"{message.code}; its error is printed above)",
                            "call check_env under `if __name__ == '__main__':` in a script file, or use puffer check")
                self._lost(current, message)
                return None
            if message[0] == "unloadable":
                return f"{self.target.name} could not be loaded in a child process ({message[1]})", _IMPORTABLE
            loaded = True
            if message[0] == "begin":
                current = message[1]
            elif message[0] != "loaded":
                current = None
                self.record(message)
        return None

    def _lost(self, current: int | None, lost: _Lost) -> None:
        """The child died or passed its deadline in step `current` (None: between steps, so in the next
        due one): that step fails, and the run resumes after it (not after a failed make)."""
        if current is None:
            current = next((i for i in range(self.next, len(STEPS)) if due(i, self.seen)), None)
        if current is not None:
            self.rows.append(Check(_name(current), FAIL, lost.detail, lost.hint))
            self.next = current + 1
        self.done = current in (None, MAKE) or self.next >= len(STEPS)


class _Child:
    """A child process running `_child_main`, and the pipe its messages come through."""

    def __init__(self, payload: bytes, plan: _Plan, start: int, seen: Findings):
        context = _mp_context()
        self.conn, sender = context.Pipe(duplex=False)
        self.finished = False  # it said all it had to say, and exits
        self.proc = context.Process(target=_child_main, args=(sender, payload, plan, start, seen),
                                    name="puffer-check", daemon=True)
        try:
            self.proc.start()
        except BaseException:
            self.conn.close()
            raise
        finally:
            sender.close()  # the child holds the only writing end: its death is an end of file here

    def next(self, timeout: float) -> tuple[Any, ...] | _Lost:
        """The child's next message, or how it was lost: dead, or silent for `timeout` seconds."""
        deadline = time.monotonic() + timeout
        ready: list[Any] = []
        while not ready:
            left = deadline - time.monotonic()
            if left <= 0:
                return _Lost(f"did not finish within {timeout:g} s (the deadline of each check)",
                             "a step that never returns (a deadlock, an endless loop, a blocking read); if the env "
                             "is only slow, raise the deadline (timeout=..., puffer check --timeout SECONDS)")
            ready = wait([self.conn, self.proc.sentinel], min(left, 3600.0))
        if self.conn in ready:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                pass
            else:
                self.finished = message[0] in ("done", "unloadable")
                return message
        self.proc.join()
        return _exited(self.proc.exitcode)

    def stop(self) -> None:
        """Let a child that finished exit; kill it otherwise (lost, or left by an exception here), or when
        slow to exit. Close the pipe."""
        if self.finished:
            self.proc.join(_EXIT_GRACE)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def _exited(code: int | None) -> _Lost:
    """The failure of a step during which the child process ended with exit code `code`."""
    if code is not None and code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = f"exited with status {code} (os._exit() or a C exit() in the env?)"
    return _Lost(f"the env's process {how} during this check",
                 "run the env by hand under `python -X faulthandler` to see where it stops (the child process "
                 "printed the Python stack of a crash above)", code)


def _mp_context() -> Any:
    """forkserver where the platform has one (each child forks from a clean server process that has
    this module loaded: cheap), else spawn; never fork, as torch's threads may run in this process."""
    if "forkserver" in mp.get_all_start_methods():
        context = mp.get_context("forkserver")
        context.set_forkserver_preload(["__main__", __name__])  # Python's default list, and the checker
        return context
    return mp.get_context("spawn")


def _child_main(conn: Connection, payload: bytes, plan: _Plan, start: int, seen: Findings) -> None:
    """The child process: load the target, then `_run_steps`, sending each message to the parent."""
    faulthandler.enable()  # a crash prints the Python stack before the parent reports it
    try:
        target = pickle.loads(payload)
        target.moved()
    except Exception as exc:  # noqa: BLE001 - the parent checks it in its own process instead
        conn.send(("unloadable", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("loaded",))
    _run_steps(target, plan, start, seen, conn.send)

