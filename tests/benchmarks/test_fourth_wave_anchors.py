"""benchmarks/fourth_wave_anchors.py: a run too short to end an episode says so in its rows."""

from __future__ import annotations

from tests.benchmarks import BENCHMARKS, load_benchmark


def test_a_row_whose_steps_ended_no_episode_says_raise_steps(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # its `from anchors import ...`, as when run as a script
    script = load_benchmark("fourth_wave_anchors")
    monkeypatch.setattr("sys.argv", ["fourth_wave_anchors.py", "--seeds", "1", "--copies", "2", "--steps", "3"])
    script.main()  # it raised KeyError: 'score' here
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 8 and all("no episode ended in 3 steps of seed(s) [1]: raise --steps" in r for r in rows)
