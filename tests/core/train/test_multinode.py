"""Multi-node training: two `torchrun --nnodes=2` launches on this host act as two nodes.

Each launch runs one CPU rank (gloo); they meet through a c10d rendezvous on 127.0.0.1, as
launches on two machines meet at the first machine's address (docs/cluster.md), with
`--local-addr=127.0.0.1` (what MASTER_ADDR becomes) and GLOO_SOCKET_IFNAME=lo.

torch's TCPStore servers (the rendezvous store) listen on every interface ('::') and
torchrun has no option to change that, so the two launches run inside a private network
namespace (`unshare -rn`: no privileges needed) whose only interface is loopback.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from tests.core.netns import LOOPBACK_UP
from tests.core.train.test_pufferl_train import DDP_SCRIPT, GLOO_TEARDOWN_ABORT

#: Runs in the namespace: brings loopback up, starts both launches, writes their exit codes.
LAUNCHER = LOOPBACK_UP + textwrap.dedent("""
    import json, os, socket, subprocess, sys
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    torchrun, script, out = sys.argv[1:]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TMPDIR": out, "GLOO_SOCKET_IFNAME": "lo"}
    procs = [subprocess.Popen(
        [torchrun, "--nnodes=2", "--nproc-per-node=1", f"--node-rank={node}", "--rdzv-backend=c10d",
         f"--rdzv-endpoint=127.0.0.1:{port}", "--rdzv-id=multinode-test", "--local-addr=127.0.0.1",
         script, out], cwd=out, env=env) for node in range(2)]
    codes = [p.wait() for p in procs]
    with open(os.path.join(out, "launcher.json"), "w") as f:
        json.dump({"codes": codes, "interfaces": INTERFACES}, f)
""")


def run_two_nodes(tmp_path: Path) -> tuple[dict, str]:
    """(launcher report, output) of two one-rank torchrun 'nodes' in a loopback-only namespace."""
    (tmp_path / "ddp.py").write_text(DDP_SCRIPT)
    (tmp_path / "launcher.py").write_text(LAUNCHER)
    (tmp_path / "launcher.json").unlink(missing_ok=True)
    torchrun = Path(sys.executable).with_name("torchrun")
    proc = subprocess.Popen([shutil.which("unshare") or "unshare", "-rn", sys.executable,
                             str(tmp_path / "launcher.py"), str(torchrun), str(tmp_path / "ddp.py"), str(tmp_path)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        output = proc.communicate(timeout=240)[0]
    finally:
        if proc.poll() is None:  # never leave a rank behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    report_file = tmp_path / "launcher.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {"codes": None}
    return report, output


@pytest.mark.slow
def test_two_torchrun_nodes_end_with_identical_weights(tmp_path):
    report, output = run_two_nodes(tmp_path)
    if report["codes"] != [0, 0] and GLOO_TEARDOWN_ABORT in output:  # a known torch teardown abort: once more
        report, output = run_two_nodes(tmp_path)
    assert report["codes"] == [0, 0], output
    # the stores listened on '::' (see module doc), inside a namespace whose only interface is loopback
    assert report["interfaces"] == ["lo"], report
    r0, r1 = (torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1))
    assert r0["step"] == r1["step"] == 512  # both nodes' 128-step batches count
    # episode stats exist on one node only (see DDP_SCRIPT) and are aggregated to both
    assert r0["metrics"]["environment/episode_length"] == r1["metrics"]["environment/episode_length"] == 5
    assert r0["metrics"]["losses/policy_loss"] == r1["metrics"]["losses/policy_loss"]
    for key, value in r0["state"].items():
        assert torch.equal(value, r1["state"][key]), key
