"""`pufferlib.match` and `puffer match`: the counting rule, the score and its interval, seats,
built-in players, and the errors for what cannot be a match."""

import json

import numpy as np
import pytest
from gymnasium import spaces

import pufferlib
from pufferlib import cli, match
from pufferlib.agent import build
from pufferlib.config import env_config, load_default, merge
from pufferlib.errors import APIUsageError
from pufferlib.match import MatchResult, play_match


def untrained(env_id):
    return build(env_id, merge(load_default(), env_config(env_id)[0]))


@pytest.fixture(scope="module")
def connect4():
    return untrained("ocean-connect4")


def test_an_agent_against_itself_scores_one_half_within_its_interval_on_both_seats_equally(connect4):
    result = play_match("ocean-connect4", connect4, connect4, 200, seed=1)
    low, high = result.interval()
    assert result.games == 200 and result.games_by_seat == (100, 100)
    assert low < 0.5 < high
    assert play_match("ocean-connect4", connect4, connect4, 200, seed=1) == result  # seeded: the same games


def test_against_a_built_in_player_the_result_is_from_a_side(connect4):
    result = play_match("ocean-connect4", connect4, "scripted", 100, seed=2)
    assert result.score < 0.2 and result.b == "scripted"  # the scripted player wins and blocks
    assert result.games_by_seat == (50, 50)  # it takes a seat (the env's players input): seats alternate
    flipped = play_match("ocean-connect4", "scripted", connect4, 100, seed=2)
    assert (flipped.wins, flipped.losses, flipped.draws) == (result.losses, result.wins, result.draws)
    assert flipped.a == "scripted"


def test_a_built_in_player_that_takes_no_seat_plays_the_other_side(connect4, monkeypatch):
    """An env whose built-in players cannot take a seat is made with opponent=NAME: one row per game."""
    monkeypatch.setattr(match, "_seats_builtin", lambda agent, name: False)
    result = play_match("ocean-connect4", connect4, "scripted", 40, seed=2)
    assert result.games_by_seat == (40,) and result.score < 0.2


@pytest.mark.parametrize("games, num_envs", [(10, 4), (7, 3), (1, None)])
def test_exactly_the_asked_games_are_counted_split_over_the_slots(connect4, games, num_envs):
    result = play_match("ocean-connect4", connect4, "random", games, seed=0, num_envs=num_envs)
    assert result.games + result.no_result == games == sum(result.games_by_seat)


class EndlessGame(pufferlib.PufferEnv):
    """A game of two seats whose first game is a draw after 3 steps and whose later games never end."""

    game_seats = 2

    def __init__(self, buf=None, opponent="none"):
        self.single_observation_space = spaces.Box(0, 1, (2,), np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.num_agents = 2
        super().__init__(buf)

    def reset(self, seed=None):
        self.t = 0
        self.observations[:] = 0
        return self.observations, []

    def step(self, actions):
        self.t += 1
        self.terminals[:] = self.t == 3
        self.outcomes[:] = 0.5
        return self.observations, self.rewards, self.terminals, self.truncations, []


@pytest.fixture
def endless():
    pufferlib.register("test-endless", EndlessGame, overwrite=True)
    yield untrained("test-endless")
    pufferlib.registry.unregister("test-endless")


def test_games_that_never_end_are_cut_at_the_step_limit_and_reported_as_cut_not_drawn(endless, capsys):
    result = play_match("test-endless", endless, endless, 4, num_envs=2, max_game_steps=50)
    # each of the 2 slots counts its first game (a draw); its second never ends: it and the rest are cut
    assert (result.draws, result.games, result.cut, result.no_result) == (2, 2, 2, 0)
    assert "2 cut, not scored: a game ran 50 steps without ending" in result.summary()
    assert result.as_dict()["cut"] == 2
    never = play_match("test-endless", endless, endless, 4, num_envs=2, max_game_steps=2)
    assert never.games == 0 and never.cut == 4 and never.as_dict()["score"] is None
    json.dumps(never.as_dict(), allow_nan=False)  # strict JSON: no NaN score
    with pytest.raises(APIUsageError, match="max_game_steps must be an int >= 1"):
        play_match("test-endless", endless, endless, 4, max_game_steps=0)


def test_puffer_match_says_how_many_games_it_cut(endless, tmp_path, capsys):
    from pufferlib.train import checkpoint

    path = checkpoint.save(tmp_path / "model_000001.pt", {
        "policy": endless.policy.state_dict(), "optimizers": [], "global_step": 1, "epoch": 1,
        "config": endless.config, "env_id": "test-endless"})
    argv = ["match", "test-endless", str(path), str(path), "--games", "3", "--num-envs", "1"]
    assert cli.main([*argv, "--max-game-steps", "30"]) == 0
    out = capsys.readouterr().out  # the slot's first game is a draw; its second never ends
    assert "1 draws, 0 losses in 1 games" in out and "2 cut, not scored: a game ran 30 steps" in out
    assert cli.main([*argv, "--max-game-steps", "30", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["games"], result["cut"], result["max_game_steps"]) == (1, 2, 30)
    assert cli.main([*argv, "--max-game-steps", "0"]) == 2
    assert "--max-game-steps must be at least 1" in capsys.readouterr().err


def test_the_wilson_interval_of_a_hand_computed_case():
    result = MatchResult("a", "b", "env", wins=8, draws=0, losses=2, no_result=0, games_by_seat=(5, 5))
    assert result.score == 0.8
    low, high = result.interval()
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    drawn = MatchResult("a", "b", "env", wins=0, draws=4, losses=0, no_result=1, games_by_seat=(2, 2))
    assert drawn.score == 0.5 and drawn.games == 4 and "1 without a result, not scored" in drawn.summary()


def test_what_cannot_be_a_match_is_a_clear_error(connect4):
    with pytest.raises(APIUsageError, match="at least one agent"):
        play_match("ocean-connect4", "random", "scripted", 10)
    squared = untrained("ocean-squared")
    with pytest.raises(APIUsageError, match="declares no games"):
        play_match("ocean-squared", squared, squared, 10)
    with pytest.raises(APIUsageError, match="different spaces"):
        play_match("ocean-connect4", connect4, untrained("ocean-squared"), 10)
    with pytest.raises(APIUsageError, match="'greedy' is neither a checkpoint file, a run folder, 'latest', an "
                                            "hf:// address nor a built-in player"):
        play_match("ocean-connect4", connect4, "greedy", 10)


def test_a_built_in_player_is_one_the_env_declares():
    """The names come from each env's `builtin_players`: PettingZoo's 'tactical' is no Ocean player,
    Ocean's 'scripted' no PettingZoo one, and an env without games has none."""
    for env_id, name, names in (("ocean-connect4", "tactical", "scripted, random"),
                                ("pettingzoo-tictactoe", "scripted", "random, tactical"),
                                ("ocean-squared", "random", "it has none")):
        with pytest.raises(APIUsageError, match=rf"player '{name}' is neither .* nor a built-in player of {env_id} "
                                                rf"\({names}\)"):
            play_match(env_id, untrained(env_id), name, 2)
    with pytest.raises(APIUsageError, match="games must be an int >= 1"):
        play_match("ocean-connect4", connect4, connect4, 0)


def test_puffer_match_of_a_trained_run_against_scripted_and_itself(tmp_path, capsys):
    data = str(tmp_path)
    assert cli.main(["train", "ocean-connect4", "--train.total-timesteps", "2048", "--vec.num-envs", "16",
                     "--train.batch-size", "1024", "--train.minibatch-size", "512", "--train.data-dir", data]) == 0
    capsys.readouterr()
    assert cli.main(["match", "ocean-connect4", "latest", "scripted", "--games", "20", "--data-dir", data]) == 0
    line = capsys.readouterr().out
    assert "vs scripted on ocean-connect4" in line and "in 20 games" in line and "95% interval" in line
    (run,) = tmp_path.iterdir()
    assert cli.main(["match", "ocean-connect4", str(run), str(next(run.glob("model_*.pt"))), "--games", "20",
                     "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 20 and result["games_by_seat"] == [10, 10] and result["ci95"][0] < 0.5 < result["ci95"][1]
    assert cli.main(["match", "ocean-connect4", "random", "scripted"]) == 2
    assert "needs at least one agent" in capsys.readouterr().err


def test_turn_based_pettingzoo_games_are_games_with_their_action_masks():
    agent = untrained("pettingzoo-tictactoe")
    result = play_match("pettingzoo-tictactoe", agent, agent, 60, seed=1)
    assert result.games == 60 and result.games_by_seat == (30, 30) and result.no_result == 0
    against_random = play_match("pettingzoo-tictactoe", agent, "random", 30, seed=1)  # the random player seated
    assert against_random.games == 30 and against_random.games_by_seat == (15, 15)
    against_tactical = play_match("pettingzoo-tictactoe", agent, "tactical", 30, seed=1)
    assert against_tactical.games == 30 and against_tactical.score < against_random.score  # an untrained policy


@pytest.mark.parametrize("backend, workers", [("serial", None), ("multiprocessing", 2)])
def test_outcomes_reach_the_trainer_side_on_every_backend(backend, workers):
    """Two-seat connect4, seat 0 stacking column 0 and seat 1 column 1: seat 0 wins every game at
    its 4th move (step 7), in every copy, and the outcomes say so on the vector's rows."""
    import numpy as np

    import pufferlib

    env = pufferlib.make("ocean-connect4", num_envs=4, num_workers=workers, backend=backend, opponent="none")
    try:
        assert env.game_seats == 2 and env.num_agents == 8
        env.async_reset(1)
        env.recv()
        for _ in range(7):
            env.send(np.tile(np.array([0, 1], np.int32), 4))
            _, _, terminals, _, _, ids, _ = env.recv()
        assert terminals.all() and env.outcomes[ids].tolist() == [1.0, 0.0] * 4
    finally:
        env.close()


def test_puffer_match_records_the_first_game_of_copy_0(tmp_path, connect4, capsys):
    import imageio.v3 as iio

    video = tmp_path / "game.gif"
    result = play_match("ocean-connect4", connect4, "scripted", 4, seed=0, video_path=str(video))
    frames = iio.imread(video)
    assert result.games == 4 and frames.shape[1:] == (384, 448, 3) and 2 <= len(frames) <= 43
    assert (frames[0] != frames[-1]).any()  # stones were played
    assert cli.main(["match", "ocean-connect4", "random", "scripted", "--video-path", str(tmp_path / "x.txt")]) == 2
    assert "write a .gif" in capsys.readouterr().err


def test_puffer_match_prints_a_file_name_with_control_characters_escaped(tmp_path, connect4, capsys):
    from pufferlib.train import checkpoint

    path = tmp_path / "model_\x1b[2J.pt"
    checkpoint.save(path, {"policy": connect4.policy.state_dict(), "optimizers": [], "global_step": 0, "epoch": 0,
                           "config": merge(load_default(), env_config("ocean-connect4")[0]),
                           "env_id": "ocean-connect4"})
    assert cli.main(["match", "ocean-connect4", str(path), "random", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "model_\\x1b[2J.pt" in out and "\x1b" not in out


def test_a_plugins_pettingzoo_game_is_played_against_built_in_players_and_another_agent():
    """An AEC game that takes no `opponent` argument: every seat is an agent already, and the built-in
    players of the turn-based adapter take seats (it was a TypeError); two agents loaded apart match."""
    from tests.core import aec_plugin

    with aec_plugin.installed():
        agent, twin = untrained(aec_plugin.ENV_ID), untrained(aec_plugin.ENV_ID)
        for other in ("random", "tactical", twin):
            result = play_match(aec_plugin.ENV_ID, agent, other, 20, seed=1)
            assert result.games == 20 and result.games_by_seat == (10, 10), other
        with pytest.raises(APIUsageError, match=r"player 'scripted' is neither .* nor a built-in player of "
                                                rf"{aec_plugin.ENV_ID} \(random, tactical\)"):
            play_match(aec_plugin.ENV_ID, agent, "scripted", 4)
