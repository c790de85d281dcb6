"""The `minigrid-<name>` and `babyai-<name>` ids.

`minigrid-empty-8x8` is `MiniGrid-Empty-8x8-v0` and `babyai-gotolocal` is
`BabyAI-GoToLocal-v0`: the Gymnasium name without its prefix and version, lower-cased,
at its latest version. `minigrid-<name>-v<N>` picks a version explicitly.

Kept light: the listed ids are read from the text of minigrid's registration module
(found through `importlib.util.find_spec`, not imported). Ids registered in other ways
(loops, presets) and explicit versions are resolved on demand by
`resolve`, which imports minigrid when an env is actually asked for.
"""

from __future__ import annotations

import importlib.util
import re

from pufferlib import EnvSpec
from pufferlib.errors import EnvNotFoundError

PACKAGE = "puffer-minigrid"
#: Gymnasium prefix -> our id prefix.
PREFIXES = {"MiniGrid-": "minigrid-", "BabyAI-": "babyai-"}
CREATOR = "puffer_minigrid.env:make"
#: Env defaults (see puffer_minigrid.env.make), listed so that each is a config key.
KWARGS = {"mission": True, "mission_length": 128}
POLICY = "puffer_minigrid.policy:MiniGridPolicy"
#: 64 envs: the policy runs on 64 rows per step (its cost per call is mostly fixed); batches
#: of 4096 steps (64 per env) in minibatches of 1024; torch threads chosen by measured speed
#: (cpu_threads 0: the update gains from a second core on an idle machine).
#: minigrid-empty-8x8 reaches 0.95 in 100k steps.
CONFIG: dict = {
    "vec": {"num_envs": 64},
    "policy": {"hidden_size": 128},
    "train": {"total_timesteps": 1_000_000, "batch_size": 4096, "minibatch_size": 1024, "cpu_threads": 0,
              "learning_rate": 2.5e-4, "gamma": 0.99, "gae_lambda": 0.95, "ent_coef": 0.01,
              "update_epochs": 4, "clip_coef": 0.2},
}
_ID = re.compile(r'id="((?:MiniGrid|BabyAI)-[^"]+-v(\d+))"')


def split_gym_id(gym_id: str) -> tuple[str, int]:
    """`MiniGrid-Empty-8x8-v0` -> (`minigrid-empty-8x8`, 0)."""
    name, _, version = gym_id.rpartition("-v")
    for gym_prefix, prefix in PREFIXES.items():
        if name.startswith(gym_prefix):
            return prefix + name[len(gym_prefix):].lower(), int(version)
    raise ValueError(f"{gym_id!r} is not a MiniGrid or BabyAI id.")


def latest(gym_ids: list[str]) -> dict[str, str]:
    """Our id -> the Gymnasium id of its latest version."""
    best: dict[str, tuple[int, str]] = {}
    for gym_id in gym_ids:
        ours, version = split_gym_id(gym_id)
        if ours not in best or version > best[ours][0]:
            best[ours] = (version, gym_id)
    return {ours: gym_id for ours, (_, gym_id) in best.items()}


def listed_gym_ids() -> list[str]:
    """The Gymnasium ids written out in minigrid's registration module ([] without minigrid)."""
    try:
        found = importlib.util.find_spec("minigrid")
    except (ImportError, ValueError):
        return []
    if found is None or not found.origin:
        return []
    with open(found.origin, encoding="utf-8") as f:
        return [m.group(1) for m in _ID.finditer(f.read())]


def make_spec(env_id: str, gym_id: str) -> EnvSpec:
    """The spec of one id."""
    return EnvSpec(id=env_id, creator=CREATOR, kwargs={"env_name": gym_id, **KWARGS}, policy=POLICY,
                   config={k: dict(v) for k, v in CONFIG.items()}, package=PACKAGE,
                   description=f"{gym_id} (minigrid); mission as UTF-8 bytes")


def env_specs() -> list[EnvSpec]:
    """One spec per MiniGrid/BabyAI env that minigrid registers by name."""
    return [make_spec(ours, gym_id) for ours, gym_id in sorted(latest(listed_gym_ids()).items())]


def resolve(env_id: str) -> EnvSpec | None:
    """Resolve any `minigrid-`/`babyai-` id against Gymnasium's registry (imports minigrid)."""
    lowered = env_id.lower()
    if not lowered.startswith(tuple(PREFIXES.values())):
        return None
    import gymnasium

    try:
        import minigrid  # noqa: F401 - registers the envs
    except ModuleNotFoundError as exc:
        raise EnvNotFoundError(f"No environment {env_id!r}: puffer-minigrid needs minigrid, which is not "
                               "installed. pip install minigrid") from exc

    gym_ids = [k for k in gymnasium.registry if k.startswith(tuple(PREFIXES))]
    index = latest(gym_ids)
    if lowered in index:
        return make_spec(lowered, index[lowered])
    versioned = {f"{split_gym_id(g)[0]}-v{split_gym_id(g)[1]}": g for g in gym_ids}
    if lowered in versioned:
        return make_spec(lowered, versioned[lowered])
    import difflib

    close = difflib.get_close_matches(lowered, list(index), n=5, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise EnvNotFoundError(f"No MiniGrid/BabyAI env {env_id!r}.{hint} `puffer list` shows the ids.")
