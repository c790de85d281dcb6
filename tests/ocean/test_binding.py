"""The shared binding: in-place buffers, seeding, threads, stats, errors, rendering."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs, specs
from puffer_ocean.env import OceanEnv
from pufferlib.environment import Buffers


def random_actions(env, steps, seed=0):
    rng = np.random.default_rng(seed)
    space = env.single_action_space
    if hasattr(space, "n"):
        return rng.integers(0, space.n, (steps, env.num_agents, 1), dtype=np.int32)
    if hasattr(space, "nvec"):
        return rng.integers(0, space.nvec, (steps, env.num_agents, len(space.nvec)), dtype=np.int32)
    return rng.uniform(-1, 1, (steps, env.num_agents, *space.shape)).astype(np.float32)


def rollout(env, actions, seed):
    obs, _ = env.reset(seed=seed)
    frames = [obs.copy()]
    for a in actions:
        obs, rew, term, trunc, _ = env.step(a)
        frames.append(np.concatenate([obs.reshape(len(obs), -1).astype(np.float32), rew[:, None],
                                      term[:, None], trunc[:, None]], axis=1))
    return frames


ALL = [getattr(envs, specs.class_name(name)) for name in specs.ENVS]  # every env, from the one list


def test_make_gives_one_env_holding_every_copy():
    vec = pufferlib.make("ocean-squared", num_envs=64)
    try:
        assert len(vec.envs) == 1 and isinstance(vec.envs[0], envs.Squared)
        assert vec.envs[0].num_envs == 64 and vec.num_agents == 64
        obs, _ = vec.reset(seed=1)
        assert obs.shape == (64, 11, 11) and obs.dtype == np.uint8
        assert np.all((obs == 1).sum(axis=(1, 2)) == 1)  # one agent per copy
    finally:
        vec.close()


def test_alias_resolves_to_the_same_spec():
    assert pufferlib.registry.spec("puffer_cartpole").id == "ocean-cartpole"


def test_writes_straight_into_the_given_buffers():
    probe = envs.Squared(num_envs=4)
    buf = Buffers.allocate(probe.single_observation_space, probe.single_action_space, 4)
    probe.close()
    env = envs.Squared(num_envs=4, buf=buf)
    try:
        assert env.observations is buf.observations and env.actions is buf.actions
        env.reset(seed=0)
        before = buf.observations.copy()
        buf.actions[:] = 4  # move right: the vectorizer writes actions in place and steps
        env.step(env.actions)
        assert not np.array_equal(before, buf.observations)
        assert np.array_equal(np.argwhere(buf.observations == 1)[:, 2], np.full(4, 6))
    finally:
        env.close()


@pytest.mark.parametrize("cls", ALL)
def test_same_seed_same_trajectory_and_seeds_differ(cls):
    a, b = cls(num_envs=8), cls(num_envs=8)
    try:
        actions = random_actions(a, 200)
        first, second = rollout(a, actions, seed=7), rollout(b, actions, seed=7)
        assert all(np.array_equal(x, y) for x, y in zip(first, second))
        if cls not in (envs.Bandit, envs.Multiagent, envs.Stochastic, envs.Password, envs.ChainMdp):  # no randomness
            other = rollout(b, actions, seed=8)
            assert not all(np.array_equal(x, y) for x, y in zip(first, other))
    finally:
        a.close()
        b.close()


def test_copies_draw_different_random_states():
    env = envs.Squared(num_envs=64)
    try:
        obs, _ = env.reset(seed=0)
        targets = {tuple(np.argwhere(o == 2)[0]) for o in obs}
        assert len(targets) > 10
    finally:
        env.close()


@pytest.mark.parametrize("cls", [envs.Squared, envs.Cartpole, envs.Memory, envs.Breakout, envs.Snake, envs.Target,
                                 envs.Rware, envs.Go])
def test_threads_give_the_same_results_as_one(cls):
    one, three = cls(num_envs=33), cls(num_envs=33, num_threads=3)
    try:
        assert three.num_threads == 3
        actions = random_actions(one, 100)
        assert all(np.array_equal(x, y) for x, y in zip(rollout(one, actions, 3), rollout(three, actions, 3)))
    finally:
        one.close()
        three.close()


def test_stats_arrive_every_log_interval_steps():
    env = envs.Bandit(num_envs=10, log_interval=5)
    try:
        env.reset(seed=0)
        right = np.zeros((10, 1), np.int32)
        wrong = np.ones((10, 1), np.int32)
        infos = [env.step(right if i % 2 == 0 else wrong)[4] for i in range(10)]
        assert [bool(i) for i in infos] == [False] * 4 + [True] + [False] * 4 + [True]
        assert infos[4][0]["n"] == 50 and infos[4][0]["score"] == pytest.approx(0.6)
        assert infos[9][0]["score"] == pytest.approx(0.4)
        assert infos[4][0]["episode_length"] == 1
    finally:
        env.close()


@pytest.mark.parametrize("bad", [np.full((4, 1), 5), np.full((4, 1), -1), np.array([[0], [1], [2], [99]])])
def test_out_of_range_actions_raise(bad):
    env = envs.Squared(num_envs=4)
    try:
        env.reset(seed=0)
        with pytest.raises(pufferlib.APIUsageError, match="out of range"):
            env.step(bad)
    finally:
        env.close()


def test_wrong_dtype_and_shape_raise():
    env = envs.Squared(num_envs=4)
    try:
        env.reset(seed=0)
        with pytest.raises(pufferlib.APIUsageError, match="integers"):
            env.step(np.zeros((4, 1), np.float32))
        with pytest.raises(pufferlib.APIUsageError, match="shape"):
            env.step(np.zeros((5,), np.int32))
        with pytest.raises(pufferlib.APIUsageError, match="out of range"):
            env.step(np.full(4, 2**33, np.int64))
        env.step(np.zeros(4, np.int64))  # a flat vector of any int dtype is fine
    finally:
        env.close()


def test_multidiscrete_and_box_actions_are_checked():
    spaces_env, cont = envs.Spaces(num_envs=2), envs.Continuous(num_envs=2)
    try:
        spaces_env.reset(seed=0)
        cont.reset(seed=0)
        with pytest.raises(pufferlib.APIUsageError, match="dimension 1"):
            spaces_env.step(np.array([[0, 1], [1, 2]]))
        with pytest.raises(pufferlib.APIUsageError, match="not finite"):
            cont.step(np.array([[0.5], [np.nan]], np.float32))
    finally:
        spaces_env.close()
        cont.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"size": 2}, "out of range"), ({"size": 12}, "odd"), ({"size": 7.5}, "must be an int"),
    ({"sise": 11}, "unknown argument"), ({"num_envs": 0}, "num_envs"), ({"num_threads": 0}, "num_threads"),
    ({"log_interval": 0}, "log_interval"), ({"render_mode": "human"}, "render_mode"), ({"num_envs": 2.0}, "int"),
])
def test_bad_constructor_arguments_raise(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Squared(**kwargs)


def test_step_before_reset_and_after_close_raise():
    env = envs.Squared(num_envs=2)
    with pytest.raises(pufferlib.APIUsageError, match="reset"):
        env.step(np.zeros(2, np.int32))
    env.close()
    env.close()
    with pytest.raises(pufferlib.APIUsageError, match="closed"):
        env.reset(seed=0)


@pytest.mark.parametrize("cls", ALL)
def test_render_ansi_and_rgb(cls):
    text_env, rgb_env = cls(num_envs=2, render_mode="ansi"), cls(num_envs=2, render_mode="rgb_array")
    try:
        for env in (text_env, rgb_env):
            env.reset(seed=0)
            env.step(random_actions(env, 1)[0])
        text = text_env.render(env_id=1)
        assert isinstance(text, str) and text.strip()
        frame = rgb_env.render()
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert len(np.unique(frame.reshape(-1, 3), axis=0)) >= 2  # something is drawn on the background
        with pytest.raises(pufferlib.APIUsageError, match="index"):
            rgb_env.render(env_id=2)
    finally:
        text_env.close()
        rgb_env.close()


def test_render_mode_none_renders_nothing():
    env = envs.Squared()
    env.reset(seed=0)
    assert env.render() is None
    env.close()


def test_every_compiled_env_is_registered():
    from puffer_ocean import _ocean

    assert set(_ocean.env_names()) == set(specs.ENVS) == {cls.env_name for cls in ALL}
    for name in specs.ENVS:
        spec = pufferlib.registry.spec(f"ocean-{name}")
        assert spec.backend == "native" and spec.aliases == (f"puffer_{name}",)
        assert spec.load_creator().env_name == name


def test_params_are_listed():
    assert envs.Squared.params() == {"size": ("int", 11.0, 3.0, 63.0)}
    assert issubclass(envs.Cartpole, OceanEnv)


# envs whose default game outlasts 1,500 random steps
SHORT_GAMES = {"freeway": {"game_seconds": 60}, "enduro": {"day_length": 1000}}


@pytest.mark.parametrize("cls", ALL)
def test_random_play_stays_inside_the_observation_space(cls):
    env = cls(num_envs=16, log_interval=100, **SHORT_GAMES.get(cls.env_name, {}))
    try:
        obs, _ = env.reset(seed=0)
        space = env.single_observation_space
        episodes = 0
        for actions in random_actions(env, 1500):
            obs, rew, term, trunc, infos = env.step(actions)
            assert np.isfinite(rew).all() and not (term & trunc).any()
            episodes += sum(info["n"] for info in infos)
            assert ((obs >= space.low) & (obs <= space.high)).all(), "an observation is out of space"
            ended = term | trunc
            if ended.any() and env.writes_final_observations:  # the state each episode ended in, too
                final = env.final_observations[ended]
                assert ((final >= space.low) & (final <= space.high)).all(), "a final observation is out of space"
        assert space.contains(obs[0])
        assert episodes > 0
    finally:
        env.close()


@pytest.mark.parametrize("cls", ALL)
def test_episode_return_is_the_mean_agents_summed_reward(cls):
    """What the trainer shows as environment/episode_return: the rewards an agent row received
    over an episode, summed, and averaged over the agents' episodes that ended."""
    env = cls(num_envs=4, log_interval=10**9, **SHORT_GAMES.get(cls.env_name, {}))
    try:
        env.reset(seed=1)
        running, returns = np.zeros(env.num_agents), []
        for actions in random_actions(env, 3000, seed=1):
            _, rew, term, trunc, _ = env.step(actions)
            running += rew
            ended = term | trunc
            returns += running[ended].tolist()
            running[ended] = 0
        stats = env.log()
        assert returns and stats is not None, "no episode ended: the check proves nothing"
        assert stats["episode_return"] == pytest.approx(np.mean(returns), rel=1e-4, abs=1e-4)
    finally:
        env.close()


def test_workers_each_host_a_native_env_of_their_share_of_copies():
    vec = pufferlib.make("ocean-bandit", num_envs=8, num_workers=2, log_interval=4)
    try:
        obs, _ = vec.reset(seed=0)
        assert obs.shape == (8, 1) and (obs == 1).all()
        infos = []
        for _step in range(8):
            _, rew, term, _, step_infos = vec.step(np.zeros((8, 1), np.int32))
            assert (rew == 1).all() and term.all()
            infos += step_infos
        assert len(infos) == 4 and all(info["n"] == 16 and info["score"] == 1 for info in infos)
    finally:
        vec.close()


def _step_in_child(env, queue):
    try:
        env.step(np.zeros(env.num_agents, np.int32))
        queue.put("stepped")
    except pufferlib.APIUsageError as exc:
        queue.put(str(exc))


def test_threads_started_before_a_fork_refuse_to_step_in_the_child():
    import multiprocessing

    env = envs.Squared(num_envs=4, num_threads=2)
    try:
        env.reset(seed=0)
        ctx = multiprocessing.get_context("fork")
        queue = ctx.Queue()
        child = ctx.Process(target=_step_in_child, args=(env, queue))
        child.start()
        message = queue.get(timeout=30)
        child.join(timeout=30)
        assert "forked child" in message and child.exitcode == 0
        env.step(np.zeros(4, np.int32))  # the parent's threads still work
    finally:
        env.close()


def test_listing_the_specs_loads_neither_the_extension_nor_numpy():
    import subprocess
    import sys

    code = ("import sys, pufferlib.registry as r; specs = r.listed_specs()['ocean']; "
            "print(len(specs), 'numpy' in sys.modules, 'puffer_ocean._ocean' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == [str(len(specs.ENVS) + len(specs.PYTHON_ENVS)), "False", "False"]


def test_buffers_that_c_cannot_write_in_place_are_refused():
    probe = envs.Squared(num_envs=4)
    buf = Buffers.allocate(probe.single_observation_space, probe.single_action_space, 8)
    probe.close()
    strided = Buffers(*(getattr(buf, name)[::2] for name in
                        ("observations", "rewards", "terminals", "truncations", "masks", "actions")))
    with pytest.raises(pufferlib.APIUsageError, match="C-contiguous"):
        envs.Squared(num_envs=4, buf=strided)


def test_reset_without_seed_continues_the_random_streams():
    a, b = envs.Squared(num_envs=32), envs.Squared(num_envs=32)
    try:
        # reset returns the env's in-place arrays: copy what is compared later
        first_a, first_b = a.reset()[0].copy(), b.reset()[0].copy()
        assert not np.array_equal(first_a, first_b)  # fresh entropy on the first reset
        seeded = a.reset(seed=5)[0].copy()
        b.reset(seed=5)
        again_a, again_b = a.reset()[0].copy(), b.reset()[0].copy()
        assert np.array_equal(again_a, again_b)  # the same streams, continued
        assert not np.array_equal(again_a, seeded)  # continued, not restarted
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("cls, kwargs", [(envs.Cartpole, {}), (envs.Grid, {}), (envs.Breakout, {}),
                                         (envs.Snake, dict(num_snakes=1, width=16, height=16, num_food=8,
                                                           max_len=16)),
                                         (envs.Pacman, {}), (envs.Go, {}), (envs.Tripletriad, {}), (envs.Rware, {}),
                                         (envs.TowerClimb, {})])
def test_final_observation_is_the_state_the_episode_ended_in(cls, kwargs):
    """A copy truncated after 3 steps keeps, as its final observation, what a copy that runs
    on from the same seed and actions observes after those 3 steps."""
    cut, free = cls(num_envs=4, max_steps=3, **kwargs), cls(num_envs=4, max_steps=1000, **kwargs)
    try:
        assert cut.writes_final_observations
        actions = random_actions(cut, 3)
        cut.reset(seed=5)
        free.reset(seed=5)
        for a in actions:
            obs, _, term, trunc, _ = cut.step(a)
            free.step(a)
        ended = trunc & ~term  # truncated by the 3-step limit: until then both copies were alike
        assert ended.any()
        np.testing.assert_array_equal(cut.final_observations[ended], free.observations[ended])
        assert not np.array_equal(obs, free.observations)  # cut has already reset
    finally:
        cut.close()
        free.close()


def test_squared_keeps_final_observations():
    env = envs.Squared(num_envs=4)
    try:
        assert env.writes_final_observations
        env.reset(seed=0)
        for a in random_actions(env, 200):
            obs, _, term, trunc, _ = env.step(a)
            ended = term | trunc
            if ended.any():  # the final grid shows the agent (1) on its last cell; the new one differs
                assert (env.final_observations[ended] == 1).sum() == ended.sum()
                assert not np.array_equal(env.final_observations[ended], obs[ended])
    finally:
        env.close()


def test_ansi_render_of_a_large_arena_is_complete():
    env = envs.Snake(num_envs=1, width=512, height=512, num_snakes=1, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    env.close()
    rows = text.splitlines()
    assert len(text) > 1 << 16  # more than the first buffer held
    assert len(rows) == 514 and all(len(row) == 514 for row in rows)  # the arena inside its walls
    assert set(rows[-1]) == {"#"}  # down to the bottom wall


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_envs=8, batch_size=4), "batch_size=4: ocean-bandit is a native env"),
    (dict(num_envs=8, num_workers=2, envs_per_worker=2), "envs_per_worker=2: ocean-bandit is a native env"),
    (dict(num_envs=8, zero_copy=False), "zero_copy: option"),
    (dict(num_envs=8, start_method="spawn"), "start_method: option"),
])
def test_native_ids_reject_layout_arguments_they_cannot_honour(kwargs, message):
    with pytest.raises(pufferlib.APIUsageError, match=message):
        pufferlib.make("ocean-bandit", **kwargs)


def test_native_ids_pass_worker_options_to_worker_processes():
    with pufferlib.make("ocean-bandit", num_envs=8, num_workers=2, zero_copy=False, timeout=30) as vecenv:
        assert not vecenv.zero_copy and vecenv.timeout == 30.0


@pytest.mark.parametrize("seed", [-5, 1.5, 2**32, "3"])
def test_seeds_follow_the_rule_of_every_vectorizer(seed):
    env = envs.Bandit(num_envs=2)
    with pytest.raises(pufferlib.APIUsageError, match=r"ocean-bandit: seed must be None or an int in \[0, 2\*\*32\)"):
        env.reset(seed=seed)
    env.close()


@pytest.mark.parametrize("name", list(specs.ENVS))
def test_every_shipped_training_config_fits_its_env(name):
    """batch_size is a whole number of steps of every agent row, and minibatches divide it."""
    spec = pufferlib.registry.spec(f"ocean-{name}")
    env = spec.load_creator()(num_envs=1, **spec.kwargs)
    try:
        rows = spec.config["vec"]["num_envs"] * env.agents_per_env
    finally:
        env.close()
    train = spec.config["train"]
    assert train["batch_size"] % rows == 0, f"ocean-{name}: batch_size {train['batch_size']} vs {rows} agent rows"
    assert train["batch_size"] % train["minibatch_size"] == 0
