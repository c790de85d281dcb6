"""CraftaxVector on a toy JAX game with Craftax's interface: one jitted step for all copies,
auto-reset inside it (the reset pool), terminal vs truncated, final observations, infos, seeds.

The toy program compiles once for this module (a few hundred ms); Craftax itself is covered
by test_craftax_real.py.
"""

import math

import numpy as np
import pytest

import pufferlib
from puffer_craftax.env import CraftaxVector, Program, crafter_score, default_reset_pool, make
from pufferlib import APIUsageError
from tests.craftax.toy import NAMES, ToyCraftax

STAY, MOVE, DIE, UNLOCK = 0, 1, 2, 3
PROGRAM = Program(ToyCraftax(), NAMES)  # jitted once per (num_envs, pool) shape, shared by the tests
N, POOL = 4, 2  # every test steps this one shape: one compilation of the step for the module


def toy(num_envs: int = N, reset_pool: int | None = POOL, **kwargs) -> CraftaxVector:
    return CraftaxVector("toy", num_envs=num_envs, reset_pool=reset_pool, _program=PROGRAM, **kwargs)


def test_spaces_and_first_observations_come_from_the_program():
    env = toy()
    obs, infos = env.reset(seed=0)
    assert obs is env.observations and obs.shape == (4, 5) and obs.dtype == np.float32 and infos == []
    assert env.single_action_space.n == 4 and env.single_observation_space.shape == (5,)
    assert np.all(obs[:, 1] == 0) and np.all(obs[:, 2:] == 0)  # timestep 0, nothing unlocked
    assert len(set(obs[:, 0].tolist())) == 4  # four different worlds


def test_dying_is_terminal_and_the_row_restarts_in_the_same_step():
    env = toy()
    obs, _ = env.reset(seed=1)
    start = obs.copy()
    obs, rewards, terms, truncs, infos = env.step(np.array([MOVE, DIE, STAY, STAY]))
    assert terms.tolist() == [False, True, False, False] and not truncs.any()
    assert env.final_observations[1, 1] == pytest.approx(0.01)  # its last observation: timestep 1
    assert env.final_observations[1, 0] == start[1, 0]
    assert obs[1, 1] == 0 and obs[1, 0] != start[1, 0]  # a new world, at its first step
    assert obs[0, 0] == pytest.approx(start[0, 0] + 0.001) and obs[0, 1] == pytest.approx(0.01)
    assert [i["episode_length"] for i in infos] == [1]


def test_reaching_the_step_limit_is_a_truncation():
    env = toy()
    env.reset(seed=2)
    for _ in range(4):
        _, _, terms, truncs, infos = env.step(np.array([STAY, STAY, MOVE, MOVE]))
        assert not terms.any() and not truncs.any() and infos == []
    obs, _, terms, truncs, infos = env.step(np.array([STAY, DIE, STAY, STAY]))  # step 5: limit; row 1 also dies
    assert truncs.tolist() == [True, False, True, True] and terms.tolist() == [False, True, False, False]
    assert [i["episode_length"] for i in infos] == [5] * 4 and np.all(obs[:, 1] == 0)


def test_infos_report_the_episodes_achievements_and_a_running_score():
    env = toy(score_window=2)
    obs, _ = env.reset(seed=3)
    first = int(round(obs[0, 0] * 1000)) % 3
    _, rewards, *_ = env.step(np.array([UNLOCK, STAY, STAY, STAY]))
    assert 1.0 <= rewards[0] < 1.001 and np.all(rewards[1:] < 0.001)
    _, _, _, _, infos = env.step(np.array([DIE, STAY, STAY, STAY]))
    (info,) = infos
    assert [info[f"achievement_{n}"] for n in NAMES] == [float(i == first) for i in range(3)]
    assert info["achievements"] == 1.0 and 1.0 <= info["episode_return"] < 1.01
    assert info["score"] == pytest.approx(math.exp(math.log(101) / 3) - 1)
    _, _, _, _, (info,) = env.step(np.array([DIE, STAY, STAY, STAY]))  # an episode without achievements: rates 50% then
    assert info["achievements"] == 0.0 and info["score"] == pytest.approx(crafter_score([50.0 if i == first else 0.0
                                                                                          for i in range(3)]))


def test_copies_ending_together_share_the_pool_round_robin():
    env = toy()
    env.reset(seed=4)
    obs, _, terms, _, _ = env.step(np.full(N, DIE))
    assert terms.all()
    worlds = obs[:, 0].tolist()  # the k-th copy that ended takes world k mod POOL
    assert worlds == [worlds[0], worlds[1]] * 2 and worlds[0] != worlds[1]


def test_the_step_program_compiles_once_per_shape():
    # a reset state with weakly typed leaves (the toy's timestep, Craftax's player_direction) would
    # make the second step compile again: minutes for Craftax on a CPU
    env = toy()
    env.reset(seed=5)
    for _ in range(3):
        env.step(np.full(N, MOVE))
    assert PROGRAM.step._cache_size() == 1


def test_same_seed_same_episodes_other_seed_other_worlds():
    def run(seed: int) -> list[np.ndarray]:
        env = toy()
        frames = [env.reset(seed=seed)[0].copy()]
        rng = np.random.default_rng(0)
        for _ in range(12):
            obs, rewards, *_ = env.step(rng.integers(0, 4, N))
            frames += [obs.copy(), rewards.copy()]
        return frames

    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_rows_are_the_vectorizers_batch():
    vec = pufferlib.vector.make(lambda buf=None: toy(buf=buf), backend="serial", num_envs=2, seed=0)
    try:
        obs, _ = vec.reset()
        assert obs.shape == (8, 5)
        obs, _, terms, _, _ = vec.step(np.array([STAY] * 5 + [DIE, STAY, STAY]))
        assert terms.tolist() == [False] * 5 + [True, False, False] and obs is vec.observations
        assert np.shares_memory(vec.envs[1].observations, vec.observations)
    finally:
        vec.close()


def test_bad_actions_and_calls_say_how_to_fix():
    env = toy()
    with pytest.raises(APIUsageError, match="reset"):
        env.step(np.zeros(N, np.int64))
    env.reset(seed=0)
    with pytest.raises(APIUsageError):
        env.step(np.array([0, 1, 2, 4]))
    with pytest.raises(APIUsageError):
        env.step(np.array([0, 1, 2]))
    env.close()
    with pytest.raises(APIUsageError, match="closed"):
        env.step(np.zeros(N, np.int64))


def test_bad_arguments_name_the_allowed_ones():
    with pytest.raises(APIUsageError, match="max_timesteps, reset_pool, score_window"):
        make("classic", num_envs=2, data_dir="/tmp/x")
    with pytest.raises(APIUsageError, match="variant must be one of"):
        make("mini")
    with pytest.raises(APIUsageError, match="reset_pool=5 is more than num_envs=4"):
        toy(4, reset_pool=5)
    with pytest.raises(APIUsageError, match="num_envs must be an int >= 1"):
        toy(0)
    with pytest.raises(APIUsageError, match="score_window must be an int >= 1"):
        toy(score_window=0.5)


def test_default_pool_grows_with_the_copies():
    assert [default_reset_pool(n) for n in (1, 4, 64, 1024)] == [1, 4, 4, 32]
    assert toy(64, reset_pool=0).reset_pool == 4


def test_score_is_the_geometric_mean_of_success_rates_plus_one():
    assert crafter_score([0.0] * 22) == 0.0
    assert crafter_score([100.0] * 22) == pytest.approx(100.0)
    with pytest.raises(APIUsageError, match="in percent"):
        crafter_score([150.0])
