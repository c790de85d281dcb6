"""The `openspiel-*` games keep the game contract: ids, seats, masks, outcomes, seeds, built-in players."""

import numpy as np
import pytest

import pufferlib
from puffer_openspiel import specs
from puffer_openspiel.env import MCTS, RANDOM, OpenSpielEnv, SolvableOpenSpielEnv, load_game, make


def _mask(env, obs):
    return env.obs_layout.unflatten(obs)["action_mask"].astype(bool)


def _random_actions(env, obs, rng):
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in _mask(env, obs)])


def test_every_game_registers_as_an_openspiel_id_with_its_game_and_a_selfplay_config():
    listed = {spec.id for spec in pufferlib.registry.listed_specs()["openspiel"]}  # the plugin's entry point name
    for name, (game, _, solvable, _) in specs.GAMES.items():
        spec = pufferlib.registry.spec(f"openspiel-{name}")
        assert spec.package == "puffer-openspiel" and spec.kwargs["game"] == game
        assert spec.kwargs["exploitability"] is solvable and spec.config["selfplay"]["enabled"]
        assert f"openspiel-{name}" in listed
    assert {n for n, v in specs.GAMES.items() if v[2]} == {"kuhn_poker", "leduc_poker"}


def test_a_game_of_tic_tac_toe_plays_to_its_outcome():
    env = pufferlib.make("openspiel-tic_tac_toe", num_envs=1)
    env.reset(seed=0)
    infos = []
    for move in (4, 0, 3, 1, 5):  # seat 0 takes the middle row
        mover = int(np.flatnonzero(env.masks)[0])
        actions = np.zeros(2, np.int64)
        actions[mover] = move
        _, rewards, terminals, _, infos = env.step(actions)
    assert terminals.tolist() == [True, True] and rewards.tolist() == [1.0, -1.0]
    assert env.outcomes.tolist() == [1.0, 0.0]
    assert infos == [{"episode_return": 1.0, "episode_length": 5}]
    assert env.masks.tolist() == [True, False] and _mask(env.driver_env, env.observations)[0].all()  # a new game
    env.close()


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker", "connect_four", "goofspiel", "liars_dice"])
def test_only_the_seat_to_move_is_unmasked_and_its_mask_is_the_legal_moves(game):
    env = OpenSpielEnv(num_envs=4, game=game)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        assert (env.masks.reshape(4, 2).sum(1) == 1).all()
        masks = _mask(env, obs)
        assert (masks.any(1) == env.masks).all()  # a waiting seat's mask is all 0
        for g, state in enumerate(env._states):
            mover = 2 * g + state.current_player()
            assert np.flatnonzero(masks[mover]).tolist() == state.legal_actions()
        obs, rewards, terminals, _, infos = env.step(_random_actions(env, obs, rng))
        done = terminals.reshape(4, 2)
        assert (done[:, 0] == done[:, 1]).all() and len(infos) == int(done[:, 0].sum())
        for g in np.flatnonzero(done[:, 0]):
            r, o = rewards[2 * g:2 * g + 2], env.outcomes[2 * g:2 * g + 2]
            assert r[0] == -r[1] and o[0] + o[1] == 1 and o[0] == 0.5 + 0.5 * np.sign(r[0])
            ended += 1
    assert ended > 3


@pytest.mark.parametrize("game", ["leduc_poker", "backgammon"])
def test_the_same_seed_and_actions_give_the_same_games(game):
    def play(seed):
        env = OpenSpielEnv(num_envs=2, game=game)
        obs, _ = env.reset(seed=seed)
        rng, seen = np.random.default_rng(0), []
        for _ in range(60):
            obs, rewards, _, _, _ = env.step(_random_actions(env, obs, rng))
            seen.append((obs.copy(), rewards.copy()))
        return seen

    first, again, other = play(7), play(7), play(8)
    assert all((a[0] == b[0]).all() and (a[1] == b[1]).all() for a, b in zip(first, again))
    assert any((a[0] != b[0]).any() for a, b in zip(first, other))  # the deals (dice) follow the seed


def test_bad_arguments_say_how_to_fix():
    with pytest.raises(pufferlib.APIUsageError, match="no game 'hexx'. Did you mean: hex"):
        load_game("hexx(board_size=5)")
    with pytest.raises(pufferlib.APIUsageError, match="cannot load game 'hex.board_sz=5.': Unknown parameter"):
        load_game("hex(board_sz=5)")
    with pytest.raises(pufferlib.APIUsageError, match="3 players, not 2"):
        load_game("kuhn_poker(players=3)")
    with pytest.raises(pufferlib.APIUsageError, match="GENERAL_SUM"):
        load_game("matrix_pd")
    with pytest.raises(pufferlib.APIUsageError, match="opponent='mcts' is not one of .*'none', 'random'.*hidden"):
        OpenSpielEnv(game="kuhn_poker", opponent="mcts")
    with pytest.raises(pufferlib.APIUsageError, match="num_envs must be an int >= 1"):
        OpenSpielEnv(num_envs=0)
    with pytest.raises(pufferlib.APIUsageError, match="does not take the keyword argument 'board_size'"):
        pufferlib.make("openspiel-hex", board_size=5)  # a game parameter goes in the game string
    with pytest.raises(pufferlib.APIUsageError, match="exploitability must be true or false"):
        make(game="kuhn_poker", exploitability="yes")


def test_built_in_players_take_the_seats_they_are_given():
    env = OpenSpielEnv(num_envs=4, game="tic_tac_toe", mcts_simulations=50)
    assert env.builtin_players == {"random": RANDOM, "mcts": MCTS}
    env.reset(seed=0)
    env.players[:] = [MCTS, RANDOM] * 4  # seat 0 MCTS, seat 1 random: the agents' actions are ignored
    outcomes = []
    while len(outcomes) < 12:
        env.step(np.zeros(8, np.int64))
        outcomes += [env.outcomes[2 * g] for g in range(4) if env.terminals[2 * g]]
    assert min(outcomes) >= 0.5 and np.mean(outcomes) > 0.8  # MCTS never loses to random play here
    assert OpenSpielEnv(game="leduc_poker").builtin_players == {"random": RANDOM}  # no MCTS that sees the cards


def test_against_an_opponent_the_learner_holds_one_row_and_a_seat_drawn_per_game():
    env = OpenSpielEnv(num_envs=8, game="tic_tac_toe", opponent="random")
    assert env.game_seats == 1 and env.num_agents == 8 and env.builtin_players == {}
    obs, _ = env.reset(seed=2)
    rng, seats, infos = np.random.default_rng(0), set(), []
    for _ in range(60):
        assert env.masks.all() and _mask(env, obs).any(1).all()  # the learner is always to move
        seats |= set(env._seats.tolist())
        obs, _, terminals, _, new = env.step(_random_actions(env, obs, rng))
        infos += new
        assert all(env.outcomes[g] in (0.0, 0.5, 1.0) for g in np.flatnonzero(terminals))
    assert seats == {0, 1} and infos and {"outcome", "win", "draw", "loss"} <= set(infos[0])


def test_text_render_shows_the_board_or_only_the_movers_own_card():
    env = OpenSpielEnv(game="kuhn_poker", render_mode="ansi")
    env.reset(seed=0)
    state = env._states[0]
    text = env.render()
    assert text.startswith("kuhn_poker, seat 0 to move") and text.endswith(state.information_state_string(0))
    board = OpenSpielEnv(game="tic_tac_toe", render_mode="ansi")
    board.reset(seed=0)
    assert board.render().endswith("...\n...\n...")
    assert isinstance(make(game="kuhn_poker", exploitability=True), SolvableOpenSpielEnv)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker", "liars_dice", "goofspiel", "connect_four", "chess"])
def test_the_mover_sees_openspiels_own_tensor_and_a_waiting_seat_only_its_seat(game):
    env = OpenSpielEnv(num_envs=2, game=game)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(20):
        for g, state in enumerate(env._states):
            mover = state.current_player()
            tensor = state.information_state_tensor(mover) if env._info_state else state.observation_tensor(mover)
            row = env.obs_layout.unflatten(obs[2 * g + mover])["observation"]
            assert np.array_equal(row[:-2], np.asarray(tensor, np.float32)) and row[-2 + mover] == 1
            waiting = obs[2 * g + 1 - mover]
            assert waiting.sum() == 1 and env.obs_layout.unflatten(waiting)["observation"][-1 - mover] == 1
        obs = env.step(_random_actions(env, obs, rng))[0]
