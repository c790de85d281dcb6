"""Behaviour of the sanity-check environments and of cartpole (against Gymnasium)."""

import gymnasium
import numpy as np
import pytest

from puffer_ocean import envs
from pufferlib.spaces import ObsLayout


def test_cartpole_matches_gymnasium_step_for_step():
    ref = gymnasium.make("CartPole-v1").unwrapped
    env = envs.Cartpole(num_envs=1)
    rng = np.random.default_rng(0)
    try:
        env.reset(seed=0)
        for trial in range(200):
            state = rng.uniform([-2.3, -2, -0.2, -2], [2.3, 2, 0.2, 2])
            ref.reset(seed=trial)
            ref.state = state.copy()
            for name, value in zip(("x", "x_dot", "theta", "theta_dot"), state):
                env.set_field(name, float(value))
            env.set_field("tick", 0)
            for _ in range(40):
                action = int(rng.integers(2))
                ref_obs, ref_rew, ref_term, _, _ = ref.step(action)
                obs, rew, term, trunc, _ = env.step(np.array([[action]], np.int32))
                assert rew[0] == ref_rew and bool(term[0]) == ref_term and not trunc[0]
                if ref_term:
                    break
                np.testing.assert_array_equal(obs[0], ref_obs)
                ours = [env.field(n) for n in ("x", "x_dot", "theta", "theta_dot")]
                np.testing.assert_allclose(ours, ref.state, rtol=1e-12, atol=1e-15)
    finally:
        env.close()
        ref.close()


def test_cartpole_truncates_and_continuous_pushes():
    env = envs.Cartpole(num_envs=1, max_steps=3)
    cont = envs.Cartpole(num_envs=2, continuous=1)
    try:
        env.reset(seed=0)
        truncs = [env.step(np.array([i % 2]))[3][0] for i in range(3)]
        assert truncs == [False, False, True] and env.field("tick") == 0
        assert cont.single_action_space.shape == (1,)
        cont.reset(seed=0)
        for i in range(2):
            cont.set_field("x_dot", 0.0, env_id=i)
        cont.step(np.array([[1.0], [-1.0]], np.float32))
        assert cont.field("x_dot", 0) > 0 > cont.field("x_dot", 1)
    finally:
        env.close()
        cont.close()


def test_squared_reaching_the_target_pays_and_resets():
    env = envs.Squared(num_envs=1, size=5)
    try:
        obs, _ = env.reset(seed=3)
        (ty, tx), (ay, ax) = np.argwhere(obs[0] == 2)[0], np.argwhere(obs[0] == 1)[0]
        moves = [4 if tx > ax else 3] * abs(tx - ax) + [1 if ty > ay else 2] * abs(ty - ay)
        for i, move in enumerate(moves):
            _, rew, term, _, _ = env.step(np.array([move]))
            assert rew[0] == (i == len(moves) - 1) and term[0] == (i == len(moves) - 1)
        assert env.log() == {"score": 1.0, "episode_return": 1.0, "episode_length": len(moves), "n": 1}
        assert tuple(np.argwhere(env.observations[0] == 1)[0]) == (2, 2)  # back in the centre
    finally:
        env.close()


def test_squared_truncates_after_three_times_size():
    env = envs.Squared(num_envs=1, size=5)
    try:
        env.reset(seed=0)
        truncs = [env.step(np.array([0]))[3][0] for _ in range(15)]
        assert truncs == [False] * 14 + [True]
    finally:
        env.close()


def test_bandit_pays_only_the_solution():
    env = envs.Bandit(num_envs=5, num_actions=5, solution=3)
    try:
        env.reset(seed=0)
        _, rew, term, _, _ = env.step(np.arange(5))
        assert rew.tolist() == [0, 0, 0, 1, 0] and term.all()
    finally:
        env.close()


def test_memory_rewards_recalling_the_shown_bits():
    env = envs.Memory(num_envs=64, length=3, delay=2)
    try:
        obs, _ = env.reset(seed=0)
        bits = []
        for _ in range(3):
            bits.append((obs[:, 0] > 0).astype(np.int32))
            obs, rew, _, _, _ = env.step(np.zeros(64, np.int32))
            assert not rew.any()
        assert not obs.any()  # delay: nothing to see
        env.step(np.zeros(64, np.int32))
        obs, _, _, _, _ = env.step(np.zeros(64, np.int32))
        assert (obs[:, 1] == 1).all()  # recall phase
        total = np.zeros(64)
        for t in range(3):
            _, rew, term, _, _ = env.step(bits[t])
            total += rew
        assert np.allclose(total, 1) and term.all()
    finally:
        env.close()


def test_password_pays_only_the_whole_password():
    env = envs.Password(num_envs=2, length=4, password=0b0110)
    try:
        env.reset(seed=0)
        right, wrong = [0, 1, 1, 0], [0, 1, 1, 1]
        for t in range(4):
            _, rew, term, _, _ = env.step(np.array([right[t], wrong[t]]))
        assert rew.tolist() == [1, 0] and term.all()
    finally:
        env.close()


def test_stochastic_rewards_matching_the_probability():
    env = envs.Stochastic(num_envs=2, p_percent=75, horizon=4)
    try:
        env.reset(seed=0)
        for t in range(4):
            _, rew, _, _, _ = env.step(np.array([0 if t < 3 else 1, 0]))
        assert rew[0] == pytest.approx(1.0) and rew[1] == pytest.approx(1 - 0.25 / 0.75)
    finally:
        env.close()


def test_multiagent_has_two_agents_per_copy():
    env = envs.Multiagent(num_envs=3)
    try:
        obs, _ = env.reset(seed=0)
        assert env.num_agents == 6 and obs.tolist() == [[1, 0], [0, 1]] * 3
        _, rew, _, _, _ = env.step(np.array([0, 1, 1, 0, 0, 0]))
        assert rew.tolist() == [1, 1, 0, 0, 1, 0]
    finally:
        env.close()


def test_continuous_reward_is_closeness_to_target():
    env = envs.Continuous(num_envs=4, dims=2)
    try:
        obs, _ = env.reset(seed=0)
        target = obs.copy()
        _, rew, _, _, _ = env.step(target)
        assert np.allclose(rew, 1)
        obs = env.observations.copy()
        _, rew, _, _, _ = env.step(np.full((4, 2), 5.0, np.float32))  # clipped to 1
        assert np.allclose(rew, 1 - np.abs(1 - obs).mean(axis=1), atol=1e-6)
    finally:
        env.close()


def test_spaces_exposes_a_dict_layout_and_scores_both_parts():
    env = envs.Spaces(num_envs=16)
    try:
        assert isinstance(env.obs_layout, ObsLayout) and env.obs_layout.structured
        obs, _ = env.reset(seed=0)
        view = env.obs_layout.unflatten(obs)
        assert view["image"].shape == (16, 5, 5) and view["flat"].shape == (16, 5)
        answer = np.stack([view["image"].sum(axis=(1, 2)) > 0, view["flat"].sum(axis=1) > 0], 1).astype(np.int32)
        _, rew, _, _, _ = env.step(answer)
        assert np.allclose(rew, 1)
        view = env.obs_layout.unflatten(env.observations)
        half = np.stack([view["image"].sum(axis=(1, 2)) > 0, view["flat"].sum(axis=1) <= 0], 1).astype(np.int32)
        _, rew, _, _, _ = env.step(half)
        assert np.allclose(rew, 0.5)
    finally:
        env.close()


def test_chain_mdp_walking_right_reaches_the_far_reward_and_left_at_the_start_takes_the_small_one():
    env = envs.ChainMdp(num_envs=1, length=4, small_reward=0.25, max_steps=20)
    try:
        obs, _ = env.reset(seed=0)
        assert obs[0].tolist() == [1, 0, 0, 0]
        for position in (1, 2, 3):  # right, right, right: one state each, no reward
            obs, rew, term, _, _ = env.step(np.array([1], np.int32))
            assert obs[0].argmax() == position and rew[0] == 0 and not term[0]
        _, rew, term, trunc, _ = env.step(np.array([1], np.int32))  # right at the far end
        assert rew[0] == 1 and term[0] and not trunc[0] and env.field("position") == 0  # a new episode
        _, rew, term, _, _ = env.step(np.array([0], np.int32))  # left at the start: the small reward
        assert rew[0] == 0.25 and term[0]
        assert env.log() == {"score": 0.5, "episode_return": 0.625, "episode_length": 2.5, "n": 2}
    finally:
        env.close()


def test_chain_mdp_left_walks_back_and_the_step_limit_truncates_with_the_final_observation():
    env = envs.ChainMdp(num_envs=1, length=5, max_steps=4, render_mode="ansi")
    try:
        env.reset(seed=0)
        for action, position in ((1, 1), (1, 2), (0, 1)):
            obs, rew, term, _, _ = env.step(np.array([action], np.int32))
            assert obs[0].argmax() == position and rew[0] == 0 and not term[0]
        _, rew, term, trunc, _ = env.step(np.array([1], np.int32))
        assert trunc[0] and not term[0] and rew[0] == 0
        assert env.final_observations[0].argmax() == 2  # where the truncated episode stood
        assert env.render() == "A...G\n"  # a new episode at the start, the goal at the far end
    finally:
        env.close()


def test_chain_mdp_slips_with_its_probability():
    env = envs.ChainMdp(num_envs=4000, length=3, slip=0.25)
    try:
        env.reset(seed=1)
        env.step(np.ones(4000, np.int32))  # right from the start: slipping means left, the small reward
        assert 0.22 < env.terminals.mean() < 0.28 and (env.rewards[env.terminals] == 0.1).all()
    finally:
        env.close()


def test_chain_mdp_draws_the_agent_where_it_stands():
    env = envs.ChainMdp(num_envs=1, length=3, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        start = env.render().copy()
        env.step(np.array([1], np.int32))
        moved = env.render()
        assert start.shape == moved.shape == (32, 96, 3) and (start[:, :32] != moved[:, :32]).any()
    finally:
        env.close()


@pytest.mark.parametrize("action, step", [((0.9, 0.2), (1, 0)), ((-0.5, 0.3), (-1, 0)), ((0.1, 0.6), (0, 1)),
                                          ((0.3, -0.7), (0, -1)), ((0.2, -0.2), (0, 0))])
def test_squared_continuous_steps_along_the_larger_component(action, step):
    env = envs.SquaredContinuous(num_envs=1)
    try:
        env.reset(seed=0)
        x, y = env.field("x"), env.field("y")
        env.step(np.array([action], np.float32))
        assert (env.field("x") - x, env.field("y") - y) == step
    finally:
        env.close()


def test_tmaze_shows_the_cue_only_at_the_start_and_pays_the_cued_turn():
    env = envs.Tmaze(num_envs=1, length=3)
    try:
        for seed in range(6):
            obs, _ = env.reset(seed=seed)
            cue = env.field("cue")
            assert obs[0].tolist() == [cue == 0, cue == 1, 0, 0]
            obs, rew, term, _, _ = env.step(np.array([1 - cue], np.int32))  # a turn in the corridor: nothing
            assert env.field("position") == 0 and rew[0] == 0 and not term[0]
            for _ in range(3):
                obs, rew, term, _, _ = env.step(np.array([2], np.int32))
            assert obs[0].tolist() == [0, 0, 0, 1] and env.field("position") == 3  # the junction, no cue
            _, rew, term, _, _ = env.step(np.array([cue if seed % 2 else 1 - cue], np.int32))
            assert term[0] and rew[0] == (1 if seed % 2 else -1)
            assert env.log()["score"] == seed % 2  # score: the cued turn (each reset starts the stats over)
    finally:
        env.close()


def test_tmaze_truncates_with_the_final_observation_and_draws_itself():
    env = envs.Tmaze(num_envs=1, length=2, max_steps=3, render_mode="ansi")
    try:
        env.reset(seed=0)
        cue = env.field("cue")
        assert env.render().splitlines() == ["*+-" if cue == 0 else "-+*", " | ", " A "]
        for _ in range(2):
            env.step(np.array([2], np.int32))
        _, rew, term, trunc, _ = env.step(np.array([2], np.int32))  # forward at the junction: nothing
        assert trunc[0] and not term[0] and rew[0] == 0
        assert env.final_observations[0].tolist() == [0, 0, 0, 1]
    finally:
        env.close()


def test_onestateworld_pays_the_sure_reward_or_the_chance_of_one_in_one_step():
    env = envs.Onestateworld(num_envs=4000, render_mode="ansi")
    obs, _ = env.reset(seed=0)
    assert (obs == 1).all()
    _, rew, term, trunc, _ = env.step(np.zeros(4000, np.int32))
    assert (rew == 0.5).all() and term.all() and not trunc.any()
    _, rew, term, _, _ = env.step(np.ones(4000, np.int32))
    assert set(np.unique(rew)) == {0.0, 1.0} and abs(rew.mean() - 0.75) < 0.03 and term.all()
    stats = env.log()
    assert stats["score"] == 0.5 and stats["episode_length"] == 1  # one of the two steps took action 1
    env.close()


def test_onestateworld_renders_the_last_action():
    env = envs.Onestateworld(num_envs=1, render_mode="ansi")
    env.reset(seed=0)
    env.step(np.array([1], np.int32))
    assert "last action: 1" in env.render()
    env.close()
    env = envs.Onestateworld(num_envs=1, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(np.array([0], np.int32))
    frame = env.render()
    assert frame.shape == (32, 64, 3) and (frame[16, 16] != frame[16, 48]).any()
    env.close()
