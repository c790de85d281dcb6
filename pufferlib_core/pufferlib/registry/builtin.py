"""The core's own env families: `gym-<any Gymnasium id>` and `pettingzoo-<env>`.

Registered as the plugin "core". Ids are resolved on demand; nothing is imported until
an env of the family is made.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import sys
from importlib import resources
from typing import TYPE_CHECKING, Any

from pufferlib._compat import tomllib
from pufferlib.errors import APIUsageError, EnvNotFoundError
from pufferlib.registry.hookspecs import hookimpl
from pufferlib.registry.spec import EnvSpec

if TYPE_CHECKING:
    from pettingzoo import AECEnv, ParallelEnv

    from pufferlib.protocols import GymnasiumEnv

GYM_PREFIX = "gym-"
PETTINGZOO_PREFIX = "pettingzoo-"
#: PettingZoo's family of games whose seats win, draw or lose: made through the turn-based adapter
#: (`pufferlib.turn_based`), which writes each game's outcome (`game_seats`), whatever their API.
GAMES_FAMILY = "classic/"
_VERSION = re.compile(r"^(?P<name>.+?)[-_]v(?P<version>\d+)$")


def make_gymnasium(gym_id: str, **kwargs: Any) -> GymnasiumEnv:
    """`gymnasium.make(gym_id, **kwargs)`.

    On a Linux machine without a display, a rendering env gets `MUJOCO_GL=egl` unless the user
    chose a backend: Gymnasium's MuJoCo renderer otherwise picks GLFW, which needs a display, and
    `puffer eval --video-path` of a MuJoCo env would fail on a server.
    """
    import gymnasium

    if (kwargs.get("render_mode") and sys.platform.startswith("linux") and "MUJOCO_GL" not in os.environ
            and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY")):
        os.environ["MUJOCO_GL"] = "egl"
    try:
        return gymnasium.make(gym_id, **kwargs)
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        given = ", ".join(sorted(k for k in kwargs if k != "render_mode")) or "none"
        raise APIUsageError(f"gym-{gym_id} does not take one of the keyword arguments given ({given}): "
                            f"{str(exc).splitlines()[0]}. Remove it.") from None


def make_pettingzoo(registry_id: str, opponent: str = "none", loss_penalty: float = 0.0,
                    **kwargs: object) -> ParallelEnv | AECEnv:
    """`pettingzoo.make` of a registry id: the parallel env, else the AEC env; a game of PettingZoo's
    classic family (`GAMES_FAMILY`, rps too) always the AEC env, through the turn-based adapter.

    `opponent` (`pufferlib.turn_based.OPPONENTS`): "none" makes every agent of the env an agent of
    PufferLib's; "random" or "tactical" plays every seat but one of the AEC env, turn by turn, and
    the env has one agent (`pufferlib.turn_based.TurnBasedParallelEnv`). `loss_penalty` > 0: the
    turn-based game takes it off a seat's reward when it loses (an env with the parallel API, or
    one PettingZoo converts to it, has no seats that lose: an APIUsageError).
    """
    import pettingzoo
    from pettingzoo.env_registry.exceptions import FailedToImport

    from pufferlib import turn_based

    turn_based.check_opponent(opponent)
    turn_based.check_loss_penalty(loss_penalty)
    game = registry_id.startswith(GAMES_FAMILY)  # rps too, which PettingZoo could step in parallel
    turn_by_turn = opponent != "none" or loss_penalty > 0 or game
    env_type = "aec" if turn_by_turn or registry_id not in pettingzoo.parallel_registry else "parallel"
    try:
        env = pettingzoo.make(env_type, registry_id, **kwargs)
    except (ImportError, FailedToImport) as exc:  # a game's own module missing: DependencyNotInstalled
        # (an ImportError) while it is made, FailedToImport (its ImportError the cause) while it is imported
        missing = exc.__cause__ if isinstance(exc, FailedToImport) and exc.__cause__ is not None else exc
        family = registry_id.split("/", 1)[0]
        raise APIUsageError(f"PettingZoo's {registry_id} needs its {family} extra ({missing}): "
                            f"pip install 'pettingzoo[{family}]'") from None
    if not turn_by_turn:
        return env
    if env.metadata.get("is_parallelizable", False) and opponent == "none" and not game:
        raise APIUsageError(f"loss_penalty={loss_penalty} applies to turn-based games, but {registry_id} steps all "
                            "its agents at once (it has no seat that loses). Remove --env.loss-penalty.")
    return turn_based.TurnBasedParallelEnv(env, opponent=opponent, loss_penalty=loss_penalty)


def _gym_spec(name: str) -> EnvSpec:
    import gymnasium

    registry = gymnasium.registry
    if name in registry:
        gym_id = name
    else:
        def version(key: str) -> int:
            match = _VERSION.match(key)
            return int(match["version"]) if match else -1

        wanted = name.lower()
        matches = [k for k in registry if k.lower() == wanted
                   or ((m := _VERSION.match(k)) is not None and m["name"].lower() == wanted)]
        if not matches:
            close = difflib.get_close_matches(name, list(registry), n=5, cutoff=0.5)
            hint = f" Did you mean: {', '.join(GYM_PREFIX + c for c in close)}?" if close else ""
            raise EnvNotFoundError(f"Gymnasium has no env {name!r}.{hint}")
        gym_id = max(matches, key=version)
    config = shipped_config(GYM_PREFIX + gym_id)
    return EnvSpec(GYM_PREFIX + gym_id, functools.partial(make_gymnasium, gym_id),
                   package="gymnasium", description=f"gymnasium.make({gym_id!r})",
                   policy=config.pop("spec", {}).get("policy"), config=config)


def shipped_config(env_id: str) -> dict:
    """The core's tuned default config of a family id (`pufferlib/data/envs/<id>.toml`); {} if it ships none.

    Its `[spec]` table holds EnvSpec fields rather than training settings: `policy = "module:Class"`
    names the id's default policy (`EnvSpec.policy`).
    """
    path = resources.files("pufferlib") / "data" / "envs" / f"{env_id}.toml"
    return tomllib.loads(path.read_text()) if path.is_file() else {}


def _pettingzoo_ids() -> dict[str, str]:
    """PettingZoo env name ('pistonball') and versioned name ('pistonball_v6') -> latest registry id."""
    import pettingzoo

    latest: dict[str, tuple[int, str]] = {}
    out: dict[str, str] = {}
    for registry_id in {**pettingzoo.aec_registry, **pettingzoo.parallel_registry}:
        match = _VERSION.match(registry_id.split("/", 1)[-1])
        if not match:
            continue
        name, version = match["name"], int(match["version"])
        out[f"{name}_v{version}"] = registry_id
        if name not in latest or version > latest[name][0]:
            latest[name] = (version, registry_id)
    out.update({name: registry_id for name, (_, registry_id) in latest.items()})
    return out


def _pettingzoo_spec(name: str) -> EnvSpec:
    ids = _pettingzoo_ids()
    key = name.lower().replace("-", "_")
    if key not in ids:
        names = [n for n in ids if not _VERSION.match(n)]
        close = difflib.get_close_matches(key, names, n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(PETTINGZOO_PREFIX + c.replace('_', '-') for c in close)}?" if close else ""
        raise EnvNotFoundError(f"PettingZoo has no env {name!r}.{hint}")
    # Every default is a kwarg, so that it is a config key too (`--env.opponent random`).
    return EnvSpec(PETTINGZOO_PREFIX + name, functools.partial(make_pettingzoo, ids[key]),
                   kwargs={"opponent": "none", "loss_penalty": 0.0},
                   package="pettingzoo", description=f"pettingzoo.make({ids[key]!r})")


@hookimpl
def pufferlib_env_prefixes() -> list[str]:
    return [GYM_PREFIX, PETTINGZOO_PREFIX]


@hookimpl
def pufferlib_env_specs() -> list[EnvSpec]:
    return []


@hookimpl
def pufferlib_resolve_env(env_id: str) -> EnvSpec | None:
    if env_id.startswith(GYM_PREFIX):
        return _gym_spec(env_id[len(GYM_PREFIX):])
    if env_id.startswith(PETTINGZOO_PREFIX):
        return _pettingzoo_spec(env_id[len(PETTINGZOO_PREFIX):])
    return None
