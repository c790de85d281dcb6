"""puffer-nmmo: the ids, the adapter's observations, masks, seeds and end-of-life stats."""

import subprocess
import sys

import numpy as np
import pytest

import pufferlib
from puffer_nmmo.env import AGENT_STATS, NMMOEnv, _in1d
from pufferlib import APIUsageError
from pufferlib.registry import spec
from pufferlib.spaces import ActionLayout

#: A tiny world: nmmo's small map, 4 agents, 2 NPCs, 12-tick episodes.
TINY = {"preset": "small", "num_agents": 4, "num_npcs": 2, "horizon": 12}


def _random_legal(env: NMMOEnv, obs: dict, rng: np.random.Generator) -> dict:
    """A uniformly random allowed choice per action argument, for every live agent."""
    actions = {}
    for agent in env.agents:
        mask, offset, chosen = obs[agent]["action_mask"], 0, {}
        for atn, arg in env._mask_order:
            n = int(env.action_space(agent)[atn][arg].n)
            allowed = np.flatnonzero(mask[offset:offset + n])
            chosen.setdefault(atn, {})[arg] = int(rng.choice(allowed)) if len(allowed) else n - 1
            offset += n
        actions[agent] = chosen
    return actions


def test_ids_register_with_their_worlds():
    default, small = spec("nmmo-default"), spec("nmmo-small")
    assert default.kwargs["preset"] == "medium" and default.kwargs["num_agents"] == 128
    assert small.kwargs["preset"] == "small" and small.kwargs["num_agents"] == 16
    for s in (default, small):
        assert s.policy == "puffer_nmmo.policy:NMMOPolicy" and s.package == "puffer-nmmo"
        assert s.config["vec"]["num_workers"] == 2 and s.kwargs["task_obs"] is False


def test_the_entry_module_does_not_import_nmmo():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('nmmo-small'); "
            "assert 'nmmo' not in sys.modules and 'puffer_nmmo.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_reset_and_step_give_one_row_per_agent():
    env = pufferlib.make("nmmo-small", num_envs=1, backend="serial", seed=0, **{k: v for k, v in TINY.items()
                                                                               if k != "preset"})
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape[0] == 4 and obs.dtype == np.uint8 and obs.any(axis=1).all()
        assert list(env.single_action_space.nvec) == [3, 101, 385, 127, 13, 13, 101, 99, 101, 5, 13, 99, 13]
        actions = np.zeros((4, 13), np.int32)
        obs, rewards, terms, truncs, _ = env.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (4,) and terms.dtype == bool
        assert np.allclose(rewards, 1 / 12)  # nmmo's survival task: 1/horizon per tick alive
        assert not truncs.any()
    finally:
        env.close()


def test_action_mask_lines_up_with_the_flattened_action_heads():
    env = NMMOEnv(**TINY)
    obs, _ = env.reset(seed=1)
    layout = ActionLayout(env.action_space(1))
    sizes = [int(env.action_space(1)[atn][arg].n) for atn, arg in layout.paths]
    assert [tuple(p) for p in layout.paths] == env._mask_order
    for agent in env.agents:
        targets = env.env.obs[agent].to_gym()["ActionTargets"]
        parts = np.split(obs[agent]["action_mask"], np.cumsum(sizes)[:-1])
        for (atn, arg), part in zip(layout.paths, parts):
            np.testing.assert_array_equal(part, targets[atn][arg])
    assert "Task" not in obs[1] and "ActionTargets" not in obs[1]


def test_task_obs_keeps_nmmos_task_embedding():
    env = NMMOEnv(task_obs=True, **TINY)
    assert env.observation_space(1)["Task"].shape == (4096,)
    assert env.reset(seed=0)[0][1]["Task"].shape == (4096,)


def test_same_seed_gives_the_same_episode_and_another_seed_another_map():
    def run(seed: int) -> list:
        env = NMMOEnv(**TINY)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [obs[1]["Tile"].copy()]
        for _ in range(10):
            obs, rewards, _, _, _ = env.step(_random_legal(env, obs, rng))
            trace += [sorted(rewards.items())] + [o["Entity"].copy() for o in obs.values()]
        return trace

    first, second = run(5), run(5)
    assert len(first) == len(second)
    assert all(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)) for a, b in zip(first, second))
    a, b = NMMOEnv(**TINY), NMMOEnv(**TINY)
    a.reset(seed=5)
    b.reset(seed=6)
    assert not np.array_equal(a._maps[1]["map"], b._maps[1]["map"])


def test_makes_no_map_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = NMMOEnv(**TINY)
    env.reset(seed=0)
    env.reset()
    assert list(tmp_path.iterdir()) == []  # nmmo alone writes ./maps/small/map1/{map,fractal}.npy


def test_finishing_agents_report_their_lifetime_and_achievements():
    env = NMMOEnv(**TINY)
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    ended = {}
    ticks = 0
    while env.agents:
        obs, _, terms, truncs, infos = env.step(_random_legal(env, obs, rng))
        ticks += 1
        for agent, info in infos.items():
            assert terms[agent] or truncs[agent]
            assert set(info) == set(AGENT_STATS) and all(isinstance(v, float) for v in info.values())
            assert info["lifetime"] == ticks and 0.0 <= info["task_progress"] <= 1.0
            ended[agent] = info
    assert ticks <= 12 and sorted(ended) == [1, 2, 3, 4]
    assert sum(i["food_eaten"] + i["water_drunk"] + i["max_distance"] for i in ended.values()) > 0


def test_the_trainer_sees_population_stats_at_episode_ends():
    env = pufferlib.make("nmmo-small", num_envs=1, backend="serial", seed=0, num_agents=4, num_npcs=2, horizon=6)
    try:
        env.reset(seed=0)
        infos = []
        for _ in range(6):
            infos += env.step(np.zeros((4, 13), np.int32))[4]
        lives = [i["lifetime"] for i in infos if "lifetime" in i]
        assert len(lives) == 4 and all(life <= 6 for life in lives)
        assert [i["episode_length"] for i in infos if "episode_length" in i] == [6]
    finally:
        env.close()


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(APIUsageError, match=r"preset must be one of \('medium', 'small'\)"):
        NMMOEnv(preset="large")
    with pytest.raises(APIUsageError, match="num_agents must be an int in 1..1024"):
        NMMOEnv(num_agents=0)
    with pytest.raises(APIUsageError, match="horizon must be an int"):
        NMMOEnv(horizon="long")
    with pytest.raises(APIUsageError, match="render_mode must be None or 'rgb_array'"):
        NMMOEnv(render_mode="human")
    with pytest.raises(APIUsageError, match="task_obs must be True or False"):
        NMMOEnv(task_obs=1)


def test_renders_the_map_with_its_agents():
    env = NMMOEnv(render_mode="rgb_array", **TINY)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (64, 64, 3) and frame.dtype == np.uint8
    assert (frame == (255, 255, 0)).all(-1).sum() >= 1  # players
    assert NMMOEnv(**TINY).render() is None


def test_nmmo_gets_in1d_without_numpy_being_changed():
    import nmmo.lib.event_log as event_log

    assert event_log.np.in1d is not None
    np.testing.assert_array_equal(_in1d(np.array([[1, 5], [3, 7]]), [3, 5]), [False, True, True, False])
    if np.lib.NumpyVersion(np.__version__) >= "2.4.0":
        assert not hasattr(np, "in1d") and event_log.np is not np
