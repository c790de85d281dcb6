"""`pufferlib.league` and `puffer league`: the round robin into league.db (resumable), and its errors
(the ratings themselves: tests/core/games/test_ratings.py)."""

import sqlite3

import pytest
import torch

from pufferlib import cli, league
from pufferlib.agent import build
from pufferlib.config import env_config, load_default, merge
from pufferlib.errors import APIUsageError
from pufferlib.games import ratings
from pufferlib.train import selfplay


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A run folder with a self-play pool of three snapshots of an untrained connect4 policy."""
    import pufferlib

    folder = tmp_path_factory.mktemp("run")
    (folder / "metrics.jsonl").write_text('{"env_id": "ocean-connect4"}\n')
    config = merge(load_default(), env_config("ocean-connect4")[0])
    policy = build("ocean-connect4", config).policy
    env = pufferlib.make("ocean-connect4", num_envs=2, opponent="none")
    play = selfplay.SelfPlay(env, policy, dict(config["selfplay"], enabled=True), folder, lambda: folder,
                             torch.device("cpu"), {"config": config, "env_id": "ocean-connect4"})
    for step in (1000, 2000, 3000):
        play.snapshot(step)
    env.close()
    return folder


def test_a_pettingzoo_run_is_rated_against_its_own_built_in_players_by_default(tmp_path, capsys):
    """The anchors are the env's `builtin_players` (random, tactical): not Ocean's 'scripted'."""
    import pufferlib

    env_id = "pettingzoo-tictactoe"
    (tmp_path / "metrics.jsonl").write_text(f'{{"env_id": "{env_id}"}}\n')
    config = merge(load_default(), env_config(env_id)[0])
    env = pufferlib.make(env_id, num_envs=1, opponent="none")
    play = selfplay.SelfPlay(env, build(env_id, config).policy, dict(config["selfplay"], enabled=True), tmp_path,
                             lambda: tmp_path, torch.device("cpu"), {"config": config, "env_id": env_id})
    play.snapshot(1000)
    env.close()
    assert cli.main(["league", str(tmp_path), "--games", "2"]) == 0
    players = {line.split()[0] for line in capsys.readouterr().out.splitlines()[2:] if line.strip()}
    assert {"random", "tactical"} <= players and "scripted" not in players


def test_a_round_robin_fills_league_db_and_another_round_adds_games(run_dir, capsys):
    assert cli.main(["league", str(run_dir), "--games", "4", "--anchors", "random"]) == 0
    out = capsys.readouterr().out
    assert "Bradley-Terry ratings" in out and "step 3,000" in out and "random" in out and "rank correlation" in out
    db = sqlite3.connect(run_dir / league.DB_NAME)
    assert db.execute("SELECT COUNT(*), SUM(wins + draws + losses) FROM matches").fetchone() == (6, 24)  # 4 players
    db.close()
    assert league.play_round(run_dir, "ocean-connect4", 2, ["random"], seed=1) == 6
    assert sum(r.games for r in ratings.fit(league.results(run_dir))) == 2 * (24 + 12)  # each game counts for two
    assert cli.main(["league", str(run_dir), "--games", "0", "--anchors", ""]) == 0  # the table alone
    assert "step 1,000" in capsys.readouterr().out


def test_a_league_of_one_player_and_bad_anchors_are_refused(tmp_path, run_dir):
    (tmp_path / "metrics.jsonl").write_text('{"env_id": "ocean-connect4"}\n')
    with pytest.raises(APIUsageError, match="a league needs two players"):
        league.play_round(tmp_path, "ocean-connect4", 2, [])
    with pytest.raises(APIUsageError,
                       match=r"anchor 'greedy' is not a built-in player of ocean-connect4: \['scripted', 'random'\]"):
        league.players_of(run_dir, "ocean-connect4", ["greedy"])


def test_an_unreadable_snapshot_is_skipped_with_a_warning(tmp_path, run_dir):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    (copy / league.DB_NAME).unlink(missing_ok=True)
    next((copy / "pool").glob("snapshot_*.pt")).write_bytes(b"not a checkpoint")
    with pytest.warns(UserWarning, match="skipped"):
        assert league.play_round(copy, "ocean-connect4", 2, []) == 1  # the two readable snapshots


def test_a_pool_json_naming_a_file_outside_the_pool_is_not_played(tmp_path, run_dir):
    import json
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    pool = json.loads((copy / "pool" / "pool.json").read_text())
    outside = tmp_path / "outside.pt"
    shutil.copy(copy / "pool" / pool["snapshots"][0]["file"], outside)
    pool["snapshots"][0]["file"] = str(outside)
    (copy / "pool" / "pool.json").write_text(json.dumps(pool))
    with pytest.warns(UserWarning, match=r"snapshots\[0\].file = .* is not the name of a snapshot file"):
        assert league.players_of(copy, "ocean-connect4") == []  # no valid pool, and the run has no model_*.pt


def test_a_second_league_round_on_the_same_run_is_refused_at_once_but_a_training_run_may_go_on(run_dir):
    from pufferlib._locks import folder_lock

    before = league.results(run_dir)
    with folder_lock(run_dir, "a league round", league.LOCK_NAME):  # a round in progress
        with pytest.raises(APIUsageError, match=r"is in use: .*PID .*league round .*\.league\.lock"):
            league.play_round(run_dir, "ocean-connect4", 2, [], seed=5)
    assert league.results(run_dir) == before  # nothing recorded twice
    with folder_lock(run_dir, "a training run"):  # the run folder's own lock: a league may play beside it
        assert league.play_round(run_dir, "ocean-connect4", 1, [], seed=5) == 3


@pytest.mark.parametrize("row, message", [
    (("step 1,000", "random", -5, 0, 2), "wins = -5, not a count of games"),
    (("step 1,000", "random", 3, "many", 2), "draws = 'many', not a count of games"),
    (("step 1,000", "random", 3, 0, 2.5), "losses = 2.5, not a count of games"),
    (("step 1,000", "random", 10**12, 0, 0), "wins = 1000000000000, not a count of games"),
    ((None, "random", 1, 0, 0), "a = None, not a player's name"),
    (("random", "random", 1, 0, 0), "pairs 'random' with itself"),
])
def test_a_league_db_row_that_is_not_a_count_of_games_is_refused_naming_the_file_the_row_and_the_fix(
        tmp_path, capsys, row, message):
    (tmp_path / "metrics.jsonl").write_text('{"env_id": "ocean-connect4"}\n')
    db = sqlite3.connect(tmp_path / league.DB_NAME)  # a hostile file: no column types to coerce anything
    db.execute("CREATE TABLE matches (a, b, wins, draws, losses, seed, created)")
    db.execute("INSERT INTO matches VALUES ('step 1,000', 'random', 3, 1, 0, 0, 0)")
    db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, 0, 0)", row)
    db.commit()
    db.close()
    with pytest.raises(APIUsageError) as refused:
        league.results(tmp_path)
    text = str(refused.value)
    assert text.startswith(f"{tmp_path / league.DB_NAME}: row 2 of its matches ") and message in text
    assert "DELETE FROM matches WHERE rowid = 2" in text and "\n" not in text
    assert cli.main(["league", str(tmp_path), "--games", "0"]) == 2  # the table alone: refused, no rating
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_league_db_that_is_no_database_is_refused_before_any_game(tmp_path, capsys):
    (tmp_path / "metrics.jsonl").write_text('{"env_id": "ocean-connect4"}\n')
    (tmp_path / league.DB_NAME).write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 8)
    with pytest.raises(APIUsageError, match=r"league\.db is not a readable league database \(.*\): it may be "
                                            "truncated, corrupt or another file. Move it away"):
        league.play_round(tmp_path, "ocean-connect4", 2, ["random"])
    assert cli.main(["league", str(tmp_path), "--games", "0", "--anchors", ""]) == 2
    assert "not a readable league database" in capsys.readouterr().err


def test_player_names_from_league_db_are_printed_escaped(tmp_path, run_dir, capsys):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    db = sqlite3.connect(copy / league.DB_NAME)
    db.executescript(league.SCHEMA)
    db.execute("INSERT INTO matches VALUES (?, ?, 3, 0, 1, 0, 0)", ("\x1b]0;owned\x07\x1b[2Jevil", "random"))
    db.commit()
    db.close()
    assert cli.main(["league", str(copy), "--games", "0", "--anchors", ""]) == 0
    out = capsys.readouterr().out
    assert "\\x1b]0;owned\\x07\\x1b[2Jevil" in out and "\x1b" not in out


def test_games_cut_at_the_step_limit_are_said_and_not_recorded(tmp_path, monkeypatch):
    import functools

    import pufferlib
    from pufferlib.match import play_match
    from pufferlib.train import checkpoint
    from tests.core.test_match import EndlessGame

    pufferlib.register("test-endless", EndlessGame, overwrite=True)
    try:
        (tmp_path / "metrics.jsonl").write_text('{"env_id": "test-endless"}\n')
        config = load_default()
        for step in (1, 2):
            policy = build("test-endless", config).policy
            checkpoint.save(tmp_path / f"model_00000{step}.pt", {
                "policy": policy.state_dict(), "optimizers": [], "global_step": step, "epoch": step,
                "config": config, "env_id": "test-endless"})
        monkeypatch.setattr(league, "play_match", functools.partial(play_match, num_envs=1))
        lines = []
        assert league.play_round(tmp_path, "test-endless", 4, [], progress=lines.append, max_game_steps=20) == 1
        # one game slot: its first game is a draw, its second never ends: it and the other two are cut
        assert lines == ["step 1 vs step 2: 0-1-0 (3 cut at 20 steps, not recorded)"]
        assert league.results(tmp_path) == [("step 1", "step 2", 0, 1, 0)]
    finally:
        pufferlib.registry.unregister("test-endless")


def _with_checkpoint(tmp_path, run_dir, step):
    """A copy of the run folder with a checkpoint model_000009.pt taken at `step`."""
    import shutil

    from pufferlib.train import checkpoint

    copy = tmp_path / "data" / "run"
    shutil.copytree(run_dir, copy)
    (copy / league.DB_NAME).unlink(missing_ok=True)
    payload = torch.load(next((copy / "pool").glob("snapshot_*.pt")), weights_only=True)
    checkpoint.save(copy / "model_000009.pt", {**payload, "global_step": step})
    return copy


def test_the_runs_newest_checkpoint_plays_beside_its_snapshots(tmp_path, run_dir):
    copy = _with_checkpoint(tmp_path, run_dir, 5000)
    assert [p.name for p in league.players_of(copy, "ocean-connect4")] == ["step 1,000", "step 2,000", "step 3,000",
                                                                         "step 5,000"]
    checkpoint_at_last_snapshot = _with_checkpoint(tmp_path / "again", run_dir, 3000)
    assert len(league.players_of(checkpoint_at_last_snapshot, "ocean-connect4")) == 3  # one player per step


def test_puffer_league_latest_is_the_run_of_the_newest_checkpoint(tmp_path, run_dir, capsys):
    copy = _with_checkpoint(tmp_path, run_dir, 5000)
    assert cli.main(["league", "latest", "--data-dir", str(copy.parent), "--games", "2", "--anchors", ""]) == 0
    assert "step 5,000" in capsys.readouterr().out and (copy / league.DB_NAME).is_file()


def test_league_plot_without_matplotlib_is_refused_before_any_game(tmp_path, run_dir, monkeypatch, capsys):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else find_spec(name, *a))
    monkeypatch.setattr(league, "play_round", lambda *a, **k: pytest.fail("a game was played"))
    assert cli.main(["league", str(run_dir), "--games", "2", "--plot", str(tmp_path / "r.png")]) != 0
    assert "puffer league --plot needs matplotlib: pip install matplotlib" in capsys.readouterr().err
