"""Kuhn and Leduc poker (`puffer_ocean.poker`): the exact exploitability of known strategies, the
game contract, and self-play training that logs `selfplay/exploitability`."""

import json

import numpy as np
import pytest

import pufferlib
from puffer_ocean.poker import CALL, FOLD, KUHN, LEDUC, RAISE, KuhnPoker, LeducPoker, exploitability, information_sets
from pufferlib import cli


def kuhn_nash(alpha: float) -> np.ndarray:
    """Kuhn's equilibria (one per alpha in [0, 1/3]): seat 0 bets a jack with alpha, a king with 3 alpha, and
    calls a bet with a queen with alpha + 1/3; seat 1 bets a jack after a check with 1/3 and calls a bet with a
    queen with 1/3. Rows over (fold, check/call, bet/raise), in `information_sets` order."""
    keys, _ = information_sets(KUHN)
    bet_first = {0: alpha, 1: 0.0, 2: 3 * alpha}  # seat 0, no action yet: by rank J, Q, K
    call_late = {0: 0.0, 1: alpha + 1 / 3, 2: 1.0}  # seat 0, facing a bet after its check
    bet_after_check = {0: 1 / 3, 1: 0.0, 2: 1.0}  # seat 1 after a check
    call_bet = {0: 0.0, 1: 1 / 3, 2: 1.0}  # seat 1 facing a bet
    rows = []
    for seat, rank, _, history in keys:
        actions = history[0]
        if seat == 0 and not actions:
            p = bet_first[rank]
            rows.append((0, 1 - p, p))
        elif seat == 0:
            p = call_late[rank]
            rows.append((1 - p, p, 0))
        elif actions == (CALL,):
            p = bet_after_check[rank]
            rows.append((0, 1 - p, p))
        else:
            p = call_bet[rank]
            rows.append((1 - p, p, 0))
    return np.array(rows)


def test_a_uniform_random_policy_is_exploitable_by_the_known_amounts():
    keys, obs = information_sets(KUHN)
    assert len(keys) == 12 and obs.shape == (12, 3 + KUHN.obs_size)  # Kuhn's 12 information sets
    assert exploitability(KUHN, np.ones((12, 3))) == pytest.approx(11 / 24, abs=1e-12)  # NashConv 11/12
    leduc = len(information_sets(LEDUC)[0])
    assert leduc == 288  # Leduc's 936 information sets, suits set aside (they never matter)
    assert exploitability(LEDUC, np.ones((leduc, 3))) == pytest.approx(4.747222222222222 / 2, abs=1e-9)


@pytest.mark.parametrize("alpha", [0.0, 1 / 6, 1 / 3])
def test_a_nash_equilibrium_has_exploitability_zero_and_a_deviation_does_not(alpha):
    nash = kuhn_nash(alpha)
    assert exploitability(KUHN, nash) == pytest.approx(0.0, abs=1e-12)
    deviant = nash.copy()
    deviant[0] = (0, 0, 1)  # seat 0 always bets its jack
    assert exploitability(KUHN, deviant) > 0.01


def test_illegal_actions_are_dropped_from_the_probabilities_and_bad_shapes_refused():
    nash = kuhn_nash(0.0)
    with_folds = nash.copy()
    with_folds[0, FOLD] = 5.0  # a fold with nothing to call: not a legal action there
    assert exploitability(KUHN, with_folds) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(pufferlib.APIUsageError, match=r"takes \(12, 3\) finite action probabilities >= 0"):
        exploitability(KUHN, np.ones((11, 3)))


@pytest.mark.parametrize("cls", [KuhnPoker, LeducPoker])
def test_games_keep_the_contract_one_seat_to_move_zero_sum_chips_and_outcomes(cls):
    env = cls(num_envs=8)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ended, chips = 0, 0.0
    for _ in range(300):
        assert (env.masks.reshape(8, 2).sum(1) == 1).all()  # one seat to move per game
        masks = obs[:, :3].astype(bool)
        assert (masks.any(1) == env.masks).all()  # the waiting seat's action mask is all 0
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, terminals, _, infos = env.step(actions)
        done = terminals.reshape(8, 2)
        assert (done[:, 0] == done[:, 1]).all()
        for game in np.flatnonzero(done[:, 0]):
            r, o = rewards[2 * game:2 * game + 2], env.outcomes[2 * game:2 * game + 2]
            assert r[0] == -r[1] and o[0] + o[1] == 1 and o[0] == (0.5 + 0.5 * np.sign(r[0]))
            chips += abs(r[0])
            ended += 1
        assert len(infos) == int(done[:, 0].sum())
    assert ended > 50 and chips > 0


def test_the_built_in_random_player_takes_the_seats_it_is_given():
    def pots(players):
        """Seat 0 always bets, seat 1 is told to fold: the chips seat 0 wins per game."""
        env = KuhnPoker(num_envs=1)
        env.reset(seed=0)
        env.players[:] = players
        won = []
        for _ in range(200):
            _, rewards, terminals, _, _ = env.step(np.array([RAISE, FOLD]))
            if terminals[0]:
                won.append(float(rewards[0]))
        return set(won)

    assert pots((0, 0)) == {1.0}  # seat 1 folds every time: seat 0 takes the ante
    assert 2.0 in pots((0, 1)) and -2.0 in pots((0, 1))  # the random player calls some bets, and wins some
    with pytest.raises(pufferlib.APIUsageError, match="both seats are agents"):
        KuhnPoker(opponent="random")


def test_self_play_training_logs_the_exploitability_and_it_falls_from_uniform(tmp_path, capsys):
    assert cli.main(["train", "ocean-kuhn_poker", "--train.total-timesteps", "16384", "--vec.num-envs", "16",
                     "--train.batch-size", "2048", "--train.minibatch-size", "1024", "--train.learning-rate", "0.01",
                     "--train.data-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    (metrics,) = tmp_path.glob("*/metrics.jsonl")
    logged = [json.loads(line).get("selfplay/exploitability") for line in metrics.read_text().splitlines()]
    logged = [value for value in logged if value is not None]
    assert len(logged) >= 2 and all(0 <= value <= 11 / 12 for value in logged)
    assert min(logged) < 11 / 24  # below uniform random play's


def test_every_information_set_has_its_own_observation():
    for rules in (KUHN, LEDUC):
        keys, obs = information_sets(rules)
        assert len(np.unique(obs, axis=0)) == len(keys)  # the policy can tell every information set apart
