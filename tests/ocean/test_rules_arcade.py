"""Rules of the Ocean arcade games: pong, breakout, snake, freeway, tetris, pacman, enduro.

Each test sets up a position through the env's test fields (`set_field`, read back with
`field`) or plays a scripted or random policy, steps the env, then checks one rule:
collisions, scoring, lives, game end. The last test runs `puffer eval` on ocean-breakout and
checks that the video it writes shows a real game.
"""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs
from tests.ocean.rules_helpers import make

# ---- pong ----

def test_pong_scores_and_concedes():
    env = envs.Pong(num_envs=1, max_score=2)
    try:
        env.reset(seed=0)
        env.set_field("ball_x", 150.0)
        env.set_field("ball_vx", 3.0)
        env.set_field("ball_y", 20.0)
        env.set_field("ball_vy", 0.0)
        env.set_field("paddle_y", 150.0)  # far from the ball: the agent misses
        _, rew, term, _, _ = env.step(np.array([0]))
        assert rew[0] == -1 and not term[0] and env.field("opp_score") == 1
        env.set_field("ball_x", 6.0)
        env.set_field("ball_vx", -3.0)
        env.set_field("ball_y", 180.0)
        env.set_field("ball_vy", 0.0)
        env.set_field("opp_y", 0.0)
        _, rew, _, _, _ = env.step(np.array([0]))
        assert rew[0] == 1 and env.field("score") == 1
    finally:
        env.close()


def test_pong_paddle_returns_the_ball_and_the_game_ends_at_max_score():
    env = envs.Pong(num_envs=1, max_score=1, opponent_speed=0.0)
    try:
        env.reset(seed=0)
        env.set_field("opp_y", 0.0)
        env.set_field("ball_x", 150.0)
        env.set_field("ball_vx", 3.0)
        env.set_field("ball_y", 100.0)
        env.set_field("ball_vy", 0.0)
        env.set_field("paddle_y", 90.0)
        env.step(np.array([0]))
        assert env.field("ball_vx") < 0  # returned
        env.set_field("ball_x", 5.0)
        env.set_field("ball_y", 150.0)
        _, rew, term, _, _ = env.step(np.array([0]))
        assert rew[0] == 1 and term[0]
        assert env.log()["score"] == 1
    finally:
        env.close()


# ---- breakout ----

def test_breakout_launch_break_a_brick_and_lose_balls():
    env = envs.Breakout(num_envs=1, balls=1)
    try:
        obs, _ = env.reset(seed=0)
        assert obs.shape == (1, 118) and obs[0, 10:].sum() == 0 and env.field("in_play") == 0  # 1 = broken
        env.step(np.array([1]))
        assert env.field("in_play") == 1
        env.set_field("ball_x", 100.0)
        env.set_field("ball_y", 136.0)  # just below the bottom row of bricks (y = 132)
        env.set_field("ball_vx", 0.0)
        env.set_field("ball_vy", -7.0)
        _, rew, _, _, _ = env.step(np.array([0]))
        assert rew[0] == 1 and env.observations[0, 10:].sum() == 1 and env.field("ball_vy") > 0
        assert env.observations[0, 10 + 5 * 18 + 100 // 32] == 1  # bottom row, column 3
        env.set_field("ball_x", 500.0)
        env.set_field("ball_y", 328.0)
        env.set_field("paddle_x", 0.0)
        _, rew, term, _, _ = env.step(np.array([0]))
        assert term[0] and rew[0] == -1  # the only ball is lost: game over
        log = env.log()
        assert log["score"] == 1 and log["episode_return"] == 0  # one brick, one ball lost
    finally:
        env.close()


def _drop_ball(env, env_id, paddle_x):
    """Put copy `env_id`'s ball in play just above the paddle line, falling straight down at x = 100."""
    for name, value in (("in_play", 1), ("paddle_x", paddle_x), ("ball_x", 100.0), ("ball_y", 300.0),
                        ("ball_vx", 0.0), ("ball_vy", 7.0)):
        env.set_field(name, value, env_id=env_id)


def test_breakout_losing_a_ball_costs_reward_and_catching_it_does_not():
    # The bug this guards: a lost ball is relaunched from the paddle into the bricks, so with
    # no reward for losing it, missing cost nothing within the discount horizon and PPO
    # never learned to follow the ball (7 bricks after 20M steps; random play 6.5).
    env = envs.Breakout(num_envs=2, balls=3)
    try:
        env.reset(seed=0)
        _drop_ball(env, 0, paddle_x=400.0)  # copy 0: the paddle is far away, the ball is lost
        _drop_ball(env, 1, paddle_x=70.0)  # copy 1: the paddle is under the ball, it bounces
        rewards = np.zeros(2)
        for _ in range(6):
            _, rew, term, trunc, _ = env.step(np.array([0, 0]))
            rewards += rew
            assert not term.any() and not trunc.any()
        assert rewards[0] == -1 and env.field("balls_left", 0) == 2 and env.field("in_play", 0) == 0
        assert rewards[1] == 0 and env.field("balls_left", 1) == 3 and env.field("ball_vy", 1) < 0
    finally:
        env.close()


def test_breakout_observation_shows_the_ball_relative_to_the_paddle():
    env = envs.Breakout(num_envs=1)
    try:
        obs, _ = env.reset(seed=0)
        assert obs[0, 2] == pytest.approx(obs[0, 0])  # held ball: centred over the paddle
        assert obs[0, 0] == pytest.approx(0.0) and (obs[0, 10:] == 0).all()
        env.step(np.array([1]))
        for paddle_x, ball_x, side in ((0.0, 300.0, 1), (400.0, 100.0, -1)):
            env.set_field("paddle_x", paddle_x)
            env.set_field("ball_x", ball_x)
            env.set_field("ball_y", 200.0)
            obs, *_ = env.step(np.array([0]))
            assert np.sign(obs[0, 2] - obs[0, 0]) == side
        for corner in ((0.0, 0.0), (570.0, 330.0)):  # the court's corners map to about -1 and 1
            env.set_field("ball_x", corner[0])
            env.set_field("ball_y", corner[1] - 7.0 * (corner[1] > 0))
            env.set_field("ball_vx", 0.0)
            env.set_field("ball_vy", 7.0 if corner[1] > 0 else -7.0)
            obs, *_ = env.step(np.array([0]))
            assert (np.abs(obs[0, :10]) <= 1).all()
            assert np.abs(obs[0, 2]) > 0.95 and np.abs(obs[0, 3]) > 0.9
    finally:
        env.close()


def test_breakout_paddle_moves_and_stays_on_court():
    env = envs.Breakout(num_envs=1)
    try:
        env.reset(seed=0)
        for _ in range(100):
            env.step(np.array([2]))
        assert env.field("paddle_x") == 576 - 62
        env.step(np.array([3]))
        assert env.field("paddle_x") == 576 - 62 - 8
    finally:
        env.close()


def test_breakout_frameskip_repeats_the_action_and_sums_the_rewards():
    # frameskip k: one step plays k frames under the same action; rewards add up.
    skip, one = envs.Breakout(num_envs=8, frameskip=4), envs.Breakout(num_envs=8)
    try:
        skip.reset(seed=3)
        one.reset(seed=3)
        rng = np.random.default_rng(0)
        compared = 0
        for _ in range(100):
            action = rng.integers(0, 4, 8)
            obs, rew, term, trunc, _ = skip.step(action)
            ended, summed = term | trunc, np.zeros(8, np.float32)
            for _ in range(4):
                _, r, t, tr, _ = one.step(action)
                summed += r
                ended = ended | t | tr
            if ended.any():
                break  # a copy's game ended (random play loses its balls): the comparison stops there
            assert np.array_equal(obs, one.observations) and np.array_equal(rew, summed)
            compared += 1
        assert compared >= 20
        # the rewards of four frames: break a brick in the first, then compare the summed reward
        for env in (skip, one):
            env.set_field("ball_x", 100.0)
            env.set_field("ball_y", 136.0)
            env.set_field("ball_vx", 0.0)
            env.set_field("ball_vy", -7.0)
            env.set_field("in_play", 1)
        _, rew, *_ = skip.step(np.zeros(8, np.int64))
        summed = sum(one.step(np.zeros(8, np.int64))[1][0] for _ in range(4))
        assert rew[0] == summed == 1
    finally:
        skip.close()
        one.close()


def test_breakout_frameskip_stops_at_the_game_end():
    env = envs.Breakout(num_envs=1, balls=1, frameskip=4)
    try:
        env.reset(seed=0)
        env.step(np.array([1]))
        _drop_ball(env, 0, paddle_x=400.0)
        env.set_field("ball_y", 320.0)  # lost in the step's second frame
        _, rew, term, _, _ = env.step(np.array([0]))
        assert term[0] and rew[0] == -1 and env.log()["episode_length"] == 2  # steps, not frames
    finally:
        env.close()


# ---- snake ----

def test_snake_views_eats_and_dies():
    env = envs.Snake(num_envs=2, num_snakes=3, width=16, height=16, num_food=5, max_len=16)
    try:
        obs, _ = env.reset(seed=1)
        assert obs.shape == (6, 11, 11) and (obs[:, 5, 5] == 3).all()  # every view is centred on a head
        rng = np.random.default_rng(0)
        food = deaths = 0
        for _ in range(3000):
            _, rew, term, _, _ = env.step(rng.integers(0, 4, 6))
            food += int((rew > 0).sum())
            deaths += int(term.sum())
            assert np.all(rew[term] == -1)
            assert (env.observations[:, 5, 5] == 3).all()
        assert food > 0 and deaths > 0
        assert (env.observations == 1).sum() > 0 and (env.observations == 2).sum() > 0
    finally:
        env.close()


def test_snake_arena_size_is_checked():
    with pytest.raises(pufferlib.APIUsageError, match="below"):
        envs.Snake(width=8, height=8, num_snakes=4, max_len=16)


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


def test_freeway_observes_lane_speeds_and_the_traffic_at_the_chicken():
    env = make(envs.Freeway, env_randomization=0, speed_randomization=0)
    try:
        obs = env.observations[0]
        assert obs.shape == (53,) and ((obs >= 0) & (obs <= 1)).all()
        speeds = [1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0]
        start = [1, 2, 3, 4, 5, 5, 4, 3, 2, 1]  # each lane's starting speed step
        assert obs[34:44] == pytest.approx([speeds[s] / 6.0 for s in start])
        # on the near sidewalk: no offset in a lane (0.5), and the view's first lanes (-2, -1) are
        # sidewalks, where nothing ever comes
        assert obs[44] == 0.5 and obs[45:49] == pytest.approx([1.0] * 4)
        # the chicken spans x 284-324 and lane 0's car is 64 wide (2 px per frame, right): it overlaps
        # the chicken while |car_x - 304| < 52; the view counts frames over 60 until it arrives (0 while
        # it overlaps) and until it has passed (its back edge beyond 324), both capped at 60 (the last:
        # just past, the next lap 1,277 px away)
        for car_x, arrive, passed in ((304.0, 0, 26), (252.0, 0, 52), (200.0, 26, 78), (359.0, 60, 60)):
            env.set_field("chicken_y", 680.0 - 32)  # lane 0's centre: the road starts at 360 + 5 x 64
            env.set_field("stun", 100)  # hits are not checked while stunned: the car may sit on the chicken
            env.set_field("car_x[0]", car_x - 8.0)  # it drives 8 px in the step
            env.step(np.array([0]))
            view = env.observations[0, 44:53]
            assert view[0] == pytest.approx(0.5 - 9.6 / 64, abs=1e-4)  # its centre, pushed 4 x 2.4 px down in the stun
            # lanes -1 (the sidewalk), 0 (the car's), 1, 2
            assert view[1:5] == pytest.approx([1.0, 1.0, min(arrive / 60, 1), min(passed / 60, 1)], abs=1e-4)
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
    env = make(envs.Tetris, n_init_garbage=0, n_noise_obs=0, penalty_game_over=1.5)
    try:
        env.set_field("piece", 0)
        env.set_field("rot", 1)  # I upright
        env.set_field("col", 9)
        env.step(np.array([2]))  # right: already at the wall
        assert env.field("col") == 9
        env.set_field("col", 5)
        _, rew, _, _, _ = env.step(np.array([3]))  # a rotation pays nothing by default (it was farmed at 0.01)
        assert env.field("rot") == 2 and rew[0] == 0
        env.set_field("rot", 1)
        env.set_field("col", 9)
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
            _, rew, term, _, _ = env.step(np.array([5]))
            episodes += int(term[0])
            if term[0]:
                break
        assert episodes == 1 and env.log()["lines_deleted"] == 0
        assert rew[0] == pytest.approx(0.02 - 1.5)  # the last hard drop, then game over
    finally:
        env.close()


def test_tetris_shaping_rewards_and_the_hole_penalty():
    """A rotation earns reward_rotation, a hard drop reward_hard_drop, and each hole a lock leaves under a
    block costs penalty_hole (a T dropped flat on the floor covers the two cells beside its stem), earned
    back when a lock removes it."""
    env = make(envs.Tetris, n_cols=4, n_rows=8, n_init_garbage=0, n_noise_obs=0,
               reward_rotation=0.5, reward_hard_drop=0.25, penalty_hole=0.05)
    try:
        env.set_field("piece", 2)  # T
        env.set_field("rot", 3)
        env.set_field("col", 0)
        _, rew, _, _, _ = env.step(np.array([3]))  # rotate to flat, stem down
        assert env.field("rot") == 0 and rew[0] == pytest.approx(0.5)
        _, rew, _, _, _ = env.step(np.array([5]))
        assert rew[0] == pytest.approx(0.25 - 2 * 0.05)
        env.set_field("piece", 0)  # I upright in the free column: clears the T's row, and both holes with it
        env.set_field("rot", 1)
        env.set_field("col", 3)
        _, rew, _, _, _ = env.step(np.array([5]))
        assert env.field("lines") == 1 and rew[0] == pytest.approx(0.25 + 0.1 + 2 * 0.05)
    finally:
        env.close()


@pytest.mark.parametrize("garbage_start, rows", [(0, 1), (10_000, 0)])
def test_tetris_garbage_rises_from_garbage_start(garbage_start, rows):
    """A garbage row with one hole comes in every 100 steps from `garbage_start` on; none at or past max_ticks."""
    env = make(envs.Tetris, n_init_garbage=0, n_noise_obs=0, garbage_start=garbage_start)
    try:
        for _ in range(99):  # the piece falls a row per 6 steps: by step 100 it is near row 16, above the bottom
            env.step(np.array([0]))
        assert env.observations[0, 190:200].sum() == 0
        env.step(np.array([0]))
        assert env.observations[0, 190:200].sum() == 9 * rows
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


# ---- enduro ----

def test_enduro_throttle_steering_and_crashes():
    env = make(envs.Enduro)
    try:
        speed = env.field("speed")
        for _ in range(10):
            env.step(np.array([7]))  # accelerate right
        assert env.field("speed") > speed and env.field("px") > 0.5
        fast = env.field("speed")
        env.step(np.array([4]))  # brake
        assert env.field("speed") < fast
        env.set_field("eon[0]", 1)
        env.set_field("ex[0]", env.field("px"))
        env.set_field("ed[0]", 0.035)  # a rival just ahead, same line
        env.set_field("speed", 0.26)
        env.step(np.array([1]))
        assert env.field("cooldown") > 0 and env.field("speed") == pytest.approx(0.25)
        env.step(np.array([3]))  # steering is locked while the crash lasts
        px = env.field("px")
        env.step(np.array([3]))
        assert env.field("px") == pytest.approx(px, abs=1e-3)
    finally:
        env.close()


def test_enduro_overtaking_counts_off_and_being_overtaken_counts_back():
    env = make(envs.Enduro, cars_first_day=1, day_length=200)
    try:
        for name, value in (("eon[0]", 1), ("ex[0]", 0.9), ("px", 0.1), ("ed[0]", 0.001), ("speed", 1.0)):
            env.set_field(name, value)
        _, rew, term, _, _ = env.step(np.array([1]))
        assert rew[0] == 1 and env.field("cars_to_pass") == 0 and not term[0]
        for name, value in (("ed[0]", -0.001), ("speed", 0.25)):
            env.set_field(name, value)
        _, rew, _, _, _ = env.step(np.array([0]))
        assert rew[0] == -1 and env.field("cars_to_pass") == 1
        terms = []
        for _ in range(400):  # the day ends with a car still to pass: the race is over
            _, _, term, _, _ = env.step(np.array([4]))
            terms.append(bool(term[0]))
        assert any(terms) and env.log()["days_completed"] == 0
    finally:
        env.close()


def enduro_day_at_speed(speed: float) -> int:
    """Cars overtaken (net) in one day of 6000 frames, the player held at `speed` on the road's left edge,
    beyond every rival's reach (lane 0's centre is 1/6 away, a car's reach 0.16)."""
    env = make(envs.Enduro, cars_first_day=10_000)
    try:
        total = 0.0
        for _ in range(6000):
            env.set_field("speed", speed)
            env.set_field("px", 0.0)
            _, rew, term, _, _ = env.step(np.array([3]))  # left: stay on the edge through the curves
            assert env.field("cooldown") == 0  # no crash
            total += rew[0]
        assert term[0]  # the day ended with cars to pass
        return int(total)
    finally:
        env.close()


def test_enduro_traffic_at_full_speed_allows_the_day_one_quota():
    # a rival enters every 20 frames at full speed on day 1 (40 at the lowest speed): 300 a day against
    # a quota of 200; one every 40 frames (150 a day) made the quota unreachable
    assert 280 <= enduro_day_at_speed(1.0) <= 300
    assert -150 <= enduro_day_at_speed(0.25) <= -140  # the slowest: one every 40 frames, from behind, overtakes


def test_enduro_passing_the_quota_starts_the_next_day():
    env = make(envs.Enduro, cars_first_day=1, day_length=150)
    try:
        for name, value in (("eon[0]", 1), ("ex[0]", 0.9), ("px", 0.1), ("ed[0]", 0.001), ("speed", 1.0)):
            env.set_field(name, value)
        env.step(np.array([1]))
        assert env.field("cars_to_pass") == 0
        for _ in range(150):
            env.step(np.array([1]))
        assert env.field("day") == 2 and env.field("cars_to_pass") >= 290
    finally:
        env.close()


# ---- puffer eval on breakout ----

def test_puffer_eval_writes_a_video_of_a_real_game(tmp_path):
    import imageio.v3 as iio

    from pufferlib import cli

    video = tmp_path / "run.gif"
    assert cli.main(["eval", "ocean-breakout", "--episodes", "1", "--vec.num-envs", "1",
                     "--video-path", str(video)]) == 0
    frames = iio.imread(video)
    assert frames.shape[1:] == (330, 576, 3) and len(frames) > 50
    assert len({frame.tobytes() for frame in frames[::10]}) > 3  # the ball and paddle move
