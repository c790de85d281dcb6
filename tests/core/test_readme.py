"""The README's runnable Python examples run as written."""

import re
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
