"""puffer-magent2: the ids, hundreds of agent rows per copy, the random opponent, the episode tally,
seeding, refused kwargs."""

import subprocess
import sys

import numpy as np
import pytest

import pufferlib
from puffer_magent2.env import MagentEnv, make
from puffer_magent2.specs import SCENARIOS, env_id
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_one_id_per_scenario_with_a_batch_of_whole_steps():
    for scenario in SCENARIOS:
        s = spec(env_id(scenario))
        assert s.kwargs["scenario"] == scenario and s.package == "puffer-magent2"
        assert s.policy == "puffer_magent2.policy:MagentCNN"
        train = s.config["train"]
        assert train["batch_size"] % (4 * train["bptt_horizon"]) == 0
    assert spec("magent2-battle").kwargs["opponent"] == "none"
    assert "opponent" not in spec("magent2-gather").kwargs  # one team


def test_the_entry_module_does_not_import_magent2():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('magent2-battle'); "
            "assert 'magent2' not in sys.modules and 'puffer_magent2.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_battle_gives_every_agent_of_both_teams_a_row():
    env = pufferlib.make("magent2-battle", num_envs=1, backend="serial")
    try:
        obs, _ = env.reset(seed=0)
        assert env.num_agents == 162 and obs.shape == (162, 13, 13, 5) and obs.dtype == np.float32
        assert env.single_action_space.n == 21 and env.masks.all()
        obs, rewards, *_ = env.step(np.zeros(162, np.int64))
        assert 0 <= obs.min() and obs.max() <= 2 and obs.any()
    finally:
        env.close()


def test_the_random_opponent_leaves_the_first_team_as_rows_and_the_tally_ends_the_episode():
    env = pufferlib.make("magent2-battle", num_envs=1, backend="serial", opponent="random", max_cycles=5, map_size=20)
    try:
        env.reset(seed=0)
        assert env.num_agents == len(env.driver_env.env.possible_agents) < 40
        assert all(a.startswith("red_") for a in env.driver_env.env.possible_agents)
        infos = []
        for _ in range(5):
            infos += env.step(np.zeros(env.num_agents, np.int64))[4]
        tally = [i for i in infos if "win" in i]
        assert len(tally) == 1 and set(tally[0]) == {"kills", "deaths", "win", "alive", "enemy_alive"}
        assert tally[0]["alive"] + tally[0]["deaths"] == env.num_agents
        assert any("episode_length" in i and i["episode_length"] == 5 for i in infos)
    finally:
        env.close()


def test_same_seed_and_actions_give_the_same_episode_opponent_included():
    def run(seed):
        env = MagentEnv("battle", opponent="random", map_size=16, max_cycles=30)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        frames = [np.stack([obs[a] for a in env.possible_agents])]
        for _ in range(12):
            obs, *_ = env.step({a: int(rng.integers(21)) for a in env.agents})
            frames.append(np.stack([obs.get(a, np.zeros((13, 13, 5), np.float32)) for a in env.possible_agents]))
        env.close()
        return np.stack(frames)

    a, b = run(7), run(7)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, run(8))


def test_gather_has_hundreds_of_agents_and_no_opponent():
    env = make("gather", max_cycles=3)
    try:
        obs, _ = env.reset(seed=0)
        assert len(env.possible_agents) == 495 and len(obs) == 495
        with pytest.raises(APIUsageError, match="one team"):
            make("gather", opponent="random")
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"scenario": "combined_arms"}, "scenario must be one of"),
    ({"module": "os"}, "does not take module"),
    ({"attack_food_reward": 1.0}, "does not take attack_food_reward"),
    ({"opponent": "scripted"}, "opponent must be one of"),
    ({"map_size": 5}, "map_size"),
    ({"max_cycles": 0}, "max_cycles"),
    ({"minimap_mode": 1}, "minimap_mode"),
    ({"step_reward": float("nan")}, "step_reward"),
    ({"render_mode": "human"}, "render_mode"),
])
def test_bad_arguments_say_how_to_fix(kwargs, match):
    with pytest.raises(APIUsageError, match=match):
        make(**kwargs)
