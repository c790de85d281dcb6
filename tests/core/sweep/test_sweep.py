"""pufferlib.sweep: distributions, the Pareto front, the GP and Protein, the store, bad spaces."""

import math

import numpy as np
import pytest
import torch

from pufferlib.errors import APIUsageError
from pufferlib.sweep import Sweeper
from pufferlib.sweep.gp import GP, quantile_line
from pufferlib.sweep.protein import Observation, Protein, Random, pareto_front, should_stop
from pufferlib.sweep.space import Param, Space
from pufferlib.sweep.store import Store

CONFIG = {"train": {"learning_rate": 3e-4, "gamma": 0.99, "update_epochs": 4, "minibatch_size": 256,
                    "clip_coef": 0.2, "anneal_lr": True, "optimizer": "adam"}}


@pytest.mark.parametrize("dist, lo, hi, values", [
    ("uniform", -1.0, 3.0, [-1.0, 0.0, 1.7, 3.0]),
    ("log_normal", 1e-5, 1e-1, [1e-5, 3e-4, 0.0123, 0.1]),
    ("logit_normal", 0.9, 0.9999, [0.9, 0.95, 0.99, 0.9999]),
    ("int_uniform", 1, 9, [1, 2, 5, 9]),
    ("uniform_pow2", 16, 1024, [16, 32, 256, 1024]),
])
def test_distributions_round_trip_through_the_unit_interval(dist, lo, hi, values):
    p = Param("k", dist, lo, hi)
    points = [p.normalize(v) for v in values]
    assert points[0] == pytest.approx(0.0) and points[-1] == pytest.approx(1.0)
    assert points == sorted(points) and len(set(points)) == len(points)  # monotone
    for v, x in zip(values, points):
        back = p.unnormalize(x)
        assert back == pytest.approx(v, rel=1e-9)
        if dist in ("int_uniform", "uniform_pow2"):
            assert isinstance(back, int)


def test_pow2_values_are_powers_of_two_and_log_midpoint_is_geometric():
    pow2 = Param("k", "uniform_pow2", 8, 512)
    assert all(pow2.unnormalize(x) in (8, 16, 32, 64, 128, 256, 512) for x in np.linspace(0, 1, 37))
    assert Param("k", "log_normal", 1e-4, 1e-2).unnormalize(0.5) == pytest.approx(1e-3)
    assert Param("k", "logit_normal", 0.5, 0.99).normalize(0.2) == 0.0  # clipped into range


def test_space_maps_configs_to_points_and_back():
    space = Space.from_tables({"train.learning_rate": {"distribution": "log_normal", "min": 1e-5, "max": 1e-1},
                               "train.update_epochs": {"distribution": "int_uniform", "min": 1, "max": 8}}, CONFIG)
    x = space.point(CONFIG)
    assert space.values(x) == {"train.learning_rate": pytest.approx(3e-4), "train.update_epochs": 4}
    assert space.keys == ["train.learning_rate", "train.update_epochs"]


@pytest.mark.parametrize("tables, message", [
    ({"train.learning_rate": {"distribution": "uniform", "min": 0.1, "max": 0.01}}, "greater than max"),
    ({"train.learnig_rate": {"distribution": "uniform", "min": 0.01, "max": 0.1}}, "train.learning_rate"),
    ({"trian.gamma": {"distribution": "uniform", "min": 0.1, "max": 0.2}}, "not a key of the config"),
    ({"train.update_epochs": {"distribution": "uniform", "min": 1, "max": 8}}, "is an integer"),
    ({"train.clip_coef": {"distribution": "int_uniform", "min": 0, "max": 1}}, "is a float"),
    ({"train.anneal_lr": {"distribution": "uniform", "min": 0, "max": 1}}, "only numeric"),
    ({"train.learning_rate": {"distribution": "log_normal", "min": 0.0, "max": 0.1}}, "min > 0"),
    ({"train.minibatch_size": {"distribution": "uniform_pow2", "min": -4, "max": 64}}, "min > 0"),
    ({"train.gamma": {"distribution": "logit_normal", "min": 0.5, "max": 1.0}}, "0 < min and max < 1"),
    ({"train.gamma": {"distribution": "log_uniform", "min": 0.5, "max": 0.9}}, "Did you mean"),
    ({"train.gamma": {"distribution": "uniform", "min": 0.5}}, "needs both min and max"),
    ({"train.gamma": {"distribution": "uniform", "min": 0.5, "max": 0.9, "mean": 0.7}}, "unknown field"),
    ({}, "no swept keys"),
])
def test_bad_spaces_say_what_to_fix(tables, message):
    with pytest.raises(APIUsageError, match=message):
        Space.from_tables(tables, CONFIG)


GAMMA = {"distribution": "uniform", "min": 0.9, "max": 0.99}


def test_a_swept_key_holding_other_swept_keys_is_refused(tmp_path, capsys):
    from pufferlib import cli

    with pytest.raises(APIUsageError, match=r"\[sweep.train.gamma\] is a swept key .* holds the swept key\(s\) "
                                            r"\[sweep.train.gamma.inner\]"):
        Space.from_tables({"train.gamma": {**GAMMA, "inner": GAMMA}}, CONFIG)
    with pytest.raises(APIUsageError, match=r"holds the swept key\(s\) \[sweep.train.gamma.inner\]"):
        Sweeper({"train.gamma": GAMMA, "train.gamma.inner": GAMMA})  # the dotted form, with no config
    space = tmp_path / "space.toml"  # a table of its own over the core's default tables
    space.write_text("[sweep.train]\ndistribution = 'uniform'\nmin = 0.1\nmax = 0.2\n")
    assert cli.main(["sweep", "gym-CartPole-v1", "--config", str(space), "--dir", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("puffer sweep: error: [sweep.train] is a swept key") and err.count("\n") == 1
    assert "[sweep.train.clip_coef]" in err and not (tmp_path / "s").exists()


@pytest.mark.parametrize("table, message", [
    ({**GAMMA, "min": math.nan}, r"min and max must be finite numbers \(got nan, 0.99\)"),
    ({**GAMMA, "max": math.inf}, r"min and max must be finite numbers \(got 0.9, inf\)"),
    ({**GAMMA, "max": 1.5}, r"\[sweep.train.gamma\] max: train.gamma = 1.5 must be in \[0, 1\]"),
])
def test_sweep_bounds_must_be_finite_values_that_the_config_allows(table, message):
    with pytest.raises(APIUsageError, match=message):
        Space.from_tables({"train.gamma": table}, CONFIG)


def test_a_huge_value_is_cut_in_a_space_error():
    huge = "x" * 10_000_000
    with pytest.raises(APIUsageError) as bad:
        Space.from_tables({"train.gamma": {**GAMMA, "distribution": huge}}, CONFIG)
    assert len(str(bad.value)) < 1000 and "(10,000,002 characters)" in str(bad.value)


def test_pareto_front_keeps_only_undominated_points():
    scores = np.array([1.0, 3.0, 2.0, 3.0, 0.5, 4.0])
    costs = np.array([1.0, 2.0, 2.0, 5.0, 0.5, 9.0])
    front = pareto_front(scores, costs)
    assert sorted(front.tolist()) == [0, 1, 4, 5]  # 2 is beaten by 1 at the same cost, 3 by 1 at lower cost
    assert list(costs[front]) == sorted(costs[front])


def test_gp_interpolates_a_smooth_function():
    X = torch.linspace(0, 1, 25).view(-1, 1)
    y = torch.sin(6 * X[:, 0])
    gp = GP().fit(X, y)
    Xt = torch.tensor([[0.13], [0.52], [0.88]])
    mu, sd = gp.predict(Xt)
    assert torch.allclose(mu, torch.sin(6 * Xt[:, 0]).double(), atol=0.05)
    far_mu, far_sd = gp.predict(torch.tensor([[3.0]]))
    assert float(far_sd) > float(sd.max())  # uncertain away from the data


def _optimise(f, dim, method, n=24, seed=0):
    sweeper = Sweeper({f"k{i}": {"distribution": "uniform", "min": 0.0, "max": 1.0} for i in range(dim)},
                      method=method, seed=seed)
    for _ in range(n):
        params = sweeper.suggest()
        sweeper.observe(params, f(np.array([params[f"k{i}"] for i in range(dim)])), cost=1.0)
    best, score = sweeper.best
    return np.array([best[f"k{i}"] for i in range(dim)]), score


def test_protein_finds_the_optimum_of_a_1d_function():
    best, score = _optimise(lambda x: -float((x[0] - 0.73) ** 2), 1, "protein", n=15)
    assert abs(best[0] - 0.73) < 0.03


def test_protein_finds_the_optimum_region_of_a_2d_function_better_than_random():
    f = lambda x: -float((x[0] - 0.2) ** 2 + 4 * (x[1] - 0.85) ** 2)  # noqa: E731
    best, score = _optimise(f, 2, "protein", n=24)
    assert np.abs(best - [0.2, 0.85]).max() < 0.06
    _, random_score = _optimise(f, 2, "random", n=24)
    assert score >= random_score


def test_failures_steer_protein_away():
    sweeper = Sweeper({"k": {"distribution": "uniform", "min": 0.0, "max": 1.0}}, config={"k": 0.2})
    tried = []
    for _ in range(16):
        params = sweeper.suggest()
        tried.append(params["k"])
        sweeper.observe(params, None if params["k"] > 0.6 else params["k"], cost=1.0)  # crashes past 0.6
    late = tried[8:]
    assert sum(k > 0.6 for k in late) <= 2 and max(k for k in late if k <= 0.6) > 0.5


def test_first_suggestion_is_the_given_config_and_goal_minimize_flips():
    sweeper = Sweeper({"train.gamma": {"distribution": "logit_normal", "min": 0.9, "max": 0.999}},
                      config={"train": {"gamma": 0.95}}, goal="minimize")
    assert sweeper.suggest() == {"train.gamma": pytest.approx(0.95)}
    sweeper.observe({"train.gamma": 0.95}, 5.0)
    sweeper.observe({"train.gamma": 0.99}, 1.0)
    assert sweeper.best == ({"train.gamma": pytest.approx(0.99)}, 1.0)


def test_random_method_is_a_scrambled_sobol_sequence():
    points = [Random(3, seed=1).suggest(i, [], [], []) for i in range(8)]
    assert len({tuple(p) for p in points}) == 8 and all(0 <= v <= 1 for p in points for v in p)
    assert points == [Random(3, seed=1).suggest(i, [], [], []) for i in range(8)]  # resumable by index
    assert points != [Random(3, seed=2).suggest(i, [], [], []) for i in range(8)]


def test_protein_respects_max_suggestion_cost():
    # cost grows with x; only cheap points are affordable, the score prefers dear ones
    obs = [Observation([x], x, math.exp(4 * x)) for x in np.linspace(0, 1, 9)]
    x = Protein(1, max_suggestion_cost=math.exp(2.0)).suggest(20, obs, [], [])
    assert x[0] <= 0.56


def test_quantile_line_and_early_stop_rule():
    rng = np.random.default_rng(0)
    c = rng.uniform(1, 100, 400)
    s = np.log(c) + rng.normal(0, 0.1, 400)
    a, b = quantile_line(torch.tensor(np.log(c)), torch.tensor(s), 0.25)
    assert b == pytest.approx(1.0, abs=0.1) and np.mean(s < a + b * np.log(c)) == pytest.approx(0.25, abs=0.05)
    others = list(zip(s.tolist(), c.tolist()))
    assert should_stop([(0.0, 5.0), (0.2, 20.0)], others, 0.25)        # far below the line
    assert not should_stop([(0.0, 5.0), (3.5, 20.0)], others, 0.25)    # above it
    assert not should_stop([(0.2, 20.0)], others, 0.25)                # one report only
    assert not should_stop([(0.0, 5.0), (0.2, 20.0)], others[:5], 0.25)  # too few others
    assert not should_stop([(0.0, 5.0), (0.2, 20.0)], others, 0.0)     # disabled


def test_store_keeps_finished_trials_and_marks_running_ones_interrupted(tmp_path):
    store = Store(tmp_path)
    a = store.add_trial(0, {"k": 1}, [0.5], "t0")
    store.add_report(a, 100, 1.0, 0.5, 1.0)
    store.finish(a, "done", 0.5, 1.0)
    b = store.add_trial(1, {"k": 2}, [0.7], "t1")
    store.set_meta("env_id", "x")
    store.close()
    store = Store(tmp_path)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    interrupted = store.interrupt_running()
    assert [t["id"] for t in interrupted] == [b] and store.meta("env_id") == "x"
    assert [(t["id"], t["status"]) for t in store.trials()] == [(a, "done"), (b, "interrupted")]
    assert store.reports(a)[0]["score"] == 0.5
    store.close()


def test_report_reader_reads_whole_lines_and_picks_the_score(tmp_path):
    import json

    from pufferlib.sweep.runner import ReportReader

    run = tmp_path / "run_x"
    run.mkdir()
    path = run / "metrics.jsonl"
    path.write_text(json.dumps({"config": {}, "env_id": "e"}) + "\n" +
                    json.dumps({"step": 100, "time": 11.0, "environment/episode_return": 5.0,
                                "losses/policy_loss": 0.1}) + "\n" +
                    '{"step": 200, "time": 12.0, "environ')  # a line still being written
    steps = ReportReader(tmp_path, "", "steps", start=10.0)
    seconds = ReportReader(tmp_path, "", "time", start=10.0)
    assert [(r.step, r.score, r.cost) for r in steps.poll()] == [(100, 5.0, 100.0)]
    assert [r.cost for r in seconds.poll()] == [1.0]
    with open(path, "a") as f:
        f.write('ment/episode_return": 7.0, "losses/policy_loss": null}\n')
    assert [r.score for r in steps.poll()] == [7.0] and steps.metric == "environment/episode_return"


def test_dump_toml_round_trips_a_config_tree():
    import math

    from pufferlib._compat import tomllib
    from pufferlib.config import dump_toml, load_default

    config = load_default()
    config["env"] = {"size": 3, "name": "a \"quoted\" name\twith\\escapes", "nested": {"k": [1, 2]},
                     "a key.with dots": True, "bound": math.inf, "unicode": "r\u00e9sum\u00e9 \U0001F600"}
    assert tomllib.loads(dump_toml(config)) == config


def test_trial_config_divides_cores_groups_logger_runs_and_drops_the_sweep_section(tmp_path):
    import os

    from pufferlib.config import load_default
    from pufferlib.sweep.driver import SweepDriver

    config = load_default()
    config["train"]["cpu_threads"] = 0  # "all it may have"
    config["sweep"]["workers"] = 2
    config["mylogger"] = {"group": "", "project": "p"}
    space = Space.from_tables({"train.gamma": {"distribution": "logit_normal", "min": 0.9, "max": 0.999}}, config)
    trial = SweepDriver("gym-CartPole-v1", config, space, tmp_path / "my_sweep")._trial_config({"train.gamma": 0.95})
    assert "sweep" not in trial and trial["train"]["gamma"] == 0.95
    assert trial["train"]["cpu_threads"] == max(1, len(os.sched_getaffinity(0)) // 2)
    assert trial["mylogger"] == {"group": "my_sweep", "project": "p"}
    assert config["mylogger"]["group"] == ""  # the sweep's own config is untouched


class _Process:
    """Stands in for the Popen of a trial's process that runs on (exit_code None) or has exited."""

    def __init__(self, exit_code=None):
        self.exit_code = exit_code

    def poll(self):
        return self.exit_code


def _trial_without_process(folder, reports, exit_code=None, timeout=0.0):
    """A runner.LocalTrial whose process runs on (or has exited with `exit_code`) and whose metrics
    file holds `reports` (read once)."""
    from pufferlib.sweep.runner import LocalTrial, TrialSpec

    trial = LocalTrial(TrialSpec("gym-CartPole-v1", {"train": {}}, str(folder), timeout=timeout))
    trial.proc = _Process(exit_code)
    pending = [list(reports)]
    trial.reader.poll = lambda: pending.pop() if pending else []
    trial.killed = False

    def kill():
        trial.killed = True

    trial.kill = kill
    return trial


@pytest.mark.parametrize("low, exit_code, status", [(True, None, "stopped"), (False, None, "running"),
                                                    (False, 1, "failed")])
def test_driver_stops_trials_below_the_quantile_line_and_records_failed_ones(tmp_path, low, exit_code, status):
    from pufferlib.config import load_default
    from pufferlib.sweep.driver import SweepDriver
    from pufferlib.sweep.runner import Report

    config = load_default()
    space = Space.from_tables({"train.gamma": {"distribution": "logit_normal", "min": 0.9, "max": 0.999}}, config)
    driver = SweepDriver("gym-CartPole-v1", config, space, tmp_path)
    driver.store = Store(tmp_path)
    done = driver.store.add_trial(0, {"train.gamma": 0.98}, [0.5], "t0")
    for c in range(2, 40):  # score grows with cost
        driver.store.add_report(done, c, float(c), 10.0 * math.log(c), float(c))
    driver.store.finish(done, "done", 36.0, 39.0)
    running = driver.store.add_trial(1, {"train.gamma": 0.95}, [0.3], "t1")
    score = 1.0 if low else 50.0
    trial = _trial_without_process(tmp_path / "t1", [Report(100, 5.0, score, 5.0), Report(200, 10.0, score + 1, 10.0)],
                                   exit_code)
    (tmp_path / "t1").mkdir()
    (tmp_path / "t1" / "train.log").write_text("puffer train: error: Non-finite loss at epoch 9\n")
    driver.running = {running: trial}
    driver._poll()
    row = driver.store.trials()[-1]
    assert row["status"] == status and trial.killed == (status != "running")
    assert [r["score"] for r in driver.store.reports(running)] == [score, score + 1]  # recorded either way
    if status == "failed":
        assert row["error"] == "exit status 1: puffer train: error: Non-finite loss at epoch 9" and row["score"] is None
    if status == "stopped":
        assert (row["score"], row["cost"]) == (score + 1, 10.0)  # its last report
    driver.store.close()


def test_plot_sweep_draws_score_on_cost_front_and_each_parameter(tmp_path):
    pytest.importorskip("matplotlib", reason="puffer plot needs matplotlib (the plot extra)")
    from pufferlib import cli
    from pufferlib.plot import plot_sweep

    with pytest.raises(APIUsageError, match="no sweep.db"):
        plot_sweep(tmp_path, tmp_path / "x.png")
    store = Store(tmp_path)
    store.set_meta("config", {"sweep": {"goal": "maximize", "cost": "steps", "train": {"learning_rate": {
        "distribution": "log_normal", "min": 1e-4, "max": 1e-1}}}})
    for i, (lr, status) in enumerate([(1e-3, "done"), (1e-2, "stopped"), (3e-2, "failed"), (5e-3, "done")]):
        t = store.add_trial(i, {"train.learning_rate": lr, "train.update_epochs": i + 1}, [0.1 * i, 0.5], f"t{i}")
        for step in (100, 200, 300):
            store.add_report(t, step, step / 100, i * step / 100, step)
        store.finish(t, status, None if status == "failed" else 3.0 * i, 300.0)
    store.close()
    png = tmp_path / "sweep.png"
    assert cli.main(["plot", "--sweep", str(tmp_path), "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_space_comes_from_the_highest_layer_that_declares_one(tmp_path):
    import pufferlib
    from pufferlib.cli.options import base_parser as _base_parser
    from pufferlib.cli.options import parse_config
    from pufferlib.sweep.config import resolve_space

    gamma = {"distribution": "logit_normal", "min": 0.9, "max": 0.99}
    pufferlib.register("test-sweep-env", "gymnasium.envs.classic_control:CartPoleEnv",
                       config={"sweep": {"train": {"gamma": gamma}}}, overwrite=True)
    try:
        parser = _base_parser("puffer sweep", "")
        config, _ = parse_config(parser, ["gym-CartPole-v1"])
        assert "train.learning_rate" in resolve_space("gym-CartPole-v1", config, None)[1].keys  # core default
        config, _ = parse_config(_base_parser("puffer sweep", ""),
                                 ["test-sweep-env", "--sweep.train.gamma.max", "0.995"])
        config, space = resolve_space("test-sweep-env", config, None)
        assert space.keys == ["train.gamma"] and space.params[0].max == 0.995  # the plugin's space, flag applied
        assert set(config["sweep"]["train"]) == {"gamma"}
        own = tmp_path / "space.toml"
        own.write_text("[sweep.train.clip_coef]\ndistribution = 'uniform'\nmin = 0.1\nmax = 0.3\n")
        config, _ = parse_config(_base_parser("puffer sweep", ""), ["test-sweep-env", "--config", str(own)])
        assert resolve_space("test-sweep-env", config, str(own))[1].keys == ["train.clip_coef"]  # the user's file
    finally:
        pufferlib.registry.unregister("test-sweep-env")


def test_a_trial_outcome_is_decided_in_one_place(tmp_path):
    """runner.LocalTrial.outcome: what the driver and a Ray task both go by, in its order of precedence."""
    from pufferlib.sweep.runner import LocalTrial, Outcome, Report, TrialSpec, never_stop
    from pufferlib.train.metrics import SCORE_KEYS

    trial = LocalTrial(TrialSpec("x", {"train": {}}, str(tmp_path), timeout=0.5))  # not started: no process
    (tmp_path / "train.log").write_text("Traceback (most recent call last):\n  boom()\nValueError: boom\n")
    new = [Report(100, 1.0, 2.0, 1.0)]
    below = lambda reports: True  # noqa: E731 - the early-stop rule says stop
    assert trial.outcome(None, [], below) is None  # no new report: the rule is not asked
    assert trial.outcome(None, new, never_stop) is None
    assert trial.outcome(None, new, below) == Outcome("stopped", "below the score-on-cost quantile line: stopped early")
    assert trial.outcome(1, new, below) == Outcome("failed", "exit status 1: ValueError: boom")
    trial.reader.logged_keys = {"environment/episode_length"}
    assert trial.outcome(0, [], below) == Outcome("failed", f"the run never logged {' or '.join(SCORE_KEYS)}; set "
                                                            "sweep.metric to one of the episode keys it logged: "
                                                            "environment/episode_length")
    trial.reported = True
    assert trial.outcome(0, [], below) == Outcome("done")
    trial.started -= 1.0  # past its time limit
    assert trial.outcome(None, new, below) == Outcome("timeout", "killed after the time limit of 0.5 s")
    assert trial.outcome(0, [], below) == Outcome("done")  # it exited: the limit no longer matters


def test_sweeper_is_fed_from_a_store_and_its_first_trial_is_the_config_as_given(tmp_path):
    gamma = {"train.gamma": {"distribution": "logit_normal", "min": 0.9, "max": 0.999}}
    sweeper = Sweeper(gamma, config={"train": {"gamma": 0.5}}, goal="minimize")  # below the range
    assert sweeper.next_trial() == (0, [0.0], {"train.gamma": 0.5})  # not clipped, unlike suggest()'s
    assert Sweeper(gamma, config={"train": {"gamma": 0.5}}).suggest() == {"train.gamma": pytest.approx(0.9)}

    store = Store(tmp_path)
    rows = {}
    for idx, status in enumerate(["done", "stopped", "failed", "timeout", "interrupted", "running"]):
        rows[status] = store.add_trial(min(idx, 4), {"train.gamma": 0.95}, [idx / 10], f"t{idx}", None)
        if status in ("done", "stopped"):
            store.add_report(rows[status], 10, 1.0, 3.0 + idx, 2.0)
            store.finish(rows[status], status, 3.0 + idx, 2.0)
        elif status != "running":
            store.finish(rows[status], status, None, None, "why")
    reports = {r["trial_id"]: [(r["score"], r["cost"])] for r in store.reports()}
    sweeper.sync(store.trials(), reports)
    store.close()
    assert [(o.x, o.score, o.cost, o.reports) for o in sweeper.observations] == [
        ([0.0], -3.0, 2.0, [(-3.0, 2.0)]), ([0.1], -4.0, 2.0, [(-4.0, 2.0)])]  # minimize: scores negated
    assert sweeper.failures == [[0.2], [0.3]] and sweeper.pending == [[0.5]]
    assert sweeper.best == ({"train.gamma": pytest.approx(0.9)}, 3.0)
    index, x, values = sweeper.next_trial()
    assert index == 5 and sweeper.pending == [[0.5], x] and values == sweeper.space.values(x)


@pytest.mark.parametrize("kwargs, message", [({"goal": "max"}, "sweep.goal = 'max' must be one of 'maximize'"),
                                             ({"method": "grid"}, "sweep.method = 'grid' must be one of 'protein'"),
                                             ({"num_random": -1}, r"sweep.num_random = -1 must be in \[0, inf\)")])
def test_sweeper_settings_are_checked_against_the_config_constraints(kwargs, message):
    with pytest.raises(APIUsageError, match=message):
        Sweeper({"k": {"distribution": "uniform", "min": 0.0, "max": 1.0}}, **kwargs)
