"""Rules of ocean-tcg (csrc/envs/tcg.h) on hand-set states: the opening, mana, playing cards,
attacks on the other player and on creatures, drawing (fatigue, burning), the end of a game, the
illegal action, the observation and its action mask, the built-in players, and the renders."""

import numpy as np
import pytest

import pufferlib
from puffer_ocean import envs

END, PLAY, ATTACK = 0, 1, 8
POOL = [(1, 1, 2), (1, 2, 1), (2, 2, 3), (2, 3, 2), (3, 3, 4), (3, 4, 3), (4, 4, 5), (4, 6, 3), (5, 5, 6), (6, 7, 7)]
N_ACTIONS = 38


def attack(attacker, target=None):
    """The action of board creature `attacker` (0-4) on the other player (None) or its creature `target`."""
    return ATTACK + 6 * attacker + (0 if target is None else target + 1)


@pytest.fixture
def game():
    env = envs.Tcg(num_envs=1, opponent="none", render_mode="ansi")
    env.reset(seed=0)
    yield env
    env.close()


def act(env, action):
    """The seat to move plays `action` (the other seat sends 0, which is ignored)."""
    actions = np.zeros(2, np.int32)
    actions[env.field("to_move")] = action
    return env.step(actions)


def set_side(env, p, hand=None, board=None, mana=None, crystals=None, life=None, deck=None):
    """Hand-set player `p`: hand as card ids, board as (attack, health, ready) creatures."""
    if hand is not None:
        env.set_field(f"hand_n[{p}]", len(hand))
        for k, card in enumerate(hand):
            env.set_field(f"hand[{p}][{k}]", card)
    if board is not None:
        env.set_field(f"board_n[{p}]", len(board))
        for i, (a, h, ready) in enumerate(board):
            env.set_field(f"atk[{p}][{i}]", a)
            env.set_field(f"hp[{p}][{i}]", h)
            env.set_field(f"ready[{p}][{i}]", ready)
    for name, value in (("mana", mana), ("crystals", crystals), ("lives", life), ("deck_n", deck)):
        if value is not None:
            env.set_field(f"{name}[{p}]", value)


def board(env, p):
    return [(env.field(f"atk[{p}][{i}]"), env.field(f"hp[{p}][{i}]"), env.field(f"ready[{p}][{i}]"))
            for i in range(env.field(f"board_n[{p}]"))]


def hand(env, p):
    return [env.field(f"hand[{p}][{k}]") for k in range(env.field(f"hand_n[{p}]"))]


def test_the_opening_hands_decks_and_first_turn(game):
    assert game.num_agents == 2 and game.game_seats == 2
    assert game.masks.tolist() == [True, False]
    # player 0 draws no card in its first turn
    fields = ("hand_n[{}]", "deck_n[{}]", "crystals[{}]", "mana[{}]", "lives[{}]")
    assert [game.field(n.format(0)) for n in fields] == [3, 17, 1, 1, 20]
    assert [game.field(n.format(1)) for n in fields] == [4, 16, 0, 0, 20]
    assert game.field("turn") == 1 and game.field("to_move") == 0
    assert all(0 <= card < len(POOL) for p in (0, 1) for card in hand(game, p))
    assert not game.observations[1][:N_ACTIONS].any() and game.observations[0][END] == 1  # the waiting seat: no moves
    assert [leaf.path for leaf in game.obs_layout.leaves] == [("action_mask",), ("observation",)]


def test_each_turn_adds_a_crystal_up_to_ten_and_refills_the_mana(game):
    set_side(game, 1, crystals=8, mana=0)
    act(game, END)  # player 1's first turn: one mana more than its crystals, and it draws
    assert game.field("to_move") == 1 and (game.field("crystals[1]"), game.field("mana[1]")) == (9, 10)
    assert game.masks.tolist() == [False, True] and game.field("hand_n[1]") == 5
    act(game, END)
    assert (game.field("crystals[0]"), game.field("mana[0]")) == (2, 2) and game.field("turn") == 3
    assert game.field("hand_n[0]") == 4
    act(game, END)
    assert (game.field("crystals[1]"), game.field("mana[1]")) == (10, 10)
    set_side(game, 1, crystals=10)
    act(game, END)
    act(game, END)
    assert (game.field("crystals[1]"), game.field("mana[1]")) == (10, 10)


def test_playing_a_card_pays_its_cost_and_it_cannot_attack_this_turn(game):
    set_side(game, 0, hand=[9, 4, 0], mana=4, board=[])
    _, rew, term, _, _ = act(game, PLAY + 1)  # card 4: cost 3, 3/4
    assert hand(game, 0) == [9, 0] and game.field("mana[0]") == 1 and board(game, 0) == [(3, 4, 0)]
    assert not term.any() and rew.tolist() == [0, 0] and game.field("to_move") == 0
    mask = game.observations[0][:N_ACTIONS]
    assert mask[PLAY + 1] == 1 and mask[PLAY] == 0  # the 1-cost card, not the 6-cost one
    assert mask[attack(0)] == 0 and mask[END] == 1 and mask.sum() == 2
    act(game, END)
    act(game, END)  # the creature is ready on its player's next turn
    assert board(game, 0) == [(3, 4, 1)] and game.observations[0][attack(0)] == 1


def test_a_card_too_dear_or_a_full_board_is_illegal_and_ends_the_turn(game):
    set_side(game, 0, hand=[9, 0], mana=5, board=[(1, 1, 0)] * 5)
    act(game, PLAY + 1)  # affordable, but the board is full
    assert game.field("to_move") == 1 and hand(game, 0) == [9, 0] and len(board(game, 0)) == 5
    act(game, END)
    set_side(game, 0, hand=[9], mana=5, board=[])
    act(game, PLAY)  # cost 6 with 5 mana
    assert game.field("to_move") == 1 and hand(game, 0)[0] == 9 and board(game, 0) == []
    assert game.field("lives[0]") == 20  # nothing else happened
    act(game, END)
    set_side(game, 0, life=1)
    set_side(game, 1, life=1, board=[(5, 5, 1)])
    act(game, attack(0))  # no creature of its own: illegal, and the turn passes
    _, rew, term, _, _ = act(game, attack(0))  # player 1 finishes it
    assert term.all() and rew.tolist() == [-1, 1] and game.outcomes.tolist() == [0.0, 1.0]
    assert game.log()["illegal"] == pytest.approx(3 / 2)  # player 0's three illegal actions, per row


def test_attacking_the_other_player_and_each_creature_attacks_once(game):
    set_side(game, 0, board=[(3, 2, 1), (2, 2, 1)])
    act(game, attack(1))
    assert game.field("lives[1]") == 18 and board(game, 0) == [(3, 2, 1), (2, 2, 0)]
    assert game.observations[0][attack(1)] == 0 and game.observations[0][attack(0)] == 1
    act(game, attack(0))
    assert game.field("lives[1]") == 15 and game.field("to_move") == 0
    act(game, attack(0))  # already attacked: illegal, ends the turn
    assert game.field("lives[1]") == 15 and game.field("to_move") == 1


def test_creatures_fight_both_ways_and_the_dead_leave_the_board_in_order(game):
    set_side(game, 0, board=[(3, 2, 1), (4, 5, 1), (1, 1, 1)])
    set_side(game, 1, board=[(2, 3, 0), (2, 4, 0), (9, 9, 0)])
    act(game, attack(0, 0))  # 3 damage kills the 2/3, which deals 2: the 3/2 dies too
    assert board(game, 0) == [(4, 5, 1), (1, 1, 1)] and board(game, 1) == [(2, 4, 0), (9, 9, 0)]
    act(game, attack(0, 0))  # 4/5 against 2/4: 4 kills it, 2 leaves it at 3
    assert board(game, 0) == [(4, 3, 0), (1, 1, 1)] and board(game, 1) == [(9, 9, 0)]
    act(game, attack(1, 0))  # 1/1 into 9/9
    assert board(game, 0) == [(4, 3, 0)] and board(game, 1) == [(9, 8, 0)]
    assert game.field("lives[1]") == 20 and game.field("lives[0]") == 20


def test_drawing_from_an_empty_deck_costs_growing_fatigue_and_a_full_hand_burns(game):
    set_side(game, 1, deck=0, hand=[0] * 7)
    act(game, END)
    assert game.field("lives[1]") == 19 and game.field("fatigue[1]") == 1
    act(game, END)
    set_side(game, 0, hand=[1] * 7)
    deck = game.field("deck_n[0]")
    act(game, END)
    act(game, END)  # player 0 draws into a full hand: the card is burnt
    assert game.field("hand_n[0]") == 7 and game.field("deck_n[0]") == deck - 1 and hand(game, 0) == [1] * 7
    assert game.field("lives[1]") == 17 and game.field("fatigue[1]") == 2
    set_side(game, 1, life=3)
    _, rew, term, _, _ = act(game, END)  # fatigue 3 at 3 life: player 1 loses drawing
    assert term.all() and rew.tolist() == [1, -1] and game.outcomes.tolist() == [1.0, 0.0]


def test_a_game_ends_at_zero_life_with_rewards_outcomes_and_a_new_game(game):
    set_side(game, 0, board=[(6, 3, 1)])
    set_side(game, 1, life=6)
    obs, rew, term, trunc, _ = act(game, attack(0))
    assert term.all() and not trunc.any() and rew.tolist() == [1, -1] and game.outcomes.tolist() == [1.0, 0.0]
    assert game.final_observations[0][N_ACTIONS + 1] == 0  # the loser's life, seen by the winner, at 0
    log = game.log()
    assert log["score"] == 0.5 and log["episode_return"] == 0 and log["n"] == 2 and log["turns"] == 1
    assert game.field("lives[1]") == 20 and game.field("turn") == 1 and game.field("tick") == 0  # a new game
    assert game.masks.tolist() == [True, False]


def test_games_are_truncated_after_max_steps_without_an_outcome():
    env = envs.Tcg(num_envs=1, opponent="none", max_steps=3)
    try:
        env.reset(seed=0)
        for _ in range(3):
            _, rew, term, trunc, _ = act(env, END)
        assert trunc.all() and not term.any() and rew.tolist() == [0, 0] and np.isnan(env.outcomes).all()
    finally:
        env.close()


def test_the_observation_from_each_side(game):
    set_side(game, 0, hand=[8, 1], board=[(4, 5, 1)], mana=3, crystals=3, life=15)
    set_side(game, 1, board=[(2, 3, 1), (7, 7, 1)], life=10)
    act(game, PLAY + 1)  # the 2/1 for 1: mana 2 left
    obs = [game.obs_layout.unflatten(game.observations[k]) for k in (0, 1)]
    mine, theirs = obs[0]["observation"], obs[1]["observation"]
    np.testing.assert_allclose(mine[:12], [0.75, 0.5, 0.2, 0.3, 0, 1 / 7, 4 / 7, 0.85, 0.8, 0, 0, 1], atol=1e-6)
    np.testing.assert_allclose(mine[12:17], [1, 0.5, 0.5, 0.6, 0])  # the 5-cost card, not affordable
    assert not mine[17:47].any()  # one card left in hand
    np.testing.assert_allclose(mine[47:55], [1, 0.4, 0.5, 1, 1, 0.2, 0.1, 0])  # its board: the new 2/1 not ready
    np.testing.assert_allclose(mine[67:73], [1, 0.2, 0.3, 1, 0.7, 0.7])
    np.testing.assert_allclose(theirs[:2], [0.5, 0.75])
    assert theirs[11] == 0  # it moves second
    np.testing.assert_allclose(theirs[67:73], [1, 0.4, 0.5, 1, 0.2, 0.1])
    assert obs[0]["action_mask"][END] == 1 and not obs[1]["action_mask"].any()


def test_the_scripted_player_plays_the_dearest_card_then_trades_well_then_goes_face(game):
    act(game, END)
    act(game, END)  # past player 1's first turn (its extra mana)
    game.players[:] = [0, 1]  # seat 1 is the scripted player
    set_side(game, 1, hand=[2, 8, 5, 0], crystals=5, deck=0, board=[(3, 3, 0), (2, 1, 0), (5, 2, 0)])
    set_side(game, 0, board=[(3, 3, 1), (2, 2, 1), (4, 2, 1)], life=20)
    act(game, END)
    act(game, END)  # seat 1's turn, in one step (its action ignored): 6 mana, no card drawn (fatigue 1)
    # cards: the 5/6 (cost 5, the dearest it can pay), then the 1/2 (cost 1); the board is then full
    assert hand(game, 1) == [2, 5] and game.field("lives[1]") == 19
    # attacks: its 3/3 kills the 2/2 and survives (the 3/3 and the 4/2 would kill it); its 2/1 kills
    # nothing and survives, but trades into the 4/2 (value 6 against its 3); its 5/2 would die to the
    # 3/3 for no more value (6 against 7): the other player's face
    assert board(game, 0) == [(3, 3, 1)] and game.field("lives[0]") == 15
    assert board(game, 1) == [(3, 1, 0), (5, 2, 0), (5, 6, 0), (1, 2, 0)]
    assert game.field("to_move") == 0 and game.masks.tolist() == [True, False]


def test_the_scripted_player_takes_lethal(game):
    game.players[:] = [0, 1]
    set_side(game, 1, hand=[], board=[(2, 2, 0), (3, 3, 0)])
    set_side(game, 0, board=[(1, 1, 1), (1, 1, 1)], life=5)  # 5 attack reaches 5 life: no trades
    act(game, END)
    _, rew, term, _, _ = act(game, END)
    assert term.all() and rew.tolist() == [-1, 1] and game.outcomes.tolist() == [0.0, 1.0]


def test_the_built_in_players_strength():
    rng = np.random.default_rng(0)
    scores = {}
    for opponent in ("scripted", "random"):
        env = envs.Tcg(num_envs=64, opponent=opponent)
        try:
            obs, _ = env.reset(seed=3)
            for _ in range(1200):  # uniformly random legal actions by the agent
                legal = obs[:, :N_ACTIONS] > 0
                obs = env.step((rng.random(legal.shape) * legal).argmax(1).astype(np.int32))[0]
            scores[opponent] = env.log()
        finally:
            env.close()
    assert scores["random"]["illegal"] == 0 and scores["scripted"]["n"] > 200
    assert 0.4 < scores["random"]["score"] < 0.6 and scores["scripted"]["score"] < 0.05


def test_same_seed_same_game():
    runs = []
    for _ in range(2):
        env = envs.Tcg(num_envs=4, opponent="random")
        try:
            obs, _ = env.reset(seed=7)
            trace = [obs.copy()]
            for _ in range(60):
                legal = obs[:, :N_ACTIONS] > 0
                actions = np.where(legal[:, PLAY], PLAY, np.where(legal[:, attack(0)], attack(0), END))
                obs = env.step(actions.astype(np.int32))[0]
                trace.append(obs.copy())
            runs.append(np.stack(trace))
        finally:
            env.close()
    np.testing.assert_array_equal(runs[0], runs[1])


def test_the_renders_show_the_mover_hand_and_legal_actions(game):
    set_side(game, 0, hand=[3, 9], mana=2, board=[(2, 3, 1)])
    text = game.render()
    assert "player 0 (to move): life 20, mana 2/1" in text
    assert "hand: [1] 2: 3/2 [2] 6: 7/7" in text
    assert "0 end turn; 1 play 1 (2: 3/2); 8 1 -> face;" in text
    assert "player 1: life 20, crystals 0, hand 4, deck 16" in text  # the other's hand hidden
    env = envs.Tcg(num_envs=1, render_mode="rgb_array")
    try:
        env.reset(seed=0)
        first = env.render().copy()
        assert first.shape == (360, 480, 3)
        env.step(np.array([END], np.int32))
        assert (env.render() != first).any()
    finally:
        env.close()


@pytest.mark.parametrize("kwargs, match", [
    ({"life": 0}, "out of range"), ({"opponent": "greedy"}, "not one of"), ({"max_steps": 0}, "out of range"),
    ({"lives": 5}, "unknown argument"), ({"life": 2.5}, "must be an int"),
])
def test_bad_constructor_arguments_name_the_problem(kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        envs.Tcg(**kwargs)


@pytest.mark.slow
def test_self_play_with_both_anchors_trains(tmp_path):
    from tests.train_smoke import assert_puffer_train_runs

    assert_puffer_train_runs("ocean-tcg", tmp_path, "--env.opponent", "none", "--selfplay.enabled", "true",
                             "--selfplay.anchors", "scripted,random")
