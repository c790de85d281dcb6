"""Rules of the second-wave Ocean envs: target, freeway, convert, tripletriad, tetris, pacman.

Each test sets up a position through the envs' test fields (`set_field`) or plays a
scripted policy read from the observation, then checks the rule: collisions, scoring,
game end, the opponent.
"""

import math

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs


def make(cls, **kwargs):
    env = cls(num_envs=1, **kwargs)
    env.reset(seed=0)
    return env


# ---- target ----

def test_target_reaching_a_star_pays_one_and_moves_the_star():
    env = make(envs.Target, num_agents=2, num_goals=1)
    try:
        env.set_field("ax[0]", 500.0)
        env.set_field("ay[0]", 300.0)
        env.set_field("speed[0]", 0.0)
        env.set_field("gx[0]", 520.0)
        env.set_field("gy[0]", 300.0)
        env.set_field("ax[1]", 10.0)  # the other puffer far away
        env.set_field("ay[1]", 700.0)
        env.set_field("speed[1]", 0.0)
        obs, rew, term, trunc, _ = env.step(np.array([[4, 2], [4, 2]]))  # no turn, no speed change
        assert rew.tolist() == [1.0, 0.0] and not term.any() and not trunc.any()
        assert (env.field("gx[0]"), env.field("gy[0]")) != (520.0, 300.0)
        assert obs[0, -3] == 1.0 and obs[1, -3] == 0.0  # last reward in the observation
        env.set_field("gx[0]", 1000.0)
        env.set_field("gy[0]", 20.0)
        _, rew, _, _, _ = env.step(np.array([[4, 2], [4, 2]]))
        assert rew.tolist() == [0.0, 0.0]
    finally:
        env.close()


def test_target_speed_heading_and_position_are_clamped():
    env = make(envs.Target, num_agents=1, num_goals=1, width=200, height=200)
    try:
        env.set_field("heading[0]", 0.0)
        env.set_field("ax[0]", 100.0)
        env.set_field("ay[0]", 100.0)
        env.set_field("gx[0]", 0.0)
        env.set_field("gy[0]", 199.0)
        for _ in range(30):
            env.step(np.array([[0, 4]]))  # turn left as far as possible, speed up
        assert env.field("heading[0]") == 0.0 and env.field("speed[0]") == 20.0
        assert env.field("ax[0]") == 200.0  # heading 0: along +x, stopped at the border
    finally:
        env.close()


def test_target_episode_is_truncated_after_max_steps_keeping_the_final_view():
    env = make(envs.Target, max_steps=5)
    try:
        for _step in range(5):
            obs, _, term, trunc, _ = env.step(np.full((8, 2), [4, 2]))
        assert trunc.all() and not term.any() and env.field("tick") == 0
        assert not np.array_equal(env.final_observations, obs)  # the new episode's view differs
        assert env.log()["episode_length"] == 5
    finally:
        env.close()


# ---- freeway ----

def test_freeway_up_moves_the_chicken_and_crossing_scores():
    env = make(envs.Freeway, env_randomization=0, speed_randomization=0)
    try:
        y0 = env.field("chicken_y")
        env.step(np.array([1]))
        assert env.field("chicken_y") == pytest.approx(y0 - 4 * 3.0)  # frameskip 4, 3 px per frame
        env.set_field("chicken_y", 45.0)  # just below the far sidewalk
        env.set_field("best_lane", 9)
        _, rew, _, _, _ = env.step(np.array([1]))
        assert env.field("score") == 1 and env.field("best_lane") == 0
        assert rew[0] == pytest.approx(1.1, abs=0.02)  # the last lane and the crossing
        assert env.field("chicken_y") == pytest.approx(720 - 20 - 2 * 3.0)  # from the bottom, 2 more frames up
    finally:
        env.close()


@pytest.mark.parametrize("difficulty", [0, 1])
def test_freeway_a_car_stuns_the_chicken_and_pushes_it_back(difficulty):
    env = make(envs.Freeway, env_randomization=0, speed_randomization=0, difficulty=difficulty)
    try:
        lane0_y = 680 - 32  # centre of lane 0: road starts at 360 + 5 * 64
        env.set_field("chicken_y", float(lane0_y))
        env.set_field("car_x[0]", 1216 / 4 - 1.0)  # lane 0's car under the chicken
        _, rew, _, _, _ = env.step(np.array([0]))
        assert env.field("hits") == 1 and rew[0] == pytest.approx(-0.01)
        if difficulty == 1:  # back to the start, free to move (as in the reference)
            assert env.field("chicken_y") == pytest.approx(700) and env.field("stun") == 0
        else:
            assert env.field("chicken_y") > lane0_y and env.field("stun") > 0
            stunned_y = env.field("chicken_y")
            env.step(np.array([1]))  # up is ignored while stunned
            assert env.field("chicken_y") >= stunned_y
    finally:
        env.close()


def test_freeway_game_ends_after_its_time_and_cars_wrap():
    env = make(envs.Freeway, game_seconds=2, frameskip=4, env_randomization=0, speed_randomization=0)
    try:
        x = env.field("car_x[0]")
        env.step(np.array([0]))
        assert env.field("car_x[0]") > x  # lane 0 drives right
        for _step in range(28):
            _, _, term, _, _ = env.step(np.array([0]))
            assert not term[0]
        _, _, term, _, _ = env.step(np.array([0]))  # 30 steps x 4 frames = 2 s
        assert term[0] and env.log()["episode_length"] == 30
        env.set_field("car_x[0]", 1216.0 + 31.0)
        env.step(np.array([0]))
        assert env.field("car_x[0]") < 100
    finally:
        env.close()


# ---- convert ----

def steer(obs_row, resources, width, height):
    """Turn toward the nearest factory of the held item, keeping the speed."""
    item = int(np.argmax(obs_row[2 * resources + 4:]))
    dx, dy = obs_row[2 * item] * width, obs_row[2 * item + 1] * height
    heading = obs_row[2 * resources] * 2 * math.pi
    want = math.atan2(dy, dx) % (2 * math.pi)
    turn = int(np.clip(round((want - heading) * 12), -4, 4))
    return [turn + 4, 2]


def test_convert_a_steered_puffer_converts_items_in_order():
    env = make(envs.Convert, num_agents=64, num_factories=2, num_resources=2, width=960, height=540,
               max_steps=10_000)
    try:
        obs = env.observations
        rng = np.random.default_rng(0)
        conversions, random_conversions = 0, 0
        for _ in range(5):
            obs, _, _, _, _ = env.step(np.array([[4, 4]] * 64))  # speed 10
        for _ in range(600):
            item = int(np.argmax(obs[0, 8:]))
            actions = rng.integers(0, [9, 5], (64, 2))
            actions[0] = steer(obs[0], 2, 960, 540)
            obs, rew, _, _, _ = env.step(actions)
            if rew[0]:
                conversions += 1
                assert int(np.argmax(obs[0, 8:])) == (item + 1) % 2  # the next item
            else:
                assert int(np.argmax(obs[0, 8:])) == item
            random_conversions += rew[1:].sum() / 63
        assert conversions >= 3 and conversions > 2 * random_conversions
    finally:
        env.close()


# ---- tripletriad ----

def test_tripletriad_placing_needs_a_selected_card_and_the_opponent_answers():
    env = make(envs.Tripletriad)
    try:
        _, rew, _, _, _ = env.step(np.array([5]))  # place with nothing selected
        assert rew[0] == pytest.approx(-0.1) and env.field("owner[0]") == 0
        _, rew, _, _, _ = env.step(np.array([0]))  # select card 1
        assert rew[0] == pytest.approx(-0.1) and env.field("selected") == 0
        obs, rew, term, _, _ = env.step(np.array([5]))  # place it on cell 1
        assert rew[0] == 0 and not term[0] and env.field("owner[0]") == 1 and env.field("selected") == -1
        assert (obs[0, :9] > 0).sum() == 2  # the opponent placed one card too
        env.step(np.array([0]))  # card 1 is on the board: selecting it again does nothing
        assert env.field("selected") == -1
    finally:
        env.close()


def test_tripletriad_captures_follow_the_side_values_and_the_full_board_ends_the_game():
    env = make(envs.Tripletriad)
    opposite = {0: 1, 1: 0, 2: 3, 3: 2}
    moves = {0: (-1, 0), 1: (1, 0), 2: (0, 1), 3: (0, -1)}
    try:
        captures = misses = 0
        for game in range(20):
            env.reset(seed=game)
            for card in range(5):
                obs = env.observations[0].copy()
                owners = obs[:9]
                cell = int(np.flatnonzero(owners == 0)[0])
                hand = obs[64:84].reshape(5, 4)
                env.step(np.array([card]))
                after, rew, term, _, _ = env.step(np.array([5 + cell]))
                row = after[0] if not term[0] else env.final_observations[0]
                if card < 4:  # the opponent answers and may take cards back: check the last move only
                    continue
                r, c = divmod(cell, 3)
                for side, (dr, dc) in moves.items():
                    rr, cc = r + dr, c + dc
                    if not (0 <= rr < 3 and 0 <= cc < 3):
                        continue
                    other = rr * 3 + cc
                    if owners[other] == 0.5:  # an opponent card before the move
                        facing = obs[28 + 4 * other + opposite[side]]
                        captured = facing < hand[card, side]
                        assert (row[other] == 1.0) == captured
                        captures += int(captured)
                        misses += int(not captured)
                if term[0]:
                    scores = row[26:28] * 10
                    assert scores.sum() == pytest.approx(10)
                    expected = np.sign(scores[0] - scores[1])
                    assert rew[0] == pytest.approx(expected) and card == 4
        assert captures > 0 and misses > 0
        log = env.log()  # reset(seed) starts the stats afresh: the last game is reported
        assert log["n"] == 1 and log["win_rate"] in (0, 1)
    finally:
        env.close()


# ---- tetris ----

def test_tetris_hard_drop_fills_and_clears_a_line():
    env = make(envs.Tetris, n_cols=4, n_rows=8, n_init_garbage=0, n_noise_obs=0)
    try:
        env.set_field("piece", 0)  # I, flat: exactly one row of a 4-wide well
        env.set_field("rot", 0)
        env.set_field("col", 0)
        _, rew, term, _, _ = env.step(np.array([5]))
        assert not term[0] and env.field("lines") == 1
        assert rew[0] == pytest.approx(0.02 + 0.1)
        assert env.field("score") == 100 + 2 * 7  # the line, plus 2 per row dropped
        assert env.observations[0, :32].max() == 2  # only the new piece in the well
    finally:
        env.close()


def test_tetris_moves_and_rotations_stop_at_walls_and_the_stack_ends_the_game():
    env = make(envs.Tetris, n_init_garbage=0, n_noise_obs=0)
    try:
        env.set_field("piece", 0)
        env.set_field("rot", 1)  # I upright
        env.set_field("col", 9)
        env.step(np.array([2]))  # right: already at the wall
        assert env.field("col") == 9
        env.step(np.array([3]))  # rotate flat: would leave the well
        assert env.field("rot") == 1
        preview = int(np.argmax(env.observations[0, 206 + 7:206 + 14]))
        env.step(np.array([6]))  # hold: the preview comes in
        held = env.field("hold")
        assert held == 0 and env.field("piece") == preview
        env.step(np.array([6]))  # only once per piece
        assert env.field("hold") == held
        episodes = 0
        for _ in range(200):  # hard drops in the middle stack up to the top
            _, _, term, _, _ = env.step(np.array([5]))
            episodes += int(term[0])
            if term[0]:
                break
        assert episodes == 1 and env.log()["lines_deleted"] == 0
    finally:
        env.close()


# ---- pacman ----

def test_pacman_eats_dots_and_walls_keep_the_direction():
    env = make(envs.Pacman)
    try:
        assert (env.field("px"), env.field("py")) == (13, 23)
        _, rew, _, _, _ = env.step(np.array([0]))  # up is a wall: keep going right
        assert (env.field("px"), env.field("py")) == (14, 23) and rew[0] == 0
        _, rew, _, _, _ = env.step(np.array([3]))  # (15, 23) holds a dot
        assert rew[0] == 1 and env.field("score") == 1 and env.field("remaining") == 243
        assert env.observations[0, 11 + 36:].sum() == 243
    finally:
        env.close()


def test_pacman_ghost_catches_him_unless_frightened():
    env = make(envs.Pacman)
    try:
        env.set_field("gx[0]", 16)
        env.set_field("gy[0]", 23)
        env.set_field("gtimeout[0]", 100)  # the ghost stays put
        env.step(np.array([3]))
        _, _, term, _, _ = env.step(np.array([3]))
        _, _, term, _, _ = env.step(np.array([3]))  # onto the ghost
        assert term[0] and env.log()["n"] == 1
        env.reset(seed=0)
        env.set_field("px", 1)
        env.set_field("py", 4)
        _, rew, _, _, _ = env.step(np.array([0]))  # the pellet at (1, 3)
        assert rew[0] == 1 and env.field("frightened_left") == 35 and env.field("gfright[0]") == 1
        env.set_field("gx[0]", 1)
        env.set_field("gy[0]", 2)
        env.set_field("gtimeout[0]", 100)
        _, rew, term, _, _ = env.step(np.array([0]))  # onto the frightened ghost and a dot
        assert not term[0] and rew[0] == 2 and env.field("greturn[0]") == 1
    finally:
        env.close()


@pytest.mark.parametrize("cls, kwargs, match", [
    (envs.Target, {"num_agents": 65}, "out of range"), (envs.Freeway, {"lane_size": 80}, "do not fit"),
    (envs.Convert, {"num_resources": 9}, "out of range"), (envs.Tripletriad, {"max_steps": 0}, "out of range"),
    (envs.Tetris, {"n_init_garbage": 18}, "free rows"), (envs.Pacman, {"min_start_timeout": 60}, "must not exceed"),
    (envs.Go, {"grid_size": 20}, "out of range"), (envs.Rware, {"num_requested_shelves": 17}, "fits at most"),
    (envs.TrashPickup, {"num_trash": 99}, "below the 100 cells"), (envs.Drone, {"max_rings": 0}, "out of range"),
    (envs.Tripletriad, {"max_step": 5}, "unknown argument"), (envs.Freeway, {"frameskip": 2.5}, "must be an int"),
])
def test_bad_constructor_arguments_name_the_problem(cls, kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        cls(**kwargs)
