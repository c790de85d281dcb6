"""Published agents: the folder that `puffer push` uploads, and `hf://` addresses to load one.

A published agent is a folder holding:
- `model.safetensors`: the policy's state dict (normalization statistics included): tensors,
  nothing executable;
- `config.toml`: the training config without the keys that say where the publisher ran, logged
  and wrote (`pufferlib.train.trust.USER_KEYS`), and a `[published]` table (format version, env
  id, global step, epoch); the policy is rebuilt from it. `puffer train ENV --config config.toml` trains
  with it (the `[published]` table is skipped);
- optionally `README.md` (the model card), `replay.gif`/`replay.mp4`, `learning_curve.png` and
  `versions.json` (core, plugin and torch versions; the git commit when there was one).

`read(folder)` gives a payload shaped like a checkpoint's (`policy`, `config`, `env_id`,
`global_step`, `epoch`, no optimiser state), so every place that takes a checkpoint takes a
published agent: `pufferlib.train.checkpoint.load` hands folders and addresses over to it.

Trust: a published agent may come from a stranger. Only the files of `FILES` are ever opened
(and downloaded); other files of a folder are ignored. Before any is parsed, each present is
checked (`check_files`) to be within its size limit and to be what its name says, from its bytes:
- `model.safetensors`: a safetensors file (an 8-byte little-endian length, then a JSON object of
  that many bytes, within the file and under `MAX_HEADER_BYTES`);
- `config.toml`, `README.md`, `versions.json`: UTF-8 text without control characters other than
  tab, line feed and carriage return, and not a pickle (`pickletools.genops` does not read it
  through to a STOP: protocol 0 and 1 pickles can be such text);
- `replay.gif`, `replay.mp4`, `learning_curve.png`: the GIF signature, an MP4 `ftyp` box, the
  PNG signature (media are downloaded for people to look at, and never decoded here).
So a pickle or a torch archive (a zip) is refused under every name that is read: binary pickles
and archives fail the first two rules (not a safetensors header; not UTF-8 or holding control
bytes) and text pickles the pickle test. Only the weights (through safetensors, whose format
holds no code) and TOML are deserialized; `versions.json` is JSON; the card's front matter
(at most `MAX_FRONT_MATTER` bytes) is YAML through `yaml.SafeLoader` without anchors and
aliases (so no alias bomb can expand), and a card without front matter has no metadata.
Text from these files is printed through `pufferlib._text.printable`; a plugin name from
versions.json becomes an install hint only when it is a valid distribution name.
The config is data (`pufferlib.train.trust`, applied by `checkpoint.load` and `puffer pull`):
validated like any other, naming no code that is not installed, its user keys dropped. An env id
that is not installed names the plugin to install; a plugin version that differs from the
publisher's warns.

Addresses: `hf://ORG/NAME[@REVISION]`. With a local hub (`hub.dir` in the config, or the
`PUFFER_HUB_DIR` environment variable) the address is the folder `DIR/ORG/NAME` (a local hub
keeps one revision per repo: the last push); otherwise `huggingface_hub` downloads the repo's
known files into its cache (`HF_HUB_OFFLINE=1` reads the cache only).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import warnings
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import torch

from pufferlib._compat import tomllib
from pufferlib._text import printable
from pufferlib.errors import APIUsageError, CheckpointError, EnvNotFoundError

SCHEME = "hf://"
HUB_DIR_ENV = "PUFFER_HUB_DIR"
FORMAT = 1
MODEL, CONFIG, CARD, VERSIONS, CURVE = "model.safetensors", "config.toml", "README.md", "versions.json", \
    "learning_curve.png"
REPLAYS = ("replay.gif", "replay.mp4")
#: Every file a published agent may hold: what is downloaded, and all that is ever read.
FILES = (MODEL, CONFIG, CARD, VERSIONS, CURVE, *REPLAYS)
#: Largest size of a file (bytes): weights and replays, and the small text files.
MAX_BYTES = 2 << 30
MAX_TEXT_BYTES = 1 << 20
TEXT_FILES = (CONFIG, CARD, VERSIONS)
#: Safetensors' own bound on its JSON header, and ours on a card's front matter (bytes).
MAX_HEADER_BYTES = 100_000_000
MAX_FRONT_MATTER = 64 << 10
#: The signature each media file starts with (an MP4's `ftyp` box starts at byte 4).
_MEDIA = {"replay.gif": (0, (b"GIF87a", b"GIF89a")), "replay.mp4": (4, (b"ftyp",)),
          CURVE: (0, (b"\x89PNG\r\n\x1a\n",))}
#: What a text file may not hold: control characters other than tab, line feed and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: A distribution name (PEP 508), the only plugin name versions.json may have an install hint for.
_DISTRIBUTION = re.compile(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", re.IGNORECASE)
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")


def is_address(source: str | Path) -> bool:
    """True for an `hf://` address."""
    return str(source).startswith(SCHEME)


def is_published(folder: str | Path) -> bool:
    """True when `folder` holds a published agent (its model and config)."""
    folder = Path(folder)
    return (folder / MODEL).is_file() and (folder / CONFIG).is_file()


def parse_address(source: str) -> tuple[str, str | None]:
    """(repo id, revision or None) of `hf://ORG/NAME[@REVISION]`; APIUsageError when malformed."""
    body = source[len(SCHEME):] if is_address(source) else source
    repo_id, _, revision = body.partition("@")
    check_repo_id(repo_id)
    if "@" in body and not revision:
        raise APIUsageError(f"{source!r}: nothing after '@'; write hf://ORG/NAME@REVISION (a branch, tag or "
                            "commit), or leave the revision out for the newest.")
    return repo_id, revision or None


def check_repo_id(repo_id: str) -> None:
    """APIUsageError unless `repo_id` is ORG/NAME (letters, digits, '-', '_', '.')."""
    if not _REPO_ID.match(repo_id) or ".." in repo_id:
        raise APIUsageError(f"{repo_id!r} is not a repo id: write ORG/NAME (letters, digits, '-', '_', '.'), "
                            "e.g. my-org/ppo-ocean-breakout.")


def hub_dir(configured: str | Path | None = None) -> Path | None:
    """The local hub folder: `configured` (the config's hub.dir) or $PUFFER_HUB_DIR; None for the Hub."""
    chosen = str(configured or os.environ.get(HUB_DIR_ENV, ""))
    return Path(chosen).expanduser() if chosen else None


def local_folder(hub: Path, repo_id: str) -> Path:
    """Where `repo_id` lives in the local hub `hub`."""
    return hub / repo_id


def fetch(source: str, hub: str | Path | None = None) -> Path:
    """The local folder of the address `source`: in the local hub, or downloaded into the
    Hugging Face cache (only the files of `FILES`). APIUsageError when it cannot be had."""
    repo_id, revision = parse_address(source)
    local = hub_dir(hub)
    if local is not None:
        if revision not in (None, "main"):
            raise APIUsageError(f"{source}: the local hub {local} keeps one revision per repo (the last push); "
                                "drop '@" + str(revision) + "', or unset hub.dir / $" + HUB_DIR_ENV + " to use "
                                "the Hugging Face Hub.")
        folder = local_folder(local, repo_id)
        if not is_published(folder):
            raise APIUsageError(f"{source}: no published agent at {folder} (the local hub {local}); push one "
                                f"there with `puffer push RUN_DIR {repo_id} --hub.dir {local}`.")
        return folder
    hf = require_hub("loading hf:// addresses")
    try:
        path = hf.snapshot_download(repo_id, revision=revision, allow_patterns=list(FILES),
                                    library_name="pufferlib")
    except Exception as exc:  # network, auth, missing repo, offline without a cached copy
        offline = " (HF_HUB_OFFLINE is set: only the local cache is read)" if hf.constants.HF_HUB_OFFLINE else ""
        detail = str(exc).splitlines()[0].rstrip(". ") if str(exc) else "no detail"
        raise APIUsageError(f"{source}: cannot get it from the Hugging Face Hub{offline}: {type(exc).__name__}: "
                            f"{detail}. Check the repo id and your network or token (huggingface-cli login), "
                            "or use a local hub (hub.dir).") from None
    return Path(str(path))


def require_hub(what: str) -> Any:
    """The `huggingface_hub` module (its `constants` submodule loaded: `HF_HUB_OFFLINE` is read
    there); APIUsageError naming the extra when it is missing."""
    try:
        import huggingface_hub
        import huggingface_hub.constants  # noqa: F401 (a lazy attribute the package does not load itself)
    except ImportError:
        raise APIUsageError(f"{what.capitalize()} needs huggingface_hub: pip install 'puffer-core[hub]'.") from None
    return huggingface_hub


def _safetensors() -> Any:
    try:
        import safetensors.torch
    except ImportError:
        raise APIUsageError("Published agents are stored as safetensors: pip install 'puffer-core[hub]'.") from None
    return safetensors.torch


def check_files(folder: Path) -> None:
    """CheckpointError when a file of `FILES` in `folder` is over its size limit or is not what its
    name says (module docstring); files of other names are not opened."""
    for name in FILES:
        path = folder / name
        if not path.exists():
            continue
        if not path.is_file():
            raise CheckpointError(f"{path}: refused: not a file.")
        size = path.stat().st_size
        limit = MAX_TEXT_BYTES if name in TEXT_FILES else MAX_BYTES
        if size > limit:
            raise CheckpointError(f"{path}: refused: {size:,} bytes, over the limit of {limit:,} for this file.")
        try:
            problem = _format_problem(path, name, size)
        except OSError as exc:
            raise CheckpointError(f"{path}: cannot read it ({type(exc).__name__}: {exc}).") from None
        if problem:
            raise CheckpointError(f"{path}: refused: {problem}. A published agent's files are what their names say; "
                                  "a pickle or a torch archive, which can run code when loaded, is refused under "
                                  "any name.")


def _format_problem(path: Path, name: str, size: int) -> str | None:
    """How the file `name` of `size` bytes at `path` is not what its name says; None when it is."""
    with open(path, "rb") as f:
        if name == MODEL:
            length = int.from_bytes(f.read(8), "little")
            if size < 8 or not 2 <= length <= min(size - 8, MAX_HEADER_BYTES):
                return "not a safetensors file (its first 8 bytes are not the length of a header within the file)"
            try:
                header = json.loads(f.read(length).decode("utf-8"))
            except ValueError:  # UnicodeDecodeError too
                header = None
            return None if isinstance(header, dict) else "not a safetensors file (its header is not a JSON object)"
        if name in TEXT_FILES:
            data = f.read()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                return f"not UTF-8 text (byte {exc.start})"
            control = _CONTROL.search(text)
            if control:
                return f"not text: it holds the control character {control.group()!r} at character {control.start()}"
            return "it is a pickle" if _is_pickle(data) else None
        offset, signatures = _MEDIA[name]
        head = f.read(offset + max(map(len, signatures)))
        return None if head[offset:].startswith(signatures) else f"not a {name.rpartition('.')[2].upper()} file"


def _is_pickle(data: bytes) -> bool:
    """Whether pickle's opcodes read `data` through to a STOP (data that `pickle.loads` would take)."""
    import pickletools

    try:
        for _ in pickletools.genops(data):
            pass
    except Exception:  # genops raises ValueError and friends at the first byte that is no pickle
        return False
    return True


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{path}: cannot read it ({type(exc).__name__}: {exc}).") from None


def read_config(folder: Path) -> dict[str, Any]:
    """The config.toml of a published agent as `{"config": ..., **its [published] table}`, that
    table checked (the config is checked by `pufferlib.train.trust.from_file`)."""
    path = folder / CONFIG
    try:
        config = tomllib.loads(_read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise CheckpointError(f"{path}: malformed TOML ({exc}).") from None
    meta = config.pop("published", None)
    if not isinstance(meta, dict) or not isinstance(meta.get("env_id"), str):
        raise CheckpointError(f"{path}: no [published] table with an env_id: not a config written by `puffer push`.")
    counts = [key for key in ("global_step", "epoch") if not isinstance(meta.get(key, 0), int) or meta.get(key, 0) < 0]
    if counts:
        raise CheckpointError(f"{path}: [published] {', '.join(counts)} must be whole numbers of at least 0.")
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: published format {meta.get('format')!r}; this puffer-core reads format "
                              f"{FORMAT}. Upgrade puffer-core (pip install --upgrade puffer-core).")
    return {"config": config, **meta}


def read_card_metadata(folder: Path) -> dict[str, Any]:
    """The YAML front matter of the folder's README.md ({} without a card); CheckpointError when malformed."""
    try:
        import yaml
    except ImportError:
        raise APIUsageError("Reading a model card needs PyYAML: pip install 'puffer-core[hub]'.") from None
    path = folder / CARD
    if not path.is_file():
        return {}
    text = _read_text(path)
    match = re.match(r"^---\s*\n(.*?)\n---\s*(\n|$)", text, re.S)
    if not match:
        return {}
    front = match.group(1)
    if len(front.encode("utf-8")) > MAX_FRONT_MATTER:
        raise CheckpointError(f"{path}: refused: the card's metadata (front matter) is over {MAX_FRONT_MATTER:,} "
                              "bytes; a model card's metadata is a few lines.")
    try:
        data = yaml.load(front, Loader=_card_loader())  # a SafeLoader without anchors and aliases
    except yaml.YAMLError as exc:
        raise CheckpointError(f"{path}: malformed YAML in the card's metadata "
                              f"({printable(str(exc).splitlines()[0])}).") from None
    except RecursionError:
        raise CheckpointError(f"{path}: refused: the card's metadata is nested too deeply.") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: the card's metadata is a {type(data).__name__}, not a mapping.")
    return data


@functools.cache
def _card_loader() -> type:
    """yaml's SafeLoader that refuses anchors and aliases (`&a`, `*a`): card metadata needs none,
    and aliases of aliases expand exponentially (the "billion laughs")."""
    import yaml

    class CardLoader(yaml.SafeLoader):
        def refuse(self) -> None:
            raise yaml.MarkedYAMLError(problem="an anchor or alias (& or *), which card metadata may not use",
                                       problem_mark=self.get_mark())

        fetch_anchor = fetch_alias = refuse

    return CardLoader


def read_versions(folder: Path) -> dict[str, Any]:
    """versions.json ({} when absent); CheckpointError when malformed."""
    path = folder / VERSIONS
    if not path.is_file():
        return {}
    try:
        data = json.loads(_read_text(path))
    except ValueError as exc:
        raise CheckpointError(f"{path}: malformed JSON ({exc}).") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: not a JSON object.")
    return data


def _check_env(env_id: str, versions: Mapping[str, Any], where: str) -> None:
    """EnvNotFoundError naming the plugin when `env_id` is not installed; a warning when the
    installed plugin's version differs from the publisher's."""
    from pufferlib import registry

    plugin = versions.get("plugin")
    name, version = (plugin.get("name"), plugin.get("version")) if isinstance(plugin, dict) else (None, None)
    valid = isinstance(name, str) and _DISTRIBUTION.fullmatch(name) is not None
    try:
        spec = registry.spec(env_id)
    except EnvNotFoundError as exc:
        if valid:
            hint = f" It was published with {name} {printable(version)}: pip install {shlex.quote(str(name))}."
        else:
            hint = f" ({VERSIONS} names its plugin {printable(repr(name))}, which is not a valid package name.)" \
                if name is not None else ""
        raise EnvNotFoundError(f"{where} is an agent of {printable(repr(env_id))}, which is not installed here.{hint} "
                               f"({printable(exc.args[0] if exc.args else exc)})") from None
    installed = installed_version(spec.package) if spec.package else None
    if valid and version and installed and (spec.package != name or installed != version):
        warnings.warn(f"{where} was published with {name} {printable(version)}; {spec.package} {installed} is "
                      "installed here: the env may differ, and so may its scores.", stacklevel=3)


def installed_version(distribution: str) -> str | None:
    """The installed version of a distribution, None when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def read(folder: str | Path, source: str | None = None, map_location: Any = "cpu") -> dict[str, Any]:
    """The checkpoint-shaped payload of a published agent (see the module docstring).

    `source`: how the user named it (an address), for messages and `payload["path"]`."""
    folder = Path(folder)
    where = source or str(folder)
    if not is_published(folder):
        raise CheckpointError(f"{where}: not a published agent ({folder} lacks {MODEL} or {CONFIG}).")
    check_files(folder)
    meta = read_config(folder)
    versions = read_versions(folder)
    read_card_metadata(folder)  # a malformed card is refused, not skipped
    _check_env(meta["env_id"], versions, where)
    try:
        state = _safetensors().load_file(str(folder / MODEL), device=str(map_location))
    except Exception as exc:  # safetensors raises its own error types for a malformed file
        raise CheckpointError(f"{folder / MODEL}: cannot read the weights ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}).") from None
    return {"policy": state, "optimizers": [], "config": meta["config"], "env_id": meta["env_id"],
            "global_step": int(meta.get("global_step", 0)), "epoch": int(meta.get("epoch", 0)),
            "path": where, "published": {"folder": str(folder), "versions": versions}}


def load(source: str | Path, hub: str | Path | None = None, map_location: Any = "cpu") -> dict[str, Any]:
    """The payload of an `hf://` address or a published folder."""
    if is_address(source):
        return read(fetch(str(source), hub), str(source), map_location)
    return read(source, None, map_location)


def write(folder: str | Path, policy: Mapping[str, torch.Tensor], config: Mapping[str, Any], env_id: str,
          global_step: int = 0, epoch: int = 0) -> Path:
    """Write a policy state dict and its config (plain data, as a checkpoint holds it) as a
    published agent of `env_id` into `folder` (model.safetensors and config.toml); returns the folder."""
    from pufferlib.config import dump_toml
    from pufferlib.train import trust

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = {key: value.detach().cpu().contiguous().clone() for key, value in policy.items()
             if isinstance(value, torch.Tensor)}
    _safetensors().save_file(state, str(folder / MODEL), metadata={"format": "pt", "library": "pufferlib"})
    tree = trust.drop_user_keys(_toml_safe(dict(config)))[0]
    tree["published"] = {"format": FORMAT, "env_id": env_id, "global_step": int(global_step),
                              "epoch": int(epoch)}
    (folder / CONFIG).write_text(dump_toml(tree), encoding="utf-8")
    return folder


def _toml_safe(value: Any) -> Any:
    """`value` without what TOML cannot hold (None entries), so that dump_toml writes it."""
    if isinstance(value, Mapping):
        return {k: _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_toml_safe(v) for v in value if v is not None]
    return value


__all__ = ["FILES", "HUB_DIR_ENV", "SCHEME", "check_files", "check_repo_id", "fetch", "hub_dir", "installed_version",
           "is_address", "is_published", "load", "parse_address", "read", "read_card_metadata", "read_config",
           "read_versions", "require_hub", "write"]
