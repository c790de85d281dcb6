"""The `openspiel-*` specs (no heavy imports): OpenSpiel's two-player zero-sum turn-based games.

Each id is one OpenSpiel game string (`--env.game` takes any other, e.g. "hex(board_size=5)", that
`puffer_openspiel.env.load_game` accepts). Both seats are agents (`opponent` "none"); the configs turn
self-play on. Kuhn and Leduc poker log OpenSpiel's exact exploitability at every log step.
"""

from __future__ import annotations

from pufferlib import NATIVE, EnvSpec

PACKAGE = "puffer-openspiel"
PREFIX = "openspiel-"
CREATOR = "puffer_openspiel.env:make"
POLICY = "pufferlib.models:Default"


def _config(num_envs: int, total_timesteps: int, batch_size: int, minibatch_size: int, **train: float) -> dict:
    """A self-play training config: `num_envs` games in one env object, PPO over `total_timesteps` agent steps."""
    return {"vec": {"num_envs": num_envs},
            "train": {"total_timesteps": total_timesteps, "batch_size": batch_size,
                      "minibatch_size": minibatch_size, **train},
            "selfplay": {"enabled": True}}


#: Poker: Ocean's Kuhn and Leduc settings (puffer_ocean.specs), so the two exploitability figures compare.
_POKER = dict(learning_rate=0.003, ent_coef=0.05, gamma=1.0)
#: Board games: win +1 / loss -1 at the end; games of tens of moves.
_BOARD = dict(learning_rate=0.003, ent_coef=0.01, gamma=0.99)

#: id suffix -> (OpenSpiel game string, description, whether exploitability is logged, training config).
GAMES: dict[str, tuple[str, str, bool, dict]] = {
    "kuhn_poker": ("kuhn_poker", "Kuhn poker (3 cards, one bet): OpenSpiel's exploitability logged", True,
                   _config(64, 500_000, 4096, 1024, **_POKER)),
    "leduc_poker": ("leduc_poker", "Leduc poker (6 cards, a public card, two rounds): exploitability logged", True,
                    _config(64, 2_000_000, 8192, 2048, **_POKER)),
    "liars_dice": ("liars_dice", "Liar's dice, one die each: bids on hidden dice", False,
                   _config(64, 2_000_000, 8192, 2048, **_POKER)),
    "goofspiel": ("goofspiel", "Goofspiel, 13 cards, simultaneous bids played turn by turn (the second bidder "
                  "does not see the first)", False, _config(64, 2_000_000, 8192, 2048, **_BOARD)),
    "phantom_ttt": ("phantom_ttt", "Phantom tic-tac-toe: the opponent's marks are hidden", False,
                    _config(64, 2_000_000, 8192, 2048, **_BOARD)),
    "dark_hex": ("dark_hex", "Dark hex 3x3: the opponent's stones are hidden", False,
                 _config(64, 2_000_000, 8192, 2048, **_BOARD)),
    "tic_tac_toe": ("tic_tac_toe", "Tic-tac-toe", False, _config(64, 1_000_000, 8192, 2048, **_BOARD)),
    "connect_four": ("connect_four", "Connect four (6x7)", False, _config(64, 3_000_000, 8192, 2048, **_BOARD)),
    "breakthrough": ("breakthrough", "Breakthrough 8x8", False, _config(64, 3_000_000, 8192, 2048, **_BOARD)),
    "hex": ("hex", "Hex 11x11 (--env.game 'hex(board_size=5)' for a smaller board)", False,
            _config(64, 3_000_000, 8192, 2048, **_BOARD)),
    "othello": ("othello", "Othello 8x8", False, _config(64, 3_000_000, 8192, 2048, **_BOARD)),
    "dots_and_boxes": ("dots_and_boxes", "Dots and boxes, 2x2 boxes", False,
                       _config(64, 1_000_000, 8192, 2048, **_BOARD)),
    "clobber": ("clobber", "Clobber 5x6", False, _config(64, 2_000_000, 8192, 2048, **_BOARD)),
    "checkers": ("checkers", "Checkers 8x8", False, _config(64, 3_000_000, 8192, 2048, **_BOARD)),
    "chess": ("chess", "Chess (4,674 moves; games of hundreds of moves between untrained agents)", False,
              _config(64, 3_000_000, 8192, 2048, **_BOARD)),
    "backgammon": ("backgammon", "Backgammon (dice: chance nodes sampled from the env's seed)", False,
                   _config(64, 3_000_000, 8192, 2048, **_BOARD)),
}
#: Env defaults of every id (see puffer_openspiel.env.make), listed so that each is a config key.
KWARGS = {"opponent": "none", "mcts_simulations": 100, "mcts_rollouts": 1}


def env_specs() -> list[EnvSpec]:
    """One spec per game; each env object holds `num_envs` games (native backend)."""
    return [EnvSpec(id=PREFIX + name, creator=CREATOR,
                    kwargs={"game": game, "exploitability": solvable, **KWARGS}, policy=POLICY,
                    config={k: dict(v) for k, v in config.items()}, backend=NATIVE, package=PACKAGE,
                    description=text)
            for name, (game, text, solvable, config) in GAMES.items()]
