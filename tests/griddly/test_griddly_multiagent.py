"""puffer-griddly's multi-agent games through the core's PettingZoo path."""

import numpy as np
import pytest

import pufferlib
from puffer_griddly.multiagent import GriddlyParallelEnv
from pufferlib import APIUsageError
from pufferlib.registry import spec


def test_multi_agent_ids_use_the_pettingzoo_creator():
    for name in ("foragers", "robot-tag-4", "robot-tag-8", "robot-tag-12"):
        s = spec(f"griddly-{name}")
        assert s.creator == "puffer_griddly.multiagent:make" and s.kwargs["game"] == name
        assert s.config["vec"]["num_envs"] == 16


@pytest.mark.parametrize("env_id, agents, obs_shape", [
    ("griddly-foragers", 4, (5, 5, 5)), ("griddly-robot-tag-8", 8, (14, 9, 9))])
def test_every_player_owns_a_row(env_id, agents, obs_shape):
    env = pufferlib.make(env_id, num_envs=2, backend="serial", seed=0)
    try:
        obs, _ = env.reset()
        assert obs.shape == (2 * agents, *obs_shape) and obs.dtype == np.uint8
        assert env.single_action_space.shape == (2,) and env.masks.all()
        obs, rewards, terms, truncs, _ = env.step(np.ones((2 * agents, 2), np.int64))
        assert obs.shape == (2 * agents, *obs_shape) and rewards.shape == (2 * agents,)
    finally:
        env.close()


def test_players_gather_with_their_own_rewards_until_the_potions_are_gone():
    env = GriddlyParallelEnv("foragers", max_steps=100_000)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(5000):
        actions = {agent: (int(rng.integers(2)), int(rng.integers(5))) for agent in env.agents}
        _, rewards, terms, truncs, _ = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        if all(terms.values()):
            break
    assert all(terms.values()) and not any(truncs.values()) and env.agents == []
    assert all(total > 0 for total in totals.values())  # each player gathered some potions
    with pytest.raises(APIUsageError, match="call reset"):
        env.step({})


def test_same_seed_same_episode():
    def run(seed: int) -> list[np.ndarray]:
        env = GriddlyParallelEnv("robot-tag-4")
        frames = [env.reset(seed=seed)[0]["player_1"]]
        rng = np.random.default_rng(2)
        for _ in range(60):
            obs = env.step({a: (int(rng.integers(2)), int(rng.integers(5))) for a in env.agents})[0]
            frames.append(obs["player_1"])
        return frames

    first, again, other = run(5), run(5), run(6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))  # robots start tagged at random


def test_a_player_the_game_marks_done_leaves_and_the_rest_are_truncated(monkeypatch):
    env = GriddlyParallelEnv("robot-tag-4", max_steps=3)
    env.reset(seed=0)
    monkeypatch.setattr(env, "_left", lambda: {"player_2"})  # as if player 2 was tagged out
    _, _, terms, truncs, _ = env.step({})
    assert terms == {"player_1": False, "player_2": True, "player_3": False, "player_4": False}
    assert env.agents == ["player_1", "player_3", "player_4"]
    monkeypatch.setattr(env, "_left", set)
    env.step({})
    obs, _, terms, truncs, _ = env.step({})
    assert set(obs) == {"player_1", "player_3", "player_4"} and truncs == dict.fromkeys(obs, True)
    assert env.agents == []


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(APIUsageError, match="Unknown multi-agent griddly game 'tag'; choose one of: foragers"):
        GriddlyParallelEnv("tag")
    with pytest.raises(APIUsageError, match=r"level must be in 0..2 for griddly game 'foragers', got 3"):
        GriddlyParallelEnv("foragers", level=3)
    with pytest.raises(APIUsageError, match="observer must be 'vector'"):
        GriddlyParallelEnv("foragers", observer="block2d")
    env = GriddlyParallelEnv("foragers")
    env.reset(seed=0)
    with pytest.raises(APIUsageError, match="of player_2 is outside the action space"):
        env.step({"player_1": (0, 1), "player_2": (2, 1)})
