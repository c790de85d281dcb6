"""Turn-based PettingZoo games (AEC envs such as tic-tac-toe, connect four, go, chess) as parallel envs.

`TurnBasedParallelEnv` is what `pufferlib.emulation.PettingZooPufferEnv` emulates an AEC env
through when the env cannot be converted to the parallel API (its metadata says
`is_parallelizable: False`). Its contract, which gives the PufferEnv rows their meaning:

- Every seat (`possible_agents` of the AEC env) is an agent with a fixed row. At each step
  the one agent present (`agents`, and the only key of the observations) is the seat whose
  turn it is (`agent_selection`): its action is played, every other row is masked and its
  action ignored. A waiting seat's observation is padding (zeros).
- Rewards: the rewards the AEC env gives a seat after any move (its own or another seat's)
  are added up and returned at the step that played that move (an opponent's moves in
  `reset`: at the first step), on that seat's row: a seat that loses on the opponent's move
  gets its -1 at that step.
- A seat that ends (terminated or truncated) is reported once, at the step where it ends,
  with its last observation and its info dict; the AEC env's dead seats are then stepped
  out (action None), as its API requires. When no seat is left, the game is over: `agents`
  is empty, and the emulation resets (a new game; `reset(seed)` seeds the AEC env).
- Action masks pass through as the env gives them: PettingZoo's classic games observe a
  Dict with "observation" and "action_mask" (1 = legal; all 0 for a seat not to move),
  which the trainer applies when it samples (`pufferlib.pytorch.action_mask`).

`opponent` (`OPPONENTS`): "none", the default, keeps every seat an agent. "random" or "tactical"
makes it a one-agent env: the agent `LEARNER` holds one seat, drawn at random per game, and every
other seat is played here by that built-in player (`pufferlib.games.players`: random legal moves,
or a two-ply search that wins at once, else does not lose at once; the tactical player searches on
copies of the AEC env's state, so an env whose state cannot be deep-copied makes it raise).
The draws come from a generator seeded by `reset(seed)`, so a seed repeats the games. An agent's
info dict at its game's end holds the game's outcome for its seat: `outcome` (win 1, draw 0.5,
loss 0: its game return above, equal to or below the best of the other seats'), and `win`,
`draw`, `loss` (each 1 or 0), whose means over episodes are the rates.
`loss_penalty` (default 0, none): subtracted from a seat's reward at the step its game ends in a
loss, on top of the game's own (tictactoe's -1 becomes -1 - loss_penalty). It makes the objective
risk-averse: with the game's symmetric rewards, the policy that scores best against random play
takes risks that lose a few games in a thousand (tictactoe: 3.7 per 1,000 with seats alternating,
by exact expectimax), where a penalty of 4 or more makes never losing the best policy (it gives up
0.8% of wins). Outcomes (below) are the game's, not shaped.
`game_seats` (`pufferlib.environment`'s game contract: the seats, or 1 against an opponent) makes
the emulation write each `outcome` to its row's `outcomes`, for `pufferlib.match` and self-play.

With opponent "none" and Discrete actions, the built-in players can also take any seat
(`builtin_players`, this env's declaration: {"random": 1, "tactical": 2}, self-play's anchors):
`players`, when the emulation binds it, holds one entry per seat (in `seats` order; the emulation's `players` rows),
0 for its agent, else the code of the built-in player whose move then replaces the seat's action
at its turn.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import ParallelEnv

from pufferlib.errors import APIUsageError
from pufferlib.games.players import PLAYERS, advance, discrete_moves, result

if TYPE_CHECKING:
    from pettingzoo import AECEnv

#: The values of `opponent=`: "none" (every seat is an agent), or who plays every seat but the learner's.
OPPONENTS = ("none", *PLAYERS)
#: The one agent of an env with an opponent: it holds a different seat from game to game.
LEARNER = "learner"
#: The players that can take a seat of a game whose seats are all agents (`players` codes).
BUILTIN_PLAYERS = {name: code for code, name in enumerate(PLAYERS, 1)}
_PLAYER_NAMES = {code: name for name, code in BUILTIN_PLAYERS.items()}

Dicts = dict[Hashable, Any]


#: The adapter's own keyword arguments: a game whose creator does not take them (a plugin's
#: PettingZoo AEC env, which knows nothing of built-in players) gets them through `made_game`.
ADAPTER_OPTIONS = ("opponent", "loss_penalty")


def made_game(creator: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`creator(*args, **kwargs)`; when the creator refuses the adapter's options of `kwargs`
    (`ADAPTER_OPTIONS`, a TypeError naming one), its game made without them and played through
    `TurnBasedParallelEnv` with them. `pufferlib.make` makes envs through it whenever their
    kwargs hold such an option. APIUsageError when a creator refuses them but makes no AEC game."""
    try:
        return creator(*args, **kwargs)
    except TypeError as exc:
        if not any(f"unexpected keyword argument '{key}'" in str(exc) for key in ADAPTER_OPTIONS if key in kwargs):
            raise
    from pettingzoo.utils.env import AECEnv

    options = {key: kwargs.pop(key) for key in ADAPTER_OPTIONS if key in kwargs}
    env = creator(*args, **kwargs)
    if not isinstance(env, AECEnv):
        raise APIUsageError(f"{getattr(creator, '__name__', creator)} does not take {', '.join(options)} and makes "
                            f"a {type(env).__name__}, not a turn-based PettingZoo (AEC) game that built-in players "
                            "can take a seat of: remove them (an [env] key, an --env.* flag, --opponent).")
    return TurnBasedParallelEnv(env, **options)


def check_opponent(opponent: object) -> None:
    """Raise APIUsageError unless `opponent` is one of `OPPONENTS`."""
    if opponent not in OPPONENTS:
        raise APIUsageError(f"opponent={opponent!r} is not one of {list(OPPONENTS)}: 'none' makes every seat an "
                            "agent, 'random' plays every seat but the learner's by random legal moves, 'tactical' "
                            "by moves that win at once, else do not lose at once (pufferlib.turn_based).")


def check_loss_penalty(loss_penalty: object) -> None:
    """Raise APIUsageError unless `loss_penalty` is a finite number >= 0."""
    if isinstance(loss_penalty, bool) or not isinstance(loss_penalty, (int, float)) \
            or not np.isfinite(loss_penalty) or loss_penalty < 0:
        raise APIUsageError(f"loss_penalty={loss_penalty!r} must be a finite number >= 0: it is subtracted from a "
                            "seat's reward when it loses (0: the game's own rewards).")


class TurnBasedParallelEnv(ParallelEnv):
    """A turn-based AEC env as a parallel env whose one present agent is the seat to move (see module doc).

    `env`: the AEC env. `opponent`: one of `OPPONENTS`; "none" makes every seat an agent.
    `loss_penalty`: >= 0, subtracted from a seat's reward when it loses (module doc).
    """

    def __init__(self, env: AECEnv, opponent: str = "none", loss_penalty: float = 0.0):
        check_opponent(opponent)
        check_loss_penalty(loss_penalty)
        self.aec, self.opponent, self.loss_penalty = env, opponent, float(loss_penalty)
        self._versus = opponent != "none"  # one learner against the opponent
        self.metadata = dict(getattr(env, "metadata", {}))
        self.render_mode = getattr(env, "render_mode", None)
        self.seats: list[Hashable] = list(env.possible_agents)
        self.possible_agents = [LEARNER] if self._versus else list(self.seats)
        #: `pufferlib.environment`'s game contract: every seat is a row of one game, or the one
        #: learner row plays against the opponent here.
        self.game_seats = 1 if self._versus else len(self.seats)
        self.agents: list[Hashable] = []
        # reported agent -> the seat it plays: every seat itself, or the learner's seat of this game
        self._rows: dict[Hashable, Hashable] = {} if self._versus else {seat: seat for seat in self.seats}
        self._rng = np.random.default_rng()
        if self._versus:
            self._check_seats_are_alike()
        # the moves of each seat whose actions are Discrete (the random player's choices)
        self._moves = discrete_moves(env)
        #: The built-in players that may take a seat (module doc): with every seat an agent and Discrete actions.
        self.builtin_players = dict(BUILTIN_PLAYERS) if not self._versus and len(self._moves) == len(self.seats) else {}
        #: Who plays each seat (0 its agent, else a `BUILTIN_PLAYERS` code), bound by the emulation; None: the agents.
        self.players: np.ndarray | None = None
        self._seat_index = {seat: i for i, seat in enumerate(self.seats)}

    def _check_seats_are_alike(self) -> None:
        if len(self.seats) < 2:
            raise APIUsageError(f"opponent={self.opponent!r} plays the other seats of a game, but this env has one "
                                f"seat, {self.seats}. Use opponent='none'.")
        for attr in ("observation_space", "action_space"):
            first = getattr(self.aec, attr)(self.seats[0])
            differ = [seat for seat in self.seats if getattr(self.aec, attr)(seat) != first]
            if differ:
                raise APIUsageError(
                    f"opponent={self.opponent!r} needs seats that share one {attr.replace('_', ' ')} (the learner "
                    f"may hold any seat): {self.seats[0]!r} has {first}, {differ[0]!r} has "
                    f"{getattr(self.aec, attr)(differ[0])}. Use opponent='none' to make every seat an agent.")
        space = self.aec.action_space(self.seats[0])
        if not isinstance(space, spaces.Discrete):
            raise APIUsageError(f"opponent={self.opponent!r} plays Discrete actions, but the seats' action space is "
                                f"{space}. Use opponent='none' to make every seat an agent.")

    def observation_space(self, agent: Hashable) -> spaces.Space[Any]:
        """The observation space of an agent (a seat, or `LEARNER`)."""
        return self.aec.observation_space(self.seats[0] if agent == LEARNER else agent)

    def action_space(self, agent: Hashable) -> spaces.Space[Any]:
        """The action space of an agent (a seat, or `LEARNER`)."""
        return self.aec.action_space(self.seats[0] if agent == LEARNER else agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[Dicts, Dicts]:
        """Start a game; `seed` seeds the AEC env and the draws of seats and opponent moves."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:  # ends: the learner holds the seat that moves first in 1 of len(seats) games
            self.aec.reset(seed=seed, options=options)
            self._pending = dict.fromkeys(self.seats, 0.0)  # rewards not yet returned
            self._returns = dict.fromkeys(self.seats, 0.0)  # this game's, per seat
            self._ended: dict[Hashable, tuple[object, bool, bool, dict]] = {}  # seat -> (last obs, term, trunc, info)
            self._reported: set[Hashable] = set()
            self._to_move: Hashable | None = self.aec.agent_selection
            if self._versus:
                self._rows = {LEARNER: self.seats[int(self._rng.integers(len(self.seats)))]}
                self._play_others()
            self.agents = self._turn()
            if self.agents:  # else the opponents ended the game before the learner's first move: another
                break
            seed = None
        seats = {agent: self._rows[agent] for agent in self.agents}
        return ({agent: self.aec.observe(seat) for agent, seat in seats.items()},
                {agent: dict(self.aec.infos.get(seat, {})) for agent, seat in seats.items()})

    def step(self, actions: Mapping[Hashable, object]) -> tuple[Dicts, Dicts, Dicts, Dicts, Dicts]:
        """Play the action of the agent to move (others are ignored; the built-in player's move where
        `players` gives it the seat), and the opponent's moves if any."""
        if not self.agents:
            raise APIUsageError("step() was called with no agent to move (the game is over or was never started); "
                                "call reset() first.")
        agent = self.agents[0]
        player = 0 if self.players is None else int(self.players[self._seat_index[self._rows[agent]]])
        if player:
            self._play(self._builtin_action(player, self._rows[agent]))
        else:
            self._play(actions[agent])
        if self._versus:
            self._play_others()
        return self._report()

    def _play(self, action: object) -> None:
        """One move of the seat to move, the dead seats then stepped out (`games.players.advance`);
        sets `_to_move`, the seat to move next (None: the game is over)."""
        _, self._to_move = advance(self.aec, action, self._pending, self._returns, on_end=self._end)

    def _end(self, seat: Hashable, terminated: bool, truncated: bool) -> None:
        """Keep the last observation and info of `seat`, which ended, for `_report`."""
        if seat not in self._ended:
            self._ended[seat] = (self.aec.observe(seat), terminated, truncated, dict(self.aec.infos.get(seat, {})))

    def _play_others(self) -> None:
        """The opponent's moves for every seat but the learner's, until the learner is to move or has ended."""
        seat, player = self._rows[LEARNER], BUILTIN_PLAYERS[self.opponent]
        while self._to_move is not None and seat not in self._ended and self._to_move != seat:
            self._play(self._builtin_action(player, self._to_move))

    def _builtin_action(self, player: int, seat: Hashable) -> int:
        """The move of built-in player `player` (a `BUILTIN_PLAYERS` code) for `seat`, the seat to move."""
        return PLAYERS[_PLAYER_NAMES[player]](self.aec, seat, self._moves, self._rng, self._returns)

    def _turn(self) -> list[Hashable]:
        """The agents to move now: the one whose seat is to move, if it has not ended."""
        return [agent for agent, seat in self._rows.items() if seat == self._to_move and seat not in self._ended]

    def _report(self) -> tuple[Dicts, Dicts, Dicts, Dicts, Dicts]:
        """The parallel API's (observations, rewards, terminations, truncations, infos) of the moves just played."""
        obs: Dicts = {}
        rewards: dict[Hashable, float] = {}
        terms: dict[Hashable, bool] = {}
        truncs: dict[Hashable, bool] = {}
        infos: dict[Hashable, dict] = {}
        for agent, seat in self._rows.items():
            rewards[agent] = float(self._pending[seat])
            terms[agent] = truncs[agent] = False
            infos[agent] = {}
            if seat in self._ended and seat not in self._reported:
                self._reported.add(seat)
                obs[agent], terms[agent], truncs[agent], infos[agent] = self._ended[seat]
                outcome = result(seat, self._returns)
                infos[agent].update(outcome)
                rewards[agent] -= self.loss_penalty * outcome["loss"]
        self._pending = dict.fromkeys(self.seats, 0.0)
        self.agents = self._turn()
        for agent in self.agents:
            obs[agent] = self.aec.observe(self._rows[agent])
        return obs, rewards, terms, truncs, infos

    def render(self) -> Any:
        """The AEC env's render."""
        return self.aec.render()

    def close(self) -> None:
        """Close the AEC env."""
        self.aec.close()
