#!/usr/bin/env bash
# GPU check, for a machine with a CUDA device (under 8 minutes). Installs nothing beyond
# `make test`'s environment; run from the repository root after `make install`:
#
#     bash benchmarks/gpu_check.sh
#
# 1. fails at once, loudly, if torch sees no CUDA device (a CPU-only torch, no driver);
# 2. runs tests/gpu with PUFFERLIB_REQUIRE_GPU=1: training on CUDA (float32 and bf16
#    autocast), torch.compile, pinned-memory copies, and a 2-rank NCCL all-reduce where
#    two GPUs exist (skipped, and said so, with one);
# 3. prints ocean-breakout and ocean-squared training SPS on the GPU;
# 4. times ocean-breakout to its solved score on the GPU (bench_solve.py, shipped config, seed 1).
set -euo pipefail
cd "$(dirname "$0")/.."
# PY: the interpreter (default .venv/bin/python). On a lent GPU machine whose image has its
# own CUDA torch, use that: PY=python3 with PYTHONPATH=pufferlib_core:plugins/puffer-ocean
# (puffer-ocean's extension built there with `python3 setup.py build_ext --inplace`).
PY=${PY:-.venv/bin/python}

"$PY" - <<'PY'
import sys, torch
if not torch.cuda.is_available():
    sys.exit(f"gpu_check: FAIL: no CUDA device visible to torch {torch.__version__} "
             f"(CUDA build: {torch.version.cuda}). The pinned CPU torch of `make install` has no CUDA: "
             "install a CUDA torch into .venv first, e.g. `make install TORCH=torch==2.13.0 "
             "PIP_INDEX_URL=<the CUDA wheel index>`.")
print(f"gpu_check: {torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
      f"CUDA {torch.version.cuda}, bf16 supported: {torch.cuda.is_bf16_supported()}")
PY

PUFFERLIB_REQUIRE_GPU=1 timeout 300 "$PY" -m pytest tests/gpu -v -rs -p no:cacheprovider

"$PY" - <<'PY'
import json, pathlib, signal, subprocess, sys, tempfile

def sps(env_id, flags, seconds=60):
    """Mean SPS of the second half of a training run stopped (Ctrl-C) after `seconds`."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "pufferlib", "train", env_id, "--train.device", "cuda",
                                 "--train.data-dir", tmp, "--train.total-timesteps", "1000000000", *flags],
                                stdout=subprocess.DEVNULL)
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
        (metrics,) = pathlib.Path(tmp).glob("*/metrics.jsonl")
        rows = [json.loads(l) for l in metrics.read_text().splitlines()[1:] if l.strip()]
        values = [r["SPS"] for r in rows[len(rows) // 2:] if "SPS" in r]
        if not values:
            raise SystemExit(f"gpu_check: FAIL: {env_id} logged no SPS in {seconds} s")
        return sum(values) / len(values)

big = ["--vec.num-envs", "4096", "--train.batch-size", "262144", "--train.cpu-threads", "0"]
for env_id, flags in [("ocean-breakout", big + ["--train.minibatch-size", "65536"]),
                      ("ocean-squared", big + ["--rnn.enabled", "true", "--rnn.hidden-size", "128",
                                               "--policy.hidden-size", "128", "--train.minibatch-size", "32768",
                                               "--train.update-epochs", "1"])]:
    print(f"gpu_check: {env_id} training SPS on cuda: {sps(env_id, flags):,.0f}", flush=True)
PY
timeout 150 "$PY" benchmarks/bench_solve.py breakout --seeds 1 --timeout 100 --device cuda
echo "gpu_check: done"
