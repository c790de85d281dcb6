"""Readers of the loggers' local records, to check what was logged without any network."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

WANDB_HEADER = 7  # b":W&B", a 2-byte magic, a 1-byte version
BLOCK = 32768     # the .wandb file is a LevelDB-style log: 32 KiB blocks of framed fragments
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def wandb_records(path: Path) -> list:
    """Every protobuf Record of a wandb `run-*.wandb` file."""
    from wandb.proto import wandb_internal_pb2 as pb

    data = path.read_bytes()
    assert data[:4] == b":W&B", "not a wandb record file"
    records, fragment, pos = [], b"", WANDB_HEADER
    while pos + 7 <= len(data):
        left = BLOCK - pos % BLOCK
        if left < 7:  # block trailer too small for a frame header: padding
            pos += left
            continue
        _, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        pos += 7
        if kind == 0:
            break
        fragment += data[pos:pos + length]
        pos += length
        if kind in (FULL, LAST):
            record = pb.Record()
            record.ParseFromString(fragment)
            records.append(record)
            fragment = b""
    return records


def wandb_history(run_dir: Path, min_rows: int = 1, timeout: float = 30.0) -> tuple[list[dict], dict, list[str]]:
    """(history rows, config, artifact names) of every wandb run file under `run_dir`.

    wandb's service process writes the offline file after `run.finish()` has returned, now and
    then: the files are read again until they hold `min_rows` rows with SPS, for `timeout` s.
    """
    deadline = time.monotonic() + timeout
    while True:
        rows, config, artifacts = _wandb_history(run_dir)
        if sum("SPS" in row for row in rows) >= min_rows or time.monotonic() > deadline:
            return rows, config, artifacts
        time.sleep(0.2)


def _wandb_history(run_dir: Path) -> tuple[list[dict], dict, list[str]]:
    rows, config, artifacts = [], {}, []
    for path in sorted(run_dir.rglob("run-*.wandb")):
        for record in wandb_records(path):
            kind = record.WhichOneof("record_type")
            if kind == "history":
                rows.append({item.key or "/".join(item.nested_key): json.loads(item.value_json)
                             for item in record.history.item})
            elif kind in ("run", "config"):
                updates = record.run.config.update if kind == "run" else record.config.update
                config.update({item.key: json.loads(item.value_json) for item in updates})
            elif kind == "artifact":
                artifacts.append(record.artifact.name)
    return rows, config, artifacts


def neptune_operations(root: Path) -> list[dict]:
    """Operations of every offline Neptune run under `root` (its `.neptune/offline` folders)."""
    ops = []
    for path in sorted(root.rglob(".neptune/offline/*/data-*.log")):
        ops += [json.loads(line)["obj"] for line in path.read_text().splitlines() if line.strip()]
    return ops


def tensorboard_scalars(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """tag -> [(step, value)] read with TensorBoard's own event reader."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(log_dir))
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
