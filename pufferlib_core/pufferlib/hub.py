"""Sharing trained agents: `export` builds a published agent's folder, `push` uploads it (to the
Hugging Face Hub, or to a local hub folder), `pull` downloads one. Loading is
`pufferlib.train.published` (what the folder holds and how it is read safely), reached from
every place that takes a checkpoint: `hf://ORG/NAME[@REVISION]`.

What `export` writes, besides the weights and config (`published.write`):
- `README.md`, the model card: metadata in the Hub's conventions for RL models (library_name,
  tags with the env id and `reinforcement-learning`, a model-index entry whose `mean_reward` is
  "mean +/- std" of the evaluation export runs), the evaluation's full line, the command that
  reproduces it, the command that trains such an agent, and how to load it;
- the evaluation is `puffer eval`'s, on the same settings that
  `puffer eval ENV --load-model-path hf://REPO --episodes N` uses (`evaluation.eval_base`: the
  env's defaults, the run's `[env]` with its `[eval] env` over it, which the card's command
  repeats where they differ from the env's own, seed vec.seed, sampled actions; for a game, the
  built-in player it is scored against, `--opponent`, `evaluation.with_opponent`): run on another
  machine with the same versions, it prints the card's figures;
- `replay.mp4` (`replay.gif` without ffmpeg) of env copy 0's first episode, for envs that render
  `rgb_array` frames (at most `MAX_REPLAY_FRAMES`);
- `learning_curve.png` from the run's metrics.jsonl, when the source is a run's checkpoint;
- `versions.json`: puffer-core, the env's plugin and torch versions, Python, and the git commit
  of the folder `puffer push` ran in, when it is a git checkout.

The token for uploads comes from where `huggingface_hub` looks (`HF_TOKEN`, `huggingface-cli login`),
never from an argument.

`push` checks before the (slow) evaluation whatever would fail after it: PyYAML (the card); for
the Hugging Face Hub, huggingface_hub and that `HF_HUB_OFFLINE` is unset; for a local hub, that
the folder can be written and that push may replace `DIR/ORG/NAME`. It replaces only what push
writes: that folder must resolve to `DIR/ORG/NAME` itself (no symlinked ORG or NAME leading out
of the hub) and be a published agent or empty (regular files of `published.FILES` only). The
files are staged in `.tmp_NAME` beside it and renamed into place, the old folder moved to
`.old_NAME` and removed; a push killed midway leaves those two behind, and the next push to that
repo removes them (only when they hold files of a published agent alone).
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pufferlib import __version__
from pufferlib._paths import check_writable
from pufferlib._text import printable
from pufferlib.agent import build
from pufferlib.config import load_default
from pufferlib.errors import APIUsageError, OutputError
from pufferlib.protocols import Batch, Renderable
from pufferlib.train import checkpoint, published, trust
from pufferlib.train.evaluation import EvalResult, eval_base, eval_env_config, with_opponent
from pufferlib.train.loop import play_steps
from pufferlib.train.metrics import FILE_NAME as METRICS_FILE
from pufferlib.train.playback import make_render_env, write_video

#: Frames kept of the replay (an episode longer than this is cut).
MAX_REPLAY_FRAMES = 1500
REPLAY_FPS = 30


@dataclass(frozen=True)
class Exported:
    """What `export` wrote: the folder, the files, and the evaluation on the card."""

    folder: Path
    files: list[str]
    env_id: str
    result: EvalResult
    eval_command: str


def eval_settings(env_id: str, trained: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(the config `puffer eval ENV --load-model-path CHECKPOINT` evaluates an agent trained with
    the config `trained` with, `evaluation.eval_base`; the `--env.KEY VALUE` flags that repeat, on
    its command line, the scalar env keywords where they differ from the env's own evaluation
    settings: a structured one comes from the published config.toml alone)."""
    config, own = eval_base(env_id, trained), eval_base(env_id)["env"]
    flags: list[str] = []
    for key, value in config["env"].items():
        if own.get(key) != value and isinstance(value, (bool, int, float, str)):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--env.{key.replace('_', '-')}", text]
    return config, flags


def _eval_command(env_id: str, repo_id: str, episodes: int, flags: list[str]) -> str:
    import shlex

    words = ["puffer", "eval", env_id, "--load-model-path", f"hf://{repo_id}", "--episodes", str(episodes), *flags]
    return " ".join(shlex.quote(w) for w in words)


def evaluate_published(payload: dict[str, Any], episodes: int, opponent: str | None = None,
                       ) -> tuple[EvalResult, dict[str, Any], list[str]]:
    """(the evaluation of `payload`'s agent as `puffer eval` runs it, against the built-in player
    `opponent` of a game (`evaluation.with_opponent`), the config used, its flags)."""
    env_id = str(payload["env_id"])
    config, flags = eval_settings(env_id, payload["config"])
    config, against = with_opponent(env_id, eval_env_config(config), opponent)
    flags += ["--opponent", against] if against else []
    env = make_render_env(env_id, config, None)
    try:
        agent = build(env_id, config, payload, env)
        result = agent.evaluate(env, episodes, deterministic=False, seed=config["vec"]["seed"],
                                progress="puffer push: evaluating")
    finally:
        env.close()
    return replace(result, opponent=against), config, flags


def record_replay(payload: dict[str, Any], config: dict[str, Any], folder: Path) -> Path | None:
    """Env copy 0's first episode as `folder`/replay.mp4 (or .gif); None when the env draws no frames."""
    env_id = str(payload["env_id"])
    try:
        env = make_render_env(env_id, eval_env_config(config, 1), "rgb_array")
    except (APIUsageError, TypeError) as exc:
        print(f"puffer push: no replay ({exc})", file=sys.stderr)
        return None
    frames: list[np.ndarray] = []
    try:
        if not isinstance(env, Renderable):
            return None
        agent = build(env_id, config, payload, env)
        drawn = True  # whether the env draws frames

        def step(t: int, batch: Batch) -> bool:
            nonlocal drawn
            if frames and (batch[2][0] or batch[3][0]):  # row 0's episode ended (the env reset it)
                return True
            frame = env.render()
            drawn = frame is not None
            if drawn:
                frames.append(np.asarray(frame))
            return not drawn

        with torch.random.fork_rng():
            torch.manual_seed(config["vec"]["seed"])
            play_steps(env, [agent], step, seed=config["vec"]["seed"], deterministic=False,
                       max_steps=MAX_REPLAY_FRAMES)
        if not drawn:
            return None
    except NotImplementedError:
        return None
    finally:
        env.close()
    try:
        import imageio_ffmpeg  # noqa: F401  (MP4 needs its ffmpeg)
        path = folder / "replay.mp4"
        frames = [_pad16(frame) for frame in frames]  # the video codecs' block size, without rescaling
    except ImportError:
        path = folder / "replay.gif"
    write_video(frames, str(path), REPLAY_FPS)
    return path


def _pad16(frame: np.ndarray) -> np.ndarray:
    """`frame` padded at its bottom and right edges (by repeating them) to sides of multiples of 16."""
    height, width = frame.shape[:2]
    pad = ((0, -height % 16), (0, -width % 16)) + ((0, 0),) * (frame.ndim - 2)
    return np.pad(frame, pad, mode="edge")


def versions(env_id: str) -> dict[str, Any]:
    """puffer-core, the env's plugin, torch and Python versions; the git commit of the current folder."""
    from pufferlib import registry

    package = registry.spec(env_id).package
    plugin = {"name": package, "version": published.installed_version(package)} if package else None
    found: dict[str, Any] = {"puffer-core": __version__, "plugin": plugin, "torch": torch.__version__,
                             "python": platform.python_version()}
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return found
    if commit.returncode == 0:
        found["git_commit"] = commit.stdout.strip()
        found["git_dirty"] = bool(dirty.stdout.strip())
    return found


def card(repo_id: str, payload: dict[str, Any], result: EvalResult, eval_command: str,
         files: list[str], plugin: str | None) -> str:
    """The model card: YAML metadata in the Hub's RL conventions, then what the agent is and does."""
    import yaml

    env_id = str(payload["env_id"])
    config = payload["config"]
    value = f"{result.mean:.2f} +/- {result.std:.2f}"
    metadata = {
        "library_name": "pufferlib",
        "tags": ["reinforcement-learning", "deep-reinforcement-learning", "pufferlib", env_id,
                 *([plugin] if plugin else [])],
        "model-index": [{
            "name": f"PPO-{env_id}",
            "results": [{
                "task": {"type": "reinforcement-learning", "name": "reinforcement-learning"},
                "dataset": {"name": env_id, "type": env_id},
                "metrics": [{"type": "mean_reward", "value": value, "verified": False,
                             "name": f"mean_reward against {result.opponent}" if result.opponent else "mean_reward"}],
            }],
        }],
    }
    policy = config.get("policy", {}).get("class") or "the env's default policy"
    rnn = " with an LSTM" if config.get("rnn", {}).get("enabled") else ""
    replay = next((f for f in files if f.startswith("replay.")), None)
    lines = [
        "---", yaml.safe_dump(metadata, sort_keys=False).strip(), "---", "",
        f"# PPO agent for {env_id}", "",
        f"A PPO agent ({policy}{rnn}) trained with [PufferLib](https://puffer.ai) on `{env_id}` for "
        f"{payload.get('global_step', 0):,} agent steps.", "",
        "## Evaluation", "",
        f"{result.summary()}.", "",
        f"`mean_reward` above is the mean return ± its standard deviation over those {result.episodes} episodes. "
        "Reproduce it (same versions, any machine):", "",
        "```bash", eval_command, "```", "",
    ]
    if replay:
        lines += [f"A replay of one episode: `{replay}`.", ""]
    if "learning_curve.png" in files:
        lines += ["![learning curve](learning_curve.png)", ""]
    lines += [
        "## Use it", "",
        "```python", "import pufferlib", "",
        f'agent = pufferlib.load("hf://{repo_id}")',
        "env = agent.make_env(num_envs=1)",
        "obs, _ = env.reset(seed=0)",
        "actions, state = agent.act(obs)",
        "```", "",
        "The weights are `model.safetensors` (no pickle); `config.toml` is the full training config "
        "(its `[published]` table says which env and step).", "",
        "## Train one like it", "",
        "```bash", f"puffer train {env_id} --config config.toml", "```", "",
        "`versions.json` lists the versions it was trained and evaluated with.", "",
    ]
    return "\n".join(lines)


def export(source: str | Path, folder: str | Path, repo_id: str, *, episodes: int = 10,
           data_dir: str | Path | None = None, hub_dir: str | Path | None = None, replay: bool = True,
           opponent: str | None = None) -> Exported:
    """Write the published agent of `source` (a checkpoint file, a run folder, "latest" or an
    hf:// address) into `folder`, as it will be published under `repo_id`; its card's evaluation
    plays `episodes` episodes (against the built-in player `opponent` of a game)."""
    published.check_repo_id(repo_id)
    if episodes < 1:
        raise APIUsageError(f"episodes must be at least 1, got {episodes}.")
    data_dir = data_dir if data_dir is not None else load_default()["train"]["data_dir"]
    payload = checkpoint.load(source, data_dir, hub_dir=hub_dir)
    env_id = payload.get("env_id")
    if not env_id:
        raise APIUsageError(f"{payload['path']} records no env id (a checkpoint of a PuffeRL made without one); "
                            "only a checkpoint of `puffer train ENV` can be published.")
    checkpoint.check_finite(payload)
    folder = Path(folder)
    published.write(folder, checkpoint.policy_state(dict(payload["policy"])), checkpoint.plain_data(payload["config"]),
                    env_id, payload.get("global_step", 0), payload.get("epoch", 0))
    result, config, flags = evaluate_published(payload, episodes, opponent)
    files = [published.MODEL, published.CONFIG]
    if replay:
        path = record_replay(payload, config, folder)
        files += [path.name] if path else []
    run_dir = Path(str(payload["path"])).parent
    if not published.is_address(str(payload["path"])) and (run_dir / METRICS_FILE).is_file():
        from pufferlib.plot import plot_runs

        plot_runs([run_dir], folder / published.CURVE)
        files.append(published.CURVE)
    found = versions(env_id)
    (folder / published.VERSIONS).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    files.append(published.VERSIONS)
    command = _eval_command(env_id, repo_id, episodes, flags)
    plugin = (found.get("plugin") or {}).get("name")
    (folder / published.CARD).write_text(card(repo_id, payload, result, command, files, plugin), encoding="utf-8")
    files.append(published.CARD)
    return Exported(folder, sorted(files), env_id, result, command)


def push(source: str | Path, repo_id: str, *, episodes: int = 10, data_dir: str | Path | None = None,
         hub_dir: str | Path | None = None, private: bool = False, replay: bool = True,
         commit_message: str | None = None, opponent: str | None = None) -> tuple[Exported, str]:
    """Export `source` and publish it as `repo_id`: into the local hub (`hub_dir`, or
    $PUFFER_HUB_DIR), else to the Hugging Face Hub. Returns (what was exported, where it went).
    `opponent`: `export`'s."""
    published.check_repo_id(repo_id)
    local = published.hub_dir(hub_dir)
    _require_yaml()  # the card, written after the evaluation
    if local is not None:
        _local_target(local, repo_id)  # refused now, not after the evaluation
        hf = None
    else:
        hf = published.require_hub("puffer push to the Hugging Face Hub")
        if hf.constants.HF_HUB_OFFLINE:
            raise APIUsageError("puffer push: HF_HUB_OFFLINE is set, so nothing can be uploaded to the Hugging Face "
                                "Hub: unset HF_HUB_OFFLINE, or push to a local hub folder (--hub.dir DIR or "
                                f"${published.HUB_DIR_ENV}).")
    with tempfile.TemporaryDirectory(prefix="puffer_push_") as tmp:
        exported = export(source, Path(tmp) / "agent", repo_id, episodes=episodes, data_dir=data_dir,
                          hub_dir=hub_dir, replay=replay, opponent=opponent)
        message = commit_message or f"puffer push: {exported.env_id}, {exported.result.summary()}"
        if local is not None:
            target = _local_target(local, repo_id)  # again: the folder may have changed meanwhile
            _replace(target, exported.folder)
            return Exported(target, exported.files, exported.env_id, exported.result, exported.eval_command), \
                str(target)
        assert hf is not None  # no local hub: required above
        try:
            api = hf.HfApi()
            url = api.create_repo(repo_id, private=private, exist_ok=True)
            api.upload_folder(repo_id=repo_id, folder_path=str(exported.folder), commit_message=message[:200])
        except Exception as exc:  # network, auth, permissions: huggingface_hub's many error types
            detail = str(exc).splitlines()[0].rstrip(". ") if str(exc) else "no detail"
            raise OutputError(f"puffer push: the upload of {repo_id} to the Hugging Face Hub failed "
                              f"({type(exc).__name__}: {detail}). Check your network and token "
                              "(huggingface-cli login), or push to a local hub folder (--hub.dir DIR).") from None
        return exported, str(url)


def _require_yaml() -> None:
    """APIUsageError naming the extra when PyYAML (which writes the model card) is missing."""
    try:
        import yaml  # noqa: F401
    except ImportError:
        raise APIUsageError("puffer push writes a model card, which needs PyYAML: pip install "
                            "'puffer-core[hub]'.") from None


def _local_target(hub: Path, repo_id: str) -> Path:
    """The folder `repo_id` is published to in the local hub `hub`, once push may replace it:
    APIUsageError when the hub cannot be written, when the folder lies outside the hub (a
    symlinked ORG or NAME), or when it is something else than a published agent or an empty
    folder. Stale staging folders (`_STAGING`) that an interrupted push left there are removed;
    one holding anything else is refused."""
    target = published.local_folder(hub, repo_id)
    check_writable(target.parent, "into the local hub folder")
    inside = hub.resolve() / repo_id
    if target.resolve() != inside:
        raise APIUsageError(f"puffer push: {target} resolves to {target.resolve()}, which is not {inside} inside the "
                            f"local hub folder (a symlink in the way); push writes only inside the hub: remove the "
                            "link, or choose another repo id or hub folder (--hub.dir).")
    if target.exists() and not (_push_made(target) and (published.is_published(target) or not any(target.iterdir()))):
        raise APIUsageError(f"puffer push: {target} exists and is not a published agent (it holds "
                            f"{_foreign(target)}); push replaces only a published agent or an empty folder: choose "
                            "another repo id or hub folder (--hub.dir), or move that folder away.")
    for prefix in _STAGING:
        leftover = target.parent / f"{prefix}{target.name}"
        if not (leftover.exists() or leftover.is_symlink()):
            continue
        if not _push_made(leftover):
            raise APIUsageError(f"puffer push: {leftover} is in the way and was not left by push (it holds "
                                f"{_foreign(leftover)}): move it away.")
        shutil.rmtree(leftover)
    return target


#: The folders push stages a repo's new files in and moves its old ones to, beside the repo's folder.
_STAGING = (".tmp_", ".old_")


def _push_made(folder: Path) -> bool:
    """Whether `folder` is a real folder (no symlink) that holds only files of a published agent
    (`published.FILES`, regular files): what push writes, and all it may delete."""
    return folder.is_dir() and not folder.is_symlink() and all(
        entry.name in published.FILES and entry.is_file() and not entry.is_symlink() for entry in folder.iterdir())


def _foreign(folder: Path) -> str:
    """What in `folder` push did not write, for a message."""
    if folder.is_symlink() or not folder.is_dir():
        return "a link or a file, not a folder"
    entries = [entry.name for entry in folder.iterdir()
               if entry.name not in published.FILES or not entry.is_file() or entry.is_symlink()]
    if not entries:
        return f"no {published.MODEL} and {published.CONFIG}"
    return ", ".join(printable(name) for name in sorted(entries)[:3]) + (", ..." if len(entries) > 3 else "")


def _replace(target: Path, folder: Path) -> None:
    """Put a copy of `folder` at `target` (checked by `_local_target`), replacing what is there:
    the copy is staged beside it, then renamed into place. OutputError naming the folder when it
    cannot be written."""
    staged, old = (target.parent / f"{prefix}{target.name}" for prefix in _STAGING)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(folder, staged)
        if target.exists():
            target.rename(old)
        staged.rename(target)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise OutputError(f"puffer push: cannot write {target}: {exc.strerror or exc}.") from None


def pull(repo_id: str, *, revision: str | None = None, hub_dir: str | Path | None = None) -> tuple[Path, dict]:
    """Download `repo_id` (into the Hugging Face cache, or find it in the local hub) and check it
    as a load would; returns (its folder, the card's metadata)."""
    address = f"{published.SCHEME}{repo_id}" + (f"@{revision}" if revision else "")
    folder = published.fetch(address, hub_dir)
    checkpoint.check_finite(trust.checked_payload(published.read(folder, address)))
    return folder, published.read_card_metadata(folder)


def card_score(metadata: dict[str, Any]) -> str | None:
    """The `mean_reward` of a card's model-index ("mean +/- std"), None when it has none."""
    try:
        metrics = metadata["model-index"][0]["results"][0]["metrics"]
    except (KeyError, IndexError, TypeError):
        return None
    return next((str(m.get("value")) for m in metrics if isinstance(m, dict) and m.get("type") == "mean_reward"),
                None)


__all__ = ["Exported", "MAX_REPLAY_FRAMES", "card", "card_score", "eval_settings", "evaluate_published", "export",
           "pull", "push", "record_replay", "versions"]
