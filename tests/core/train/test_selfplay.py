"""Self-play (`pufferlib.train.selfplay`): the pool (growth, eviction, files), sampling, Elo, seats
and masks, resume, bad input, and a trainer run that logs selfplay/* and leaves its pool."""

import json
import math
import textwrap
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import torch

import pufferlib
from pufferlib import PuffeRL
from pufferlib.agent import build
from pufferlib.config import env_config, load_default, merge
from pufferlib.errors import APIUsageError, CheckpointError
from pufferlib.games.ratings import elo_update
from pufferlib.train import selfplay
from pufferlib.train.dashboard import Dashboard
from pufferlib.train.pool import Snapshot, eviction_index, read_pool, sampling_weights
from pufferlib.train.selfplay import SelfPlay

CONFIG = dict(load_default()["selfplay"], enabled=True)


def connect4(num_envs=8):
    return pufferlib.make("ocean-connect4", num_envs=num_envs, opponent="none", seed=1)


def learner():
    return build("ocean-connect4", merge(load_default(), env_config("ocean-connect4")[0])).policy


def train_to_end(trainer):
    """Train to the end (then close); every epoch's logged metrics."""
    logged = []
    while not trainer.done_training():
        trainer.evaluate()
        trainer.train()
        logged.append(trainer.mean_and_log())
    trainer.close()
    return logged


def make_selfplay(tmp_path, env, policy=None, **config):
    return SelfPlay(env, policy or learner(), {**CONFIG, **config}, tmp_path, lambda: tmp_path, torch.device("cpu"),
                    {"config": {}, "env_id": "ocean-connect4"}, seed=0)


def test_sampling_weights_favour_the_newest_or_the_hardest():
    snaps = [Snapshot(f"s{i}.pt", i) for i in range(3)]
    recency = sampling_weights(snaps, "recency")
    assert recency.sum() == pytest.approx(1) and recency[2] / recency[1] == pytest.approx(1 / 0.7)
    snaps[0].wins, snaps[1].losses = 20, 20  # the learner beats snapshot 0 and loses to snapshot 1
    pfsp = sampling_weights(snaps, "pfsp")
    assert pfsp[1] > pfsp[2] > pfsp[0]


def test_eviction_keeps_the_oldest_and_the_newest_and_spreads_the_rest():
    assert eviction_index([0, 10, 12, 40]) == 1  # dropping 10 leaves the gap 0..12, the smallest
    assert eviction_index([0, 30, 31, 40]) == 2
    assert eviction_index([0, 5, 10]) == 1


def test_the_pool_grows_evicts_and_holds_checkpoint_files(tmp_path):
    env = connect4()
    try:
        play = make_selfplay(tmp_path, env, pool_size=3)
        for step in (100, 200, 210, 400):
            play.snapshot(step)
        steps = [s.step for s in play.state.snapshots]
        assert steps == [100, 210, 400]  # 200 went: its neighbours 100 and 210 were the closest
        files = sorted(p.name for p in (tmp_path / "pool").glob("*.pt"))
        assert files == [s.file for s in play.state.snapshots]
        agent = pufferlib.load(tmp_path / "pool" / files[-1], "ocean-connect4")  # a snapshot is a checkpoint
        assert agent.env_id == "ocean-connect4"
    finally:
        env.close()


def test_seats_and_opponents_are_drawn_per_game_and_snapshot_rows_are_masked(tmp_path):
    env = connect4(num_envs=512)
    try:
        play = make_selfplay(tmp_path, env, opponent_share=0.5)
        assert (play.opponent == -1).all() and play.learner_rows.all()  # no snapshot yet: mirror games
        play.snapshot(0)
        play.begin_batch()
        play._start_games(np.arange(play.slots))
        versus = play.opponent >= 0
        assert 0.4 < versus.mean() < 0.6
        seats = play.learner_seat[versus]
        assert 0.4 < seats.mean() < 0.6  # seat 0 or 1 at random
        rows = play.learner_rows.reshape(-1, 2)
        assert rows[~versus].all()  # mirror games: both seats trained
        assert (rows[versus].sum(1) == 1).all() and (rows[versus][np.arange(versus.sum()), seats]).all()
        masks = play.train_masks(np.ones(env.num_agents, bool), None)
        assert masks.sum() == env.num_agents - versus.sum()
        # The snapshot's actions replace the learner's only on the rows it holds, where its seat moves
        # (a waiting seat's action is ignored: a feed-forward snapshot skips it).
        obs = np.zeros((env.num_agents, 42), np.float32)
        send = np.full(env.num_agents, -1, np.int64)  # as the rollout sends a Discrete action
        env.masks[:] = np.arange(env.num_agents) % 2 == 0  # seat 0 to move in every game
        play.act_opponents(obs, None, send)
        acting = ~play.learner_rows & env.masks
        assert acting.any() and (send[acting] >= 0).all() and (send[~acting] == -1).all()
    finally:
        env.close()


def test_games_against_snapshots_are_counted_rated_and_restored_on_resume(tmp_path):
    env = connect4(num_envs=4)
    try:
        play = make_selfplay(tmp_path, env, opponent_share=1.0)
        play.snapshot(0)
        play.begin_batch()
        play._start_games(np.arange(play.slots))
        done = np.ones(env.num_agents, bool)
        env.outcomes[:] = np.tile([1.0, 0.0], 4)  # seat 0 won every game
        results = (play.learner_seat == 0).astype(float)  # the learner won where it held seat 0
        play.observe(None, done, np.zeros_like(done))
        stats = play.stats()
        assert stats["selfplay/games"] == 4 and stats["selfplay/win_rate"] == results.mean()
        learner, opponent = 1000.0, 1000.0
        for result in results:  # the slots' games, in order, against the one snapshot
            learner, opponent = elo_update(learner, opponent, result, CONFIG["elo_k"])
        assert play.state.learner_elo == pytest.approx(learner)
        play.close()
        again = make_selfplay(tmp_path, env)
        snap = again.state.snapshots[0]
        assert (snap.wins, snap.losses) == (int(results.sum()), 4 - int(results.sum()))
        assert again.state.learner_elo == pytest.approx(learner) and snap.elo == pytest.approx(opponent)
    finally:
        env.close()


def test_a_corrupt_snapshot_is_skipped_with_a_warning_and_a_corrupt_pool_json_refused(tmp_path):
    env = connect4()
    try:
        play = make_selfplay(tmp_path, env)
        play.snapshot(0)
        play.snapshot(100)
        (tmp_path / "pool" / play.state.snapshots[0].file).write_bytes(b"not a checkpoint")
        with pytest.warns(UserWarning, match="not a snapshot of this policy"):
            again = make_selfplay(tmp_path, env)
        assert [s.step for s in again.state.snapshots] == [100]
        (tmp_path / "pool" / "pool.json").write_text("{not json")
        with pytest.raises(CheckpointError, match="pool.json: not a readable self-play pool .* move .* away"):
            make_selfplay(tmp_path, env)
    finally:
        env.close()


def pool_json(files, **top):
    """A pool.json's data of snapshots of `files` (steps 0, 100, ...), with `top`'s keys over it."""
    return {"snapshots": [{"file": file, "step": 100 * i} for i, file in enumerate(files)], "learner_elo": 1000.0,
            "anchor_elo": {}, "last_snapshot_step": 0, "since_snapshot": {"wins": 0, "draws": 0, "losses": 0},
            **top}


@pytest.mark.parametrize("entry", ["VICTIM", "../model_000012.pt", "snapshot_000000000000.pt/../../model_000012.pt",
                                   "sub/snapshot_000000000100.pt", "model_000012.pt"])
def test_pool_json_entry_outside_the_pool_is_never_deleted(tmp_path, entry):
    victim, model = tmp_path / "victim.pt", tmp_path / "model_000012.pt"
    entry = str(victim) if entry == "VICTIM" else entry
    env = connect4()
    try:
        play = make_selfplay(tmp_path, env)
        for step in (0, 100, 200):
            play.snapshot(step)
        precious = (tmp_path / "pool" / "snapshot_000000000100.pt").read_bytes()  # a loadable snapshot
        victim.write_bytes(precious)
        model.write_bytes(precious)
        data = pool_json(["snapshot_000000000000.pt", entry, "snapshot_000000000200.pt"])
        (tmp_path / "pool" / "pool.json").write_text(json.dumps(data))
        with pytest.raises(CheckpointError, match=r"pool.json: snapshots\[1\].file = .* is not the name of a snapshot "
                                                  r"file in the pool folder .*; fix that entry, or move"):
            make_selfplay(tmp_path, env, pool_size=2)
    finally:
        env.close()
    assert victim.read_bytes() == precious and model.read_bytes() == precious


def test_pool_json_naming_one_file_twice_is_refused(tmp_path):
    (tmp_path / "pool").mkdir()
    data = pool_json(["snapshot_000000000000.pt", "snapshot_000000000000.pt"])
    (tmp_path / "pool" / "pool.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match=r"snapshots\[1\].file = .* is named by an earlier snapshot too"):
        read_pool(tmp_path / "pool" / "pool.json")


@pytest.mark.parametrize("change, match", [
    ({"learner_elo": "1000"}, r"learner_elo = '1000' is not a rating \(a number from -50,000 to 50,000\)"),
    ({"learner_elo": float("nan")}, r"learner_elo = nan is not a rating"),
    ({"learner_elo": -1e308}, r"learner_elo = -1e\+308 is not a rating"),  # 10 ** (gap / 400) would overflow
    ({"last_snapshot_step": 1.5}, r"last_snapshot_step = 1.5 is not a whole number from 0 to 2\*\*53"),
    ({"last_snapshot_step": True}, r"last_snapshot_step = True is not a whole number"),
    ({"last_snapshot_step": 10**400}, r"last_snapshot_step = 1000000.*\.\.\. is not a whole number"),
    ({"snapshots": {"file": "snapshot_000000000000.pt"}}, r"snapshots = .* is not a JSON array"),
    ({"snapshots": ["snapshot_000000000000.pt"]}, r"snapshots\[0\] is 'snapshot_000000000000.pt', not a JSON object"),
    ({"snapshots": [{"file": "snapshot_000000000000.pt", "step": "0"}]}, r"snapshots\[0\].step = '0' is not a whole"),
    ({"snapshots": [{"file": 7, "step": 0}]}, r"snapshots\[0\].file = 7 is not a JSON string"),
    ({"snapshots": [{"step": 0}]}, r"snapshots\[0\].file is missing"),
    ({"snapshots": [{"file": "snapshot_000000000000.pt", "step": 0, "wins": -1}]}, r"snapshots\[0\].wins = -1"),
    ({"snapshots": [{"file": "snapshot_000000000000.pt", "step": 0, "cmd": "x"}]},
     r"snapshots\[0\] has the key 'cmd', which a self-play pool does not have"),
    ({"anchor_elo": ["scripted"]}, r"anchor_elo = \['scripted'\] is not a JSON object"),
    ({"anchor_elo": {"scripted": [1000]}}, r"anchor_elo.scripted = \[1000\] is not a rating"),
    ({"since_snapshot": {"wins": "3"}}, r"since_snapshot.wins = '3' is not a whole number"),
    ({"since_snapshot": [1, 2, 3]}, r"since_snapshot = \[1, 2, 3\] is not a JSON object"),
])
def test_pool_json_of_wrong_types_is_refused_naming_the_key(tmp_path, change, match):
    (tmp_path / "pool").mkdir()
    (tmp_path / "pool" / "pool.json").write_text(json.dumps(pool_json([], **change)))
    with pytest.raises(CheckpointError, match=match + ".*; fix that entry, or move .*pool.json away"):
        read_pool(tmp_path / "pool" / "pool.json")


def test_a_valid_pool_json_reads_back_what_was_written(tmp_path):
    (tmp_path / "pool").mkdir()
    data = pool_json(["snapshot_000000000000.pt", "snapshot_1000000000000.pt"], anchor_elo={"scripted": 990},
                     learner_elo=1010)
    data["snapshots"][1].update(wins=2, draws=1, losses=0, elo=1003.5)
    (tmp_path / "pool" / "pool.json").write_text(json.dumps(data))
    state = read_pool(tmp_path / "pool" / "pool.json")
    assert [(s.file, s.step, s.elo, s.games) for s in state.snapshots] == [
        ("snapshot_000000000000.pt", 0, 1000.0, 0), ("snapshot_1000000000000.pt", 100, 1003.5, 3)]
    assert state.learner_elo == 1010.0 and state.anchor_elo == {"scripted": 990.0}


def test_selfplay_needs_every_seat_an_agent():
    env = pufferlib.make("ocean-connect4", num_envs=2)  # the scripted opponent plays one side
    try:
        with pytest.raises(APIUsageError, match="pass --env.opponent none"):
            selfplay.check(env, CONFIG)
    finally:
        env.close()
    env = pufferlib.make("ocean-squared", num_envs=2)
    try:
        with pytest.raises(APIUsageError, match="game_seats = 0"):
            PuffeRL({"selfplay": {"enabled": True}}, env=env, device="cpu")
    finally:
        env.close()


TORCHRUN_SCRIPT = textwrap.dedent("""
    import json, os, sys, torch, pufferlib
    from pufferlib import PuffeRL
    from pufferlib.train.dashboard import Dashboard

    out, rank = sys.argv[1], int(os.environ["RANK"])
    env = pufferlib.make("ocean-connect4", num_envs=32, opponent="none", seed=rank)
    trainer = PuffeRL({"selfplay": {"enabled": True, "snapshot_interval": 4096, "opponent_share": 0.5,
                                    "anchors": "scripted", "anchor_share": 0.25}},
                      env=env, env_id="ocean-connect4", device="cpu", seed=1, total_timesteps=4096 * 4,
                      batch_size=2048, minibatch_size=2048, checkpoint_interval=0, run_dir=f"{out}/run",
                      dashboard=Dashboard(interval=1e9, rich=False))
    logged = []
    while not trainer.done_training():
        trainer.evaluate(); trainer.train(); logged.append(trainer.mean_and_log())
    state = trainer.selfplay.state
    trainer.close()
    with open(f"{out}/rank{rank}.json", "w") as f:
        json.dump({"pool": [[s.file, s.step, s.wins, s.draws, s.losses, s.elo] for s in state.snapshots],
                   "learner_elo": state.learner_elo, "anchor_elo": state.anchor_elo,
                   "games": sum(m["selfplay/games"] for m in logged),
                   "anchor_games": sum(m["selfplay/scripted/games"] for m in logged)}, f)
""")


@pytest.mark.slow
def test_selfplay_under_torchrun_keeps_one_pool_and_one_rating_on_every_rank(tmp_path):
    """Two CPU ranks: each plays its own games; the games of both are counted on both, in the same
    order (the same counts and ratings); both take the same snapshots; rank 0 alone writes the pool."""
    from tests.core.train.test_pufferl_train import torchrun_succeeds

    torchrun_succeeds(TORCHRUN_SCRIPT, tmp_path)
    r0, r1 = (json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1))
    assert r0 == r1
    assert [snap[1] for snap in r0["pool"]] == [4096, 8192, 12288, 16384]  # global steps: both ranks' batches
    assert r0["games"] > 0 and r0["anchor_games"] > 0 and r0["anchor_elo"]["scripted"] != 1000.0
    assert sum(sum(snap[2:5]) for snap in r0["pool"]) == r0["games"]
    pool = json.loads((tmp_path / "run" / "pool" / "pool.json").read_text())
    assert [s["file"] for s in pool["snapshots"]] == [snap[0] for snap in r0["pool"]]
    assert sorted(p.name for p in (tmp_path / "run" / "pool").iterdir()) == sorted(
        [snap[0] for snap in r0["pool"]] + ["pool.json"])


def test_a_selfplay_run_logs_its_games_and_leaves_its_pool(tmp_path):
    env = connect4(num_envs=64)
    config = {"selfplay": {"enabled": True, "snapshot_interval": 8192},
              "eval": {"interval": 2, "opponent": "scripted", "episodes": 20}, "env": {"opponent": "none"}}
    trainer = PuffeRL(config, env=env, env_id="ocean-connect4", device="cpu", seed=1, total_timesteps=8192 * 4,
                      batch_size=8192, minibatch_size=4096, checkpoint_interval=0, run_dir=tmp_path / "run",
                      dashboard=Dashboard(interval=1e9, rich=False))
    logged = train_to_end(trainer)
    assert logged[-1]["selfplay/pool_size"] == 4 and logged[-1]["selfplay/games"] > 0
    assert 0 <= logged[-1]["selfplay/win_rate"] <= 1 and math.isfinite(logged[-1]["selfplay/elo"])
    against_scripted = [m for m in logged if "eval/score" in m]  # the anchor, every 2 epochs
    assert len(against_scripted) == 2 and all(0 <= m["eval/score"] <= 1 for m in against_scripted)
    assert all(m["eval/win_rate"] + m["eval/draw_rate"] + m["eval/loss_rate"] == pytest.approx(1)
               for m in against_scripted)
    pool = json.loads((tmp_path / "run" / "pool" / "pool.json").read_text())
    assert [s["step"] for s in pool["snapshots"]] == [8192, 16384, 24576, 32768]
    assert sum(s["wins"] + s["draws"] + s["losses"] for s in pool["snapshots"]) > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pufferlib.load(tmp_path / "run" / "pool" / pool["snapshots"][0]["file"], "ocean-connect4")


def test_selfplay_runs_on_the_multiprocessing_backend(tmp_path):
    """The pool, the snapshots' actions and the outcomes live on the trainer's side: envs stepped in
    worker processes play the same games."""
    env = pufferlib.make("ocean-connect4", num_envs=32, num_workers=2, backend="multiprocessing", opponent="none",
                         seed=1)
    trainer = PuffeRL({"selfplay": {"enabled": True, "snapshot_interval": 4096, "opponent_share": 1.0}}, env=env,
                      device="cpu", seed=1, total_timesteps=4096 * 3, batch_size=4096, minibatch_size=4096,
                      checkpoint_interval=0, run_dir=tmp_path, dashboard=Dashboard(interval=1e9, rich=False))
    games = sum(m["selfplay/games"] for m in train_to_end(trainer))
    assert games > 50  # after the first snapshot every game is against one


def test_puffer_train_resume_continues_with_the_pool_and_its_ratings(tmp_path, capsys):
    from pufferlib import cli

    flags = ["--env.opponent", "none", "--selfplay.enabled", "true", "--selfplay.snapshot-interval", "4096",
             "--vec.num-envs", "32", "--train.batch-size", "4096", "--train.minibatch-size", "4096",
             "--train.checkpoint-interval", "1", "--train.data-dir", str(tmp_path)]
    assert cli.main(["train", "ocean-connect4", "--train.total-timesteps", "8192", *flags]) == 0
    (run,) = tmp_path.iterdir()
    before = json.loads((run / "pool" / "pool.json").read_text())
    assert [s["step"] for s in before["snapshots"]] == [4096, 8192]
    assert cli.main(["train", "ocean-connect4", "--resume", str(run), "--train.total-timesteps", "16384"]) == 0
    after = json.loads((run / "pool" / "pool.json").read_text())
    assert [s["step"] for s in after["snapshots"]] == [4096, 8192, 12288, 16384]  # the same pool, grown
    def games(pool):  # the learner's games against the first two snapshots
        return sum(s["wins"] + s["draws"] + s["losses"] for s in pool["snapshots"][:2])

    assert games(after) > games(before)  # the old snapshots' counts carried on
    capsys.readouterr()


def tron(num_envs=8, **kwargs):
    return pufferlib.make("ocean-tron", num_envs=num_envs, opponent="none", seed=1, **kwargs)


def tron_learner():
    return build("ocean-tron", merge(load_default(), env_config("ocean-tron")[0])).policy


def test_anchor_games_hand_the_anchors_rows_to_the_env_and_mask_them(tmp_path):
    env = tron(num_envs=512)
    try:
        play = make_selfplay(tmp_path, env, tron_learner(), anchors="scripted, random", anchor_share=0.5,
                             opponent_share=1.0)
        assert play.anchors == ["scripted", "random"]
        anchored = play.anchor >= 0
        assert 0.4 < anchored.mean() < 0.6 and (play.opponent == -1).all()  # no snapshot yet: the rest mirror
        assert set(play.anchor[anchored].tolist()) == {0, 1}  # both anchors drawn
        rows = play.learner_rows.reshape(-1, 2)
        assert rows[~anchored].all() and (rows[anchored].sum(1) == 1).all()
        # the env plays the anchor's seat (1 scripted, 2 random): exactly the rows the learner does not hold
        players = env.players.reshape(-1, 2)
        codes = np.array([1, 2])[play.anchor[anchored]]
        assert (players[anchored][~rows[anchored]] == codes).all() and (players[~anchored] == 0).all()
        assert (players[anchored][rows[anchored]] == 0).all()
        assert not play.snapshot_rows.any() and not len(play.held()[0])  # no forward pass for anchors
        masks = play.train_masks(np.ones(env.num_agents, bool), None)
        assert masks.sum() == env.num_agents - anchored.sum()
        # with a snapshot in the pool the non-anchor games are against it (opponent_share 1): the
        # env plays no row of those; a slot's next game rewrites its rows
        play.snapshot(0)
        play.begin_batch()
        play._start_games(np.arange(play.slots))
        versus, anchored = play.opponent >= 0, play.anchor >= 0
        assert (versus ^ anchored).all()
        assert (env.players.reshape(-1, 2)[versus] == 0).all() and play.snapshot_rows.sum() == versus.sum()
    finally:
        env.close()


def test_games_against_an_anchor_rate_it_and_the_learner_and_resume_restores_both(tmp_path):
    env = connect4(num_envs=4)
    try:
        play = make_selfplay(tmp_path, env, anchors="scripted", anchor_share=1.0)
        assert (play.anchor == 0).all()
        done = np.ones(env.num_agents, bool)
        env.outcomes[:] = np.tile([1.0, 0.0], 4)  # seat 0 won every game
        results = (play.learner_seat == 0).astype(float)
        play.observe(None, done, np.zeros_like(done))
        learner, anchor = 1000.0, 1000.0
        for result in results:  # the slots' games, in order
            learner, anchor = elo_update(learner, anchor, result, CONFIG["elo_k"])
        stats = play.stats()
        assert stats["selfplay/scripted/elo"] == pytest.approx(anchor)
        assert stats["selfplay/elo"] == pytest.approx(learner)
        assert stats["selfplay/scripted/games"] == 4 and stats["selfplay/games"] == 0  # not the pool's games
        play.close()
        again = make_selfplay(tmp_path, env, anchors="scripted", anchor_share=1.0)
        assert again.state.anchor_elo == {"scripted": pytest.approx(anchor)}
        assert again.state.learner_elo == pytest.approx(learner)
    finally:
        env.close()


def test_a_run_with_an_anchor_logs_its_games_against_it(tmp_path):
    """On the multiprocessing backend: the players input reaches envs stepped in worker processes."""
    env = tron(num_envs=64, num_workers=2, backend="multiprocessing")
    trainer = PuffeRL({"selfplay": {"enabled": True, "anchors": "scripted", "anchor_share": 0.5},
                       "env": {"opponent": "none"}}, env=env, env_id="ocean-tron", device="cpu", seed=1,
                      total_timesteps=8192 * 2, batch_size=8192, minibatch_size=4096, checkpoint_interval=0,
                      run_dir=tmp_path / "run", dashboard=Dashboard(interval=1e9, rich=False))
    logged = train_to_end(trainer)
    games = sum(m["selfplay/scripted/games"] for m in logged)
    scores = [m["selfplay/scripted/score"] for m in logged if "selfplay/scripted/score" in m]
    assert games > 50 and scores
    assert all(m["selfplay/scripted/win_rate"] + m["selfplay/scripted/draw_rate"] + m["selfplay/scripted/loss_rate"]
               == pytest.approx(1) for m in logged if "selfplay/scripted/score" in m)
    assert max(scores) < 0.2  # an untrained learner loses to the scripted rider (the env does play it)


def test_anchors_must_be_built_in_players_the_env_can_seat():
    env = tron()
    try:
        with pytest.raises(APIUsageError, match=r"names \['greedy'\].*\['random', 'scripted'\]"):
            selfplay.check(env, {**CONFIG, "anchors": "scripted,greedy"})
        assert selfplay.check(env, {**CONFIG, "anchors": "random"}) == 2
    finally:
        env.close()
    no_players = SimpleNamespace(game_seats=2, builtin_players={})  # a game whose seats only agents can take
    with pytest.raises(APIUsageError, match="are none"):
        selfplay.check(no_players, {**CONFIG, "anchors": "scripted"})


def test_anchor_weights_that_overflow_their_sum_are_refused_naming_the_key():
    for bad in ("scripted:1e308,random", "scripted:1e308,random:1e308", "scripted:inf", "random:1e7"):
        with pytest.raises(APIUsageError, match=r"^selfplay\.anchors: .* positive weight of at most 1e\+06"):
            selfplay.parse_anchors({"anchors": bad})
    assert selfplay.parse_anchors({"anchors": "scripted:1e6,random:1e-9"}) == {"scripted": 1e6, "random": 1e-9}


def test_anchor_weights_set_how_often_each_anchor_is_drawn(tmp_path):
    assert selfplay.parse_anchors({"anchors": " scripted:3, random "}) == {"scripted": 3.0, "random": 1.0}
    for bad, message in (("scripted:0", "positive weight"), ("scripted:x", "positive weight"),
                         ("scripted:nan", "positive weight"), ("random,random:2", "twice")):
        with pytest.raises(APIUsageError, match=message):
            selfplay.parse_anchors({"anchors": bad})
    env = tron(num_envs=2048)
    try:
        play = make_selfplay(tmp_path, env, tron_learner(), anchors="scripted:3,random", anchor_share=1.0)
        assert play.anchors == ["scripted", "random"] and (play.anchor >= 0).all()
        assert 0.72 < (play.anchor == 0).mean() < 0.78  # 3:1 over 2,048 games (sd about 0.01)
    finally:
        env.close()
