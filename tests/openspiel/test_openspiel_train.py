"""`puffer train`, self-play with anchors, `match`, `league`, `eval` and `play` on the `openspiel-*` games."""

import json

import pytest

from pufferlib import cli
from tests.core.test_game_matrix import MATCH, TINY
from tests.train_smoke import assert_puffer_train_runs


@pytest.mark.slow
def test_puffer_train_runs_end_to_end_and_logs_openspiels_exploitability(tmp_path):
    assert_puffer_train_runs("openspiel-kuhn_poker", tmp_path)
    (metrics,) = tmp_path.glob("*/metrics.jsonl")
    logged = [json.loads(line).get("selfplay/exploitability") for line in metrics.read_text().splitlines()]
    assert [v for v in logged if v is not None] and all(0 <= v <= 2 for v in logged if v is not None)


@pytest.mark.slow
def test_self_play_with_anchors_then_matches_a_league_eval_and_play(tmp_path, capsys, monkeypatch):
    env_id, data = "openspiel-tic_tac_toe", ["--data-dir", str(tmp_path)]
    assert cli.main(["train", env_id, *TINY, "--selfplay.anchors", "random,mcts", "--env.mcts-simulations", "10",
                     "--train.data-dir", str(tmp_path)]) == 0
    (run,) = tmp_path.iterdir()
    first, newest = sorted(run.glob("model_*.pt"))
    for a, b in (("latest", "random"), ("latest", "mcts"), (str(first), str(newest))):
        assert cli.main(["match", env_id, a, b, *MATCH, *data]) == 0, (a, b)
    assert capsys.readouterr().out.count(" games (seat 0: ") == 3
    assert cli.main(["eval", env_id, "--load-model-path", "latest", "--opponent", "random", "--episodes", "2",
                     "--train.data-dir", str(tmp_path)]) == 0
    assert "against the env's built-in player 'random'" in capsys.readouterr().out
    assert cli.main(["league", str(run), "--games", "2", "--anchors", "random,mcts"]) == 0
    table = capsys.readouterr().out
    assert "Bradley-Terry ratings" in table and "mcts" in table
    moves = iter(["4", "0", "8", "q"])  # a person at the keyboard against the agent, then leaves
    monkeypatch.setattr("builtins.input", lambda *_: next(moves))
    assert cli.main(["play", env_id, "--against", "latest", *data]) == 0
    out = capsys.readouterr().out
    assert "tic_tac_toe, seat 0 to move\n...\n...\n..." in out  # the board, drawn by the env's text render
    assert "game over: " in out or "game left unfinished" in out
