"""Behaviour of the game environments: pong, breakout, snake, connect4, grid."""

from collections import deque

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs


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


def test_connect4_opponent_takes_its_win_and_illegal_moves_lose():
    env = envs.Connect4(num_envs=64)
    try:
        env.reset(seed=0)
        lost = False
        for _ in range(6):  # always play column 0: the opponent must win or the column fills
            _, rew, term, _, _ = env.step(np.zeros(64, np.int32))
            lost |= bool((term & (rew == -1)).any())
        assert lost
        stats = env.log()
        assert stats["score"] == 0 and stats["episode_return"] == -1
    finally:
        env.close()


def test_connect4_agent_can_win_and_the_opponent_blocks():
    env = envs.Connect4(num_envs=1)
    try:
        for seed in range(40):
            obs, _ = env.reset(seed=seed)
            if obs.any():  # the opponent started
                continue
            # Stack three in column 3: the opponent must block the fourth.
            for _ in range(3):
                _, rew, term, _, _ = env.step(np.array([3]))
                if term[0]:
                    break
            board = env.observations[0].reshape(6, 7)
            if not term[0] and (board[:, 3] == 1).sum() == 3:
                assert board[2, 3] == -1  # blocked on top of the agent's three
                return
        pytest.fail("no game reached the blocking position")
    finally:
        env.close()


def _reachable(maze: np.ndarray, start: tuple, goal: tuple) -> bool:
    seen, todo = {start}, deque([start])
    while todo:
        y, x = todo.popleft()
        if (y, x) == goal:
            return True
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (y + dy, x + dx)
            if maze[n] != "#" and n not in seen:
                seen.add(n)
                todo.append(n)
    return False


def test_grid_mazes_are_solvable_and_differ():
    env = envs.Grid(num_envs=4, size=15, render_mode="ansi")
    try:
        mazes = set()
        env.reset(seed=0)
        for i in range(4):
            text = env.render(env_id=i)
            maze = np.array([list(row) for row in text.strip("\n").split("\n")])
            assert maze.shape == (15, 15) and (maze[0] == "#").all() and (maze[:, -1] == "#").all()
            start = tuple(np.argwhere(maze == "@")[0])
            goal = tuple(np.argwhere(maze == "*")[0])
            assert start == (1, 1) and _reachable(maze, start, goal)
            mazes.add(text)
        assert len(mazes) == 4
        view = env.observations[0]
        assert view.shape == (11, 11) and (view[:5, :5] == 1).all()  # outside the maze, top-left: wall
    finally:
        env.close()


def test_grid_walls_block_and_the_goal_pays():
    env = envs.Grid(num_envs=1, size=5, render_mode="ansi")
    try:
        env.reset(seed=3)
        maze = np.array([list(r) for r in env.render().strip("\n").split("\n")])
        goal = tuple(np.argwhere(maze == "*")[0])
        env.step(np.array([0]))  # up from (1, 1) is the outer wall
        assert tuple(np.argwhere(np.array([list(r) for r in env.render().strip("\n").split("\n")]) == "@")[0]) == (1, 1)
        # Walk the maze breadth-first to the goal.
        prev, todo = {(1, 1): None}, deque([(1, 1)])
        moves = {(-1, 0): 0, (1, 0): 1, (0, -1): 2, (0, 1): 3}
        while todo:
            cur = todo.popleft()
            for (dy, dx) in moves:
                n = (cur[0] + dy, cur[1] + dx)
                if maze[n] != "#" and n not in prev:
                    prev[n] = cur
                    todo.append(n)
        path, cur = [], goal
        while prev[cur] is not None:
            path.append(moves[(cur[0] - prev[cur][0], cur[1] - prev[cur][1])])
            cur = prev[cur]
        for _i, move in enumerate(reversed(path)):
            _, rew, term, _, _ = env.step(np.array([move]))
        assert rew[0] == 1 and term[0]
    finally:
        env.close()


def test_puffer_eval_writes_a_video_of_a_real_game(tmp_path):
    import imageio.v3 as iio

    from pufferlib import cli

    video = tmp_path / "run.gif"
    assert cli.main(["eval", "ocean-breakout", "--episodes", "1", "--vec.num-envs", "1",
                     "--video-path", str(video)]) == 0
    frames = iio.imread(video)
    assert frames.shape[1:] == (330, 576, 3) and len(frames) > 50
    assert len({frame.tobytes() for frame in frames[::10]}) > 3  # the ball and paddle move
