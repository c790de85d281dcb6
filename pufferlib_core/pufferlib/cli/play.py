"""`puffer play ENV [--against PLAYER] [--seat N]`: a person plays a turn-based game in the terminal.

The env must be one of turn-based games (`game_seats` >= 2, see `pufferlib.environment`: one seat
moves at a time, the others masked): PettingZoo's classic board games (`pettingzoo-tictactoe`,
`pettingzoo-connect_four`) and Ocean's (`ocean-connect4`, `ocean-checkers`, `ocean-chess`,
`ocean-hex`, `ocean-go`, ..., and the poker games `ocean-kuhn_poker`, `ocean-leduc_poker`). It is
made with one game and every seat an agent (`opponent="none"`). The person holds seat `--seat`
(0 moves first); `--against` plays every other seat: "human" (the default: people take turns at
the keyboard), one of the env's built-in players (its `builtin_players`, e.g. "random"; the env
plays that seat itself through its `players` input), or an agent (a checkpoint file, a run folder,
"latest" or an hf:// address, `pufferlib.load`), which plays greedily (`--sample`: sampled moves).

Before each of a person's moves the board is printed (the env's `ansi` render where it has one;
otherwise drawn from the mover's observation when it holds planes of pieces (rows, columns, planes),
the mover's pieces in plane 0), then the legal moves (the action mask of the mover's observation; an
env without one offers every action and its rules judge the move). A move is an action number; one
that is not a number, or not legal, is asked again. "q" (or end of input) leaves the game. At the
end the result is printed (the env's outcomes: win, draw or loss) with each seat's reward of the
last step.

Against an agent, each of its turns prints its win estimate from its value head: the value V is
the expected return of the position for the seat to move. In a game whose only reward is +1 for a
win and -1 for a loss at its end (0 for a draw; tictactoe, connect four), V estimates
P(win) - P(loss), so (1 + V) / 2 estimates P(win) + P(draw) / 2: the expected score of the game
scored win 1, draw 0.5, loss 0, printed clipped to [0, 1]. Discounting (`train.gamma` < 1) pulls V
towards 0 as the end is further away, and shaped rewards (go's per-move ones) make it a different
quantity: read it as a guide there.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from pufferlib.errors import APIUsageError

#: `--against` for a second person at the keyboard.
HUMAN = "human"
#: What a person types to leave the game.
QUIT = ("q", "quit", "exit")
#: How the board drawn from an observation shows each seat's pieces.
SYMBOLS = "XO"


def play_command(argv: list[str]) -> int:
    """Play a turn-based game in the terminal against an agent, a built-in player or another person."""
    parser = argparse.ArgumentParser(prog="puffer play", description=play_command.__doc__, allow_abbrev=False)
    parser.add_argument("env_id", help="a turn-based game, e.g. pettingzoo-tictactoe, ocean-connect4")
    parser.add_argument("--against", default=HUMAN,
                        help="who plays the other seats: 'human' (default), a built-in player of the env (e.g. "
                             "'random'), or an agent: a checkpoint file, a run folder, 'latest', an hf:// address")
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 moves first; default 0)")
    parser.add_argument("--sample", action="store_true", help="the agent samples its moves instead of playing greedily")
    parser.add_argument("--seed", type=int, default=0, help="seed of the game (default 0)")
    parser.add_argument("--data-dir", default=None, help="where 'latest' looks (default: train.data_dir)")
    parser.add_argument("--hub.dir", dest="hub_dir", default=None,
                        help="a local hub folder for hf:// agents (default: $PUFFER_HUB_DIR, else the Hub)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    env, agent, builtin, ansi = _setup(args)
    try:
        seats = env.game_seats
        if not 0 <= args.seat < seats:
            raise APIUsageError(f"--seat {args.seat}: {args.env_id} has seats 0 to {seats - 1}.")
        who = [HUMAN if seat == args.seat or args.against == HUMAN else args.against for seat in range(seats)]
        return _play(env, agent, builtin, ansi, who, args)
    finally:
        env.close()


def _setup(args: argparse.Namespace) -> tuple[Any, Any, int, bool]:
    """(the env of one game with every seat an agent, the agent or None, the built-in player's code or 0,
    whether the env renders text)."""
    import pufferlib

    def make(**overrides: Any) -> Any:
        if agent is not None:
            return agent.make_env(1, **overrides)
        return pufferlib.make(args.env_id, num_envs=1, **overrides)

    agent = None
    try:  # every seat an agent: a game env takes opponent="none"
        probe = make(opponent="none")
    except APIUsageError as exc:
        raise APIUsageError(f"puffer play needs a turn-based game whose seats can all be played, made with "
                            f"opponent='none'; {args.env_id} refused it: {exc}") from None
    names = dict(getattr(probe, "builtin_players", None) or {})
    probe.close()
    if args.against != HUMAN:
        if args.against not in names:
            from pufferlib.train import published

            if args.against != "latest" and not published.is_address(args.against) and not Path(args.against).exists():
                raise APIUsageError(f"--against {args.against!r} is neither 'human', a built-in player of "
                                    f"{args.env_id} ({', '.join(names) or 'it has none'}), a checkpoint file, a run "
                                    "folder, 'latest' nor an hf:// address.")
            agent = pufferlib.load(args.against, args.env_id, device=args.device, data_dir=args.data_dir,
                                   hub_dir=args.hub_dir)
    env, ansi = _with_text_render(make)
    seats = int(getattr(env, "game_seats", 0))
    if seats < 2 or env.num_agents != seats:
        env.close()
        raise APIUsageError(f"{args.env_id} is not a game of two or more seats with every seat an agent (game_seats "
                            f"{seats}, {env.num_agents} rows): puffer play needs a turn-based game.")
    builtin = 0 if args.against == HUMAN or agent is not None else int(env.builtin_players[args.against])
    return env, agent, builtin, ansi


def _with_text_render(make: Any) -> tuple[Any, bool]:
    """(the env made with render_mode "ansi", True) where it draws text, else (the env made without, False)."""
    try:
        env = make(opponent="none", render_mode="ansi")
    except (APIUsageError, TypeError, ValueError):  # no such render mode, or no render_mode argument
        return make(opponent="none"), False
    try:
        env.reset(seed=0)
        drawn = isinstance(env.render(), str)
    except Exception:  # noqa: BLE001  an env that takes the argument but draws no text (PettingZoo: pygame)
        drawn = False
    if drawn:
        return env, True
    env.close()
    return make(opponent="none"), False


def _play(env: Any, agent: Any, builtin: int, ansi: bool, who: list[str], args: argparse.Namespace) -> int:
    """The game loop: one move per turn until the game ends (exit 0) or the person leaves (exit 0)."""
    seats = len(who)
    obs = env.reset(seed=args.seed)[0]
    if builtin:
        env.players[:seats] = [0 if name == HUMAN else builtin for name in who]
    state, starts = None, np.ones(seats, bool)
    agent_name = Path(agent.checkpoint).name if agent is not None and agent.checkpoint else args.against
    names = [("you" if who.count(HUMAN) == 1 else f"player {seat}") if name == HUMAN else agent_name
             for seat, name in enumerate(who)]
    print(f"{args.env_id}: " + ", ".join(f"seat {seat}: {name}" for seat, name in enumerate(names)), flush=True)
    while True:
        movers = np.flatnonzero(np.asarray(env.masks[:seats]))
        if len(movers) != 1:
            raise APIUsageError(f"{args.env_id} has {len(movers)} seats to move at once: puffer play needs a "
                                "turn-based game (one seat moves at a time).")
        mover = int(movers[0])
        legal = _legal(env, obs[mover])
        action = 0
        if agent is not None:
            if who[mover] != HUMAN:
                value = float(agent.value(obs[mover : mover + 1])[0])
                print(f"{names[mover]} (seat {mover}) estimates its expected score at "
                      f"{min(1.0, max(0.0, (1 + value) / 2)):.2f} (value {value:+.2f})", flush=True)
            actions, state = agent.act(obs, state, deterministic=not args.sample, episode_start=starts)
            action = int(np.asarray(actions)[mover])
        if who[mover] == HUMAN:
            print(_board(env, obs[mover], mover, ansi), flush=True)
            asked = _ask(names[mover], mover, legal, env.single_action_space.n)
            if asked is None:
                print("game left unfinished", flush=True)
                return 0
            action = asked
        elif builtin:
            print(f"{names[mover]} (seat {mover}) moves", flush=True)
        else:
            print(f"{names[mover]} (seat {mover}) plays {action}", flush=True)
        actions = np.zeros(env.actions.shape, dtype=env.actions.dtype)
        actions[mover] = action
        obs, rewards, terminals, truncations, _ = env.step(actions)
        starts = np.asarray(terminals[:seats]) | np.asarray(truncations[:seats])
        if starts.any():
            print(_result(np.asarray(env.outcomes[:seats], dtype=float), np.asarray(rewards[:seats], dtype=float),
                          names), flush=True)
            return 0


def _legal(env: Any, row: np.ndarray) -> list[int]:
    """The mover's legal actions: its observation's action mask, else every action."""
    mask = _part(env, row, "action_mask")
    if mask is not None:
        return [int(a) for a in np.flatnonzero(mask.reshape(-1))]
    return list(range(int(env.single_action_space.n)))


def _part(env: Any, row: np.ndarray, key: str) -> np.ndarray | None:
    """The entry `key` of a Dict observation's flat row, or None."""
    layout = getattr(env, "obs_layout", None)
    if layout is None or not isinstance(layout.space, spaces.Dict) or key not in layout.space.spaces:
        return None
    return np.asarray(layout.unflatten(np.asarray(row))[key])


def _board(env: Any, row: np.ndarray, mover: int, ansi: bool) -> str:
    """The env's ansi render (`ansi`: it was made to render text), or the board drawn from the
    mover's observation planes."""
    if ansi:
        text = env.render()
        if isinstance(text, str):
            return text.rstrip("\n")
    planes = _part(env, row, "observation")
    if planes is None or planes.ndim != 3 or planes.shape[2] < 2:
        return "(this env draws no board: it has no ansi render, nor an observation of piece planes)"
    mine, theirs = SYMBOLS[mover % 2], SYMBOLS[1 - mover % 2]
    rows = ["  " + " ".join(str(c % 10) for c in range(planes.shape[1]))]
    for r in range(planes.shape[0]):
        cells = [mine if planes[r, c, 0] else theirs if planes[r, c, 1] else "." for c in range(planes.shape[1])]
        rows.append(f"{r % 10} " + " ".join(cells))
    return "\n".join(rows) + f"\n(seat 0: {SYMBOLS[0]}, seat 1: {SYMBOLS[1]})"


def _ask(name: str, seat: int, legal: list[int], n: int) -> int | None:
    """A legal move typed by the person, asked until it is one; None when they leave."""
    shown = " ".join(map(str, legal)) if len(legal) <= 64 else f"{len(legal)} moves: " + " ".join(map(str, legal))
    while True:
        try:
            text = input(f"{name} (seat {seat}), your move [{shown}]: ").strip()
        except EOFError:
            return None
        if text.lower() in QUIT:
            return None
        try:
            move = int(text)
        except ValueError:
            print(f"{text!r} is not a move: type one of the legal moves' numbers, or q to leave.", flush=True)
            continue
        if move not in legal:
            where = "not legal here" if 0 <= move < n else f"not an action (0 to {n - 1})"
            print(f"{move} is {where}: the legal moves are {shown}.", flush=True)
            continue
        return move


def _result(outcomes: np.ndarray, rewards: np.ndarray, names: list[str]) -> str:
    """The game's result line from each seat's outcome (1 win, 0.5 draw, 0 loss, NaN none), with the
    rewards of its last step (a game's score where it is not only who won: chips in poker)."""
    last = "; last rewards: " + ", ".join(f"seat {s} {r:+g}" for s, r in enumerate(rewards))
    if all(math.isnan(o) for o in outcomes):
        return f"game over: no result (cut short){last}"
    winners = [f"{names[s]} (seat {s})" for s, o in enumerate(outcomes) if o == 1.0]
    if winners:
        return f"game over: {' and '.join(winners)} won{last}"
    if all(o == 0.5 for o in outcomes):
        return f"game over: a draw{last}"
    return "game over: " + ", ".join(f"{names[s]} (seat {s}) {o:g}" for s, o in enumerate(outcomes)) + last
