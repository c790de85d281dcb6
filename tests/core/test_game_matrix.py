"""Every PettingZoo classic game that installs here, and a plugin's AEC game, from training to a league.

Each game trains by self-play (`puffer train ID --selfplay.enabled true`, a tiny run that takes
pool snapshots and two checkpoints), then `puffer match` plays its newest checkpoint against the
random and the tactical player, its two checkpoints against each other and `latest` against
`latest`, `puffer eval --opponent random` scores it against the random player, and `puffer
league` rates the run. The trainings are tiny: this checks that every step
runs on every game, not that anything is learned. Chess and go are marked slow; go is played on
a 5x5 board, and chess's games are cut after a few moves (its tactical player searches two plies
of 20 to 40 moves each; untrained agents play hundreds of moves).

PettingZoo 1.27 ships no gin rummy (`pettingzoo.classic` lost it), so `pettingzoo-gin-rummy` is
not an env here; hanabi is a cooperative game, left out.
"""

import contextlib

import pytest

from pufferlib import cli
from tests.core import aec_plugin

#: (env id, extra `puffer train` flags).
GAMES = [
    pytest.param("pettingzoo-tictactoe", [], id="tictactoe"),
    pytest.param("pettingzoo-connect-four", [], id="connect-four"),
    pytest.param("pettingzoo-texas-holdem", [], id="texas-holdem"),
    pytest.param("pettingzoo-texas-holdem-no-limit", [], id="texas-holdem-no-limit"),
    pytest.param("pettingzoo-leduc-holdem", [], id="leduc-holdem"),
    pytest.param("pettingzoo-rps", [], id="rps"),
    pytest.param("pettingzoo-go", ["--env.board-size", "5"], id="go", marks=pytest.mark.slow),
    pytest.param("pettingzoo-chess", [], id="chess", marks=pytest.mark.slow),  # its matches: see SHORT
    pytest.param(aec_plugin.ENV_ID, [], id="plugin-nim"),
]
TINY = ["--selfplay.enabled", "true", "--selfplay.snapshot-interval", "512", "--train.total-timesteps", "1024",
        "--vec.num-envs", "4", "--train.batch-size", "512", "--train.minibatch-size", "512",
        "--train.update-epochs", "1", "--train.checkpoint-interval", "1"]
#: Games per match, and the steps after which a game is cut.
MATCH = ["--games", "4", "--max-game-steps", "300"]
#: Games too long for this test (chess between untrained agents, and its tactical player's search):
#: their matches and league rounds are cut early, and run all the same.
SHORT = {"pettingzoo-chess": ["--games", "2", "--max-game-steps", "16"]}


@pytest.mark.parametrize("env_id, flags", GAMES)
def test_each_game_trains_by_selfplay_and_plays_matches_and_a_league(env_id, flags, tmp_path, capsys):
    plugin = aec_plugin.installed() if env_id == aec_plugin.ENV_ID else contextlib.nullcontext()
    with plugin:
        data = ["--data-dir", str(tmp_path)]
        assert cli.main(["train", env_id, *TINY, *flags, "--train.data-dir", str(tmp_path)]) == 0
        (run,) = tmp_path.iterdir()
        first, newest = sorted(run.glob("model_*.pt"))
        for a, b in (("latest", "random"), ("latest", "tactical"), (str(first), str(newest)),
                     ("latest", "latest")):
            assert cli.main(["match", env_id, a, b, *SHORT.get(env_id, MATCH), *data]) == 0, (a, b)
        out = capsys.readouterr().out
        assert out.count(" games (seat 0: ") == 4, out  # four matches, each with its games' seats
        # scored against a built-in player: the self-play agent holds every seat, so it needs one
        assert cli.main(["eval", env_id, "--load-model-path", "latest", "--opponent", "random", "--episodes", "2",
                         "--train.data-dir", str(tmp_path)]) == 0
        assert "against the env's built-in player 'random'" in capsys.readouterr().out
        assert cli.main(["league", str(run), *SHORT.get(env_id, ["--games", "2"]), "--anchors", "random"]) == 0
        printed = capsys.readouterr()
        assert "Bradley-Terry ratings" in printed.out and "random" in printed.out
        if env_id in SHORT:  # its league's games cut too (chess: 14 s of CPU for the league's 6 games uncut)
            assert printed.err.count("2 cut at 16 steps, not recorded") == 3, printed.err


def test_a_plugins_game_is_evaluated_against_a_built_in_player_during_training(tmp_path):
    """The plugin's AEC game takes no `opponent`: the turn-based adapter seats the built-in player."""
    import json

    with aec_plugin.installed():
        assert cli.main(["train", aec_plugin.ENV_ID, *TINY, "--eval.interval", "1", "--eval.opponent", "random",
                         "--eval.episodes", "4", "--train.data-dir", str(tmp_path)]) == 0
    (run,) = tmp_path.iterdir()
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()[1:]]
    assert any("eval/score" in row for row in rows)
