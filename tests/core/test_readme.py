"""The README's runnable Python examples run as written, and so do its `puffer eval` commands."""

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    # Blocks naming the reader's own package (my_package, my_plugin) are templates.
    return [b for b in blocks if "my_package" not in b and "my_plugin" not in b]


def test_readme_examples_run():
    blocks = python_blocks()
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    env = namespace["env"]
    obs, _ = env.reset()
    assert obs.shape == (64, 1)
    total = 0.0
    for _ in range(12):
        obs, rewards, terminals, _, _ = env.step(env.action_space.sample() * 0 + 1)
        total += rewards.sum()
    assert total == 64  # every agent walked to +10 once, was rewarded and reset
    assert (obs[:, 0] == 2).all()
    env.close()


def commands(program: str) -> list[list[str]]:
    """The argv of each line of the README's bash blocks that runs `program` (comments dropped)."""
    lines = [line for block in re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
             for line in block.splitlines()]
    return [shlex.split(line, comments=True) for line in lines if line.startswith(f"{program} ")]


def test_readme_eval_commands_run_on_a_trained_run(tmp_path, monkeypatch):
    """Each `puffer eval` line of the README works as written, after a short `puffer train` (and
    the README's `puffer push` and `puffer pull` lines to a local hub)."""
    from pufferlib import cli

    monkeypatch.chdir(tmp_path)  # `latest` is the newest run under ./experiments
    assert cli.main(["train", "gym-CartPole-v1", "--train.total-timesteps", "1024", "--train.device", "cpu"]) == 0
    local = [argv for argv in commands("puffer push") + commands("puffer pull") if "--hub.dir" in argv]
    assert len(local) == 2
    evals = commands("puffer eval")
    assert len(evals) >= 3
    for argv in local + evals:
        assert cli.main(argv[1:]) == 0, argv
