"""puffer-dmcontrol: the ids, the adapter against dm_control's own env, seeding, ends, refused kwargs."""

import subprocess
import sys

import numpy as np
import pytest

import pufferlib
from puffer_dmcontrol import specs
from puffer_dmcontrol.env import DMControlEnv, import_suite, make
from pufferlib import APIUsageError
from pufferlib.registry import spec

suite = import_suite()  # dm_control.suite, imported as the plugin imports it (its GL backend chosen)


def test_every_benchmarking_task_has_an_id_with_the_shipped_config():
    assert {(d, t) for d, t, _ in specs.TASKS} == set(suite.BENCHMARKING)
    for env_id in ("dmc-cartpole-swingup", "dmc-walker-walk", "dmc-cheetah-run"):
        s = spec(env_id)
        assert s.package == "puffer-dmcontrol" and s.policy == "pufferlib.models:ActorCritic"
        assert s.config["normalize"] == {"observations": True, "rewards": True}
        assert s.config["train"]["total_timesteps"] == 1_000_000 and s.kwargs["action_repeat"] == 1
    assert spec("dmc-ball_in_cup-catch").id == "dmc-ball-in-cup-catch"  # the suite's spelling is an alias
    assert spec("dmc-point-mass-easy").kwargs["domain"] == "point_mass"


def test_the_entry_module_does_not_import_dm_control():
    code = ("import sys, pufferlib; from pufferlib.registry import spec; spec('dmc-walker-walk'); "
            "assert 'dm_control' not in sys.modules and 'puffer_dmcontrol.env' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_spaces_are_a_flat_float32_vector_and_unit_actions():
    env = DMControlEnv("walker", "walk")
    ref = suite.load("walker", "walk")
    sizes = {name: int(np.prod(s.shape)) for name, s in ref.observation_spec().items()}
    assert env.observation_space.shape == (sum(sizes.values()),) == (24,)
    assert env.observation_space.dtype == np.float32
    assert env.action_space.shape == ref.action_spec().shape == (6,)
    assert (env.action_space.low == -1).all() and (env.action_space.high == 1).all()
    assert list(env.obs_slices) == ["orientations", "height", "velocity"]
    assert env.obs_slices["height"] == (slice(14, 15), ())
    env.close()


@pytest.mark.parametrize("domain, task", [("walker", "walk"), ("cartpole", "swingup")])
def test_steps_equal_dm_controls_own_in_the_observation_specs_order(domain, task):
    env = DMControlEnv(domain, task)
    ref = suite.load(domain, task, task_kwargs={"random": 7})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=7)
    timestep = ref.reset()
    for _ in range(30):
        expected = np.concatenate([np.ravel(v) for v in timestep.observation.values()]).astype(np.float32)
        np.testing.assert_array_equal(obs, expected)
        parts = env.unflatten(obs)
        for name, value in timestep.observation.items():
            np.testing.assert_array_equal(parts[name], np.asarray(value, np.float32))
        action = rng.uniform(-1, 1, env.action_space.shape).astype(np.float32)
        timestep = ref.step(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert reward == timestep.reward and not terminated and not truncated and info == {}
    env.close()


def test_the_same_seed_gives_the_same_episode_and_another_seed_another():
    def run(seed: int) -> list[np.ndarray]:
        env = DMControlEnv("cheetah", "run")
        rng = np.random.default_rng(1)
        frames = [env.reset(seed=seed)[0]]
        frames += [env.step(rng.uniform(-1, 1, 6))[0] for _ in range(50)]
        frames.append(env.reset()[0])  # the next episode's start follows from the seed too
        env.close()
        return frames

    first, second, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert not np.array_equal(first[0], other[0]) and not np.array_equal(first[-1], other[-1])


def test_vectorized_copies_are_seeded_apart_and_reproducibly():
    def starts() -> np.ndarray:
        env = pufferlib.make("dmc-cartpole-swingup", num_envs=3, backend="serial", seed=11)
        obs, _ = env.reset()
        env.close()
        return obs.copy()

    a, b = starts(), starts()
    np.testing.assert_array_equal(a, b)
    assert len({row.tobytes() for row in a}) == 3


def test_the_time_limit_truncates_at_1000_control_steps():
    env = DMControlEnv("pendulum", "swingup")
    env.reset(seed=0)
    zero = np.zeros(1, np.float32)
    ends = [env.step(zero)[2:4] for _ in range(1000)]
    assert ends[-1] == (False, True) and set(ends[:-1]) == {(False, False)}
    with pytest.raises(APIUsageError, match="call reset"):
        env.step(zero)
    env.close()


def test_action_repeat_sums_rewards_and_shortens_the_episode():
    repeated, single = DMControlEnv("cartpole", "balance", action_repeat=4), DMControlEnv("cartpole", "balance")
    repeated.reset(seed=2)
    single.reset(seed=2)
    action = np.array([0.3], np.float32)
    for step in range(250):
        obs, reward, terminated, truncated, _ = repeated.step(action)
        total = 0.0
        for _ in range(4):
            expected, r, _, single_truncated, _ = single.step(action)
            total += r
        np.testing.assert_array_equal(obs, expected)
        assert reward == pytest.approx(total) and truncated == single_truncated == (step == 249)
    assert not terminated


def test_actions_are_clipped_and_scaled_to_the_tasks_bounds():
    env = DMControlEnv("cartpole", "swingup")
    np.testing.assert_array_equal(env.scale_action([0.25]), [0.25])  # the suite's bounds are [-1, 1]
    np.testing.assert_array_equal(env.scale_action([3.0]), [1.0])
    env._low, env._high, env._identity = np.array([0.0]), np.array([2.0]), False  # a task with bounds [0, 2]
    np.testing.assert_allclose(env.scale_action([-1.0]), [0.0])
    np.testing.assert_allclose(env.scale_action([0.5]), [1.5])
    np.testing.assert_allclose(env.scale_action([-7.0]), [0.0])
    np.testing.assert_allclose(env.scale_action([np.inf]), [2.0])
    with pytest.raises(APIUsageError, match="never NaN"):
        env.scale_action([np.nan])
    env.close()


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(APIUsageError, match="the env kwargs are domain, task, action_repeat, render_mode"):
        make(domain="walker", task="walk", xml_path="/tmp/model.xml")
    with pytest.raises(APIUsageError, match="do not take environment_kwargs"):
        pufferlib.make("dmc-walker-walk", num_envs=1, backend="serial", environment_kwargs={"time_limit": 5})
    with pytest.raises(APIUsageError, match="not a dm_control suite domain; domains: acrobot, "):
        DMControlEnv("walkr", "walk")
    with pytest.raises(APIUsageError, match="not a task of the walker domain; its tasks: stand, walk, run"):
        DMControlEnv("walker", "jog")
    with pytest.raises(APIUsageError, match="action_repeat must be an int >= 1"):
        DMControlEnv(action_repeat=0)
    with pytest.raises(APIUsageError, match="render_mode must be None or 'rgb_array'"):
        DMControlEnv(render_mode="human")
    with pytest.raises(APIUsageError, match="render_size must be"):
        DMControlEnv(render_size=(64,))


def test_the_default_policy_acts_on_the_env():
    import torch

    from pufferlib.models import ActorCritic
    from pufferlib.pytorch import sample_action

    env = pufferlib.make("dmc-cheetah-run", num_envs=2, backend="serial", seed=0)
    policy = ActorCritic(env, hidden_size=16)
    obs, _ = env.reset()
    for _ in range(3):
        logits, value = policy(torch.from_numpy(obs))
        obs = env.step(sample_action(logits).numpy())[0]
    assert value.shape == (2, 1) and obs.shape == (2, 17) and np.isfinite(obs).all()
    env.close()


def test_making_an_env_prints_nothing_to_stderr():
    # mujoco 4 warns through absl that the suite's cheetah model uses `settotalmass`
    code = "from puffer_dmcontrol.env import DMControlEnv; DMControlEnv('cheetah', 'run').reset(seed=0)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == ""
