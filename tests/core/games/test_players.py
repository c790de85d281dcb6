"""`pufferlib.games.players`: the tactical player on tictactoe positions (it wins at once, else blocks,
searching on copies that leave the game as it was), the random player's legal moves, and `advance`."""

import numpy as np
import pettingzoo

from pufferlib.games.players import PLAYERS, advance, discrete_moves


def positions(*squares):
    """PettingZoo's tictactoe after these squares were played in turn."""
    game = pettingzoo.make("aec", "classic/tictactoe-v3")
    game.reset(seed=0)
    for square in squares:
        game.step(square)
    return game


def move(name, game, rng):
    """`name`'s move for the seat to move in `game`."""
    return PLAYERS[name](game, game.agent_selection, discrete_moves(game), rng,
                         dict.fromkeys(game.possible_agents, 0.0))


def test_the_tactical_player_wins_at_once_else_blocks_and_leaves_the_game_as_it_was():
    """Squares run column by column (0 1 2 is the left column). The search plays on copies: the game's
    board and turn are untouched by it."""
    rng = np.random.default_rng(0)
    win = positions(0, 3, 1, 4)  # player_1 completes 0-1-2 at 2 (player_2 would complete 3-4-5 at 5)
    block = positions(0, 3, 1)  # player_2 must take 2
    for game, square in ((win, 2), (block, 2)):
        before = (list(game.unwrapped.board.squares), game.agent_selection)
        assert {move("tactical", game, rng) for _ in range(20)} == {square}
        assert (list(game.unwrapped.board.squares), game.agent_selection) == before
    quiet = positions(4)  # no threat: any square but the centre, drawn at random
    assert {move("tactical", quiet, rng) for _ in range(100)} == {0, 1, 2, 3, 5, 6, 7, 8}
    fork = positions(0, 4, 8, 2, 6)  # player_1 threatens 3 and 7: player_2 cannot block both
    assert move("tactical", fork, rng) in {1, 3, 5, 7}  # no safe square: a legal one


def test_the_random_player_plays_every_legal_move_and_only_those():
    game = positions(0, 4, 8)
    assert {move("random", game, np.random.default_rng(i)) for i in range(200)} == {1, 2, 3, 5, 6, 7}


def test_advance_steps_out_the_seats_that_end_saying_each_and_who_moves_next():
    game = positions(0, 3, 1)
    returns, seen = dict.fromkeys(game.possible_agents, 0.0), []
    assert advance(game, 4, returns) == (set(), "player_1")  # the game goes on: player_1 to move
    pending = dict.fromkeys(game.possible_agents, 0.0)
    ended, to_move = advance(game, 2, returns, pending, on_end=lambda *end: seen.append(end))  # 0-1-2: player_1 wins
    assert ended == {"player_1", "player_2"} and to_move is None and not game.agents
    assert returns == pending == {"player_1": 1, "player_2": -1}
    assert sorted(seen) == [("player_1", True, False), ("player_2", True, False)]
