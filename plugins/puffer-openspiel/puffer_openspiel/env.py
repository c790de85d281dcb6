"""OpenSpielEnv: OpenSpiel's two-player zero-sum turn-based games as PufferEnvs of games.

The game contract (`pufferlib.environment`), for `num_envs` games in one env object:
- `opponent="none"` (the default): `game_seats` 2, rows 2g and 2g + 1 are seats 0 and 1 of game
  g, both agents. The seat to move is the one unmasked row of its game; the other row is masked
  and its action ignored. `builtin_players` ({"random": 1, "mcts": 2}; "random" only in games of
  imperfect information, where OpenSpiel's MCTS would search the true state and see the hidden
  cards) names who may take a seat through the `players` input (self-play's anchors, `puffer
  match A mcts`).
- `opponent="random"` or `"mcts"`: one agent row per game (`game_seats` 1), holding a seat drawn
  per game from the env's generator; the built-in player moves every other seat here.
- A game ends for every row of it in one step: each row gets its seat's return (OpenSpiel's
  `returns()`, +1/-1 in the board games, chips in poker) as reward, ends (terminal) and holds its
  outcome (1 win, 0.5 draw, 0 loss: its return above, equal to or below the other seat's). Every
  other step rewards 0 (only games whose rewards come at the end are taken). The next game
  starts in the same step. Infos, one per ended game: `episode_return` (seat 0's, or the
  learner's), `episode_length` (moves of both seats) and, against an opponent, the learner's
  `outcome`, `win`, `draw`, `loss`. Each ended row's last observation (the final position, mask
  all 0) is in `final_observations` in that step.
- Chance nodes (the deal, dice) are sampled from the env's generator, seeded by `reset(seed)`: a
  seed and the same actions give the same games. A move that is not legal plays the seat's
  lowest-numbered legal move (the trainer samples legal ones only, through the mask).

A row's observation is the Dict {"action_mask": (num_distinct_actions,), "observation": ...}:
the mask is 1 on the legal moves of the seat to move; the observation is the seat's information
state tensor in games of imperfect information (its card, the public card, every bet so far: the
information set itself), else the game's observation tensor (the board), flattened, followed by a
one-hot of the seat. A waiting seat's row is padding: its mask and tensor all 0, its seat one-hot.

`SolvableOpenSpielEnv` (`exploitability=True`, the default of Kuhn and Leduc poker) adds the two
methods of `pufferlib.train.exploitability`: `information_sets()` (the observation at every
information set, in the order of OpenSpiel's `TabularPolicy`) and `exploitability(probs)`:
OpenSpiel's own `open_spiel.python.algorithms.exploitability.exploitability` of the tabular
policy holding those probabilities, (BR_0 + BR_1) / 2 in the game's units (NashConv / 2).
"""

from __future__ import annotations

import difflib
import functools
from typing import Any

import numpy as np
from gymnasium import spaces

from pufferlib import ObsLayout
from pufferlib.environment import PufferEnv
from pufferlib.errors import APIUsageError

#: The values of `opponent`: "none" (both seats agents) or a built-in player.
OPPONENTS = ("none", "random", "mcts")
RANDOM, MCTS = 1, 2


def load_game(game: str) -> Any:
    """The OpenSpiel game of a game string ("kuhn_poker", "hex(board_size=5)"), simultaneous-move games
    made turn-based (`pyspiel.convert_to_turn_based`); APIUsageError unless it is a game of the contract:
    two players, zero-sum (or constant-sum), turn by turn, rewarded at the end."""
    import pyspiel

    if not isinstance(game, str) or not game:
        raise APIUsageError(f"game must be an OpenSpiel game string such as 'kuhn_poker' or 'hex(board_size=5)', "
                            f"got {game!r}.")
    name = game.split("(", 1)[0].strip()
    known = pyspiel.registered_names()
    if name not in known:  # checked first: pyspiel prints its whole list of games to stderr on an unknown name
        close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise APIUsageError(f"OpenSpiel has no game {name!r}.{hint} pyspiel.registered_names() lists them.")
    try:
        loaded = pyspiel.load_game(game)
    except pyspiel.SpielError as exc:
        raise APIUsageError(f"OpenSpiel cannot load game {game!r}: {str(exc).splitlines()[0]}") from None
    kind = loaded.get_type()
    if kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        loaded = pyspiel.convert_to_turn_based(loaded)
        kind = loaded.get_type()
    problems = []
    if loaded.num_players() != 2:
        problems.append(f"it has {loaded.num_players()} players, not 2")
    if kind.utility not in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
        problems.append(f"its utility is {kind.utility.name}, not zero-sum or constant-sum (no winner and loser)")
    if kind.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        problems.append(f"its dynamics are {kind.dynamics.name}, not sequential")
    if kind.reward_model != pyspiel.GameType.RewardModel.TERMINAL:
        problems.append("it gives rewards before the end")
    if kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        problems.append("its chance outcomes are sampled inside the game (not seedable)")
    if not (kind.provides_observation_tensor or kind.provides_information_state_tensor):
        problems.append("it provides no observation tensor")
    if problems:
        raise APIUsageError(f"OpenSpiel's {game!r} is not a game puffer-openspiel plays (two seats taking turns, "
                            f"one winning what the other loses): {'; '.join(problems)}.")
    return loaded


def _uses_information_state(game: Any) -> bool:
    import pyspiel

    kind = game.get_type()
    return kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION \
        and kind.provides_information_state_tensor or not kind.provides_observation_tensor


class _TensorObserver:
    """The observer API over `information_state_tensor`/`observation_tensor`, for a game without observers."""

    def __init__(self, info_state: bool):
        self.info_state, self.tensor = info_state, np.zeros(0, np.float32)

    def set_from(self, state: Any, seat: int) -> None:
        self.tensor = np.asarray(state.information_state_tensor(seat) if self.info_state
                                 else state.observation_tensor(seat), np.float32)


def _observer(game: Any, info_state: bool, size: int) -> Any:
    """OpenSpiel's observer of the seat's information state (perfect recall) or of its observation: it writes
    into one numpy buffer (`tensor`), six times faster than the list `observation_tensor` returns."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    try:
        observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True) if info_state else None)
    except Exception:  # noqa: BLE001  a game (or wrapper) without the observer API
        return _TensorObserver(info_state)
    return observer if observer.tensor is not None and observer.tensor.size == size else _TensorObserver(info_state)


class OpenSpielEnv(PufferEnv):
    """`num_envs` games of the OpenSpiel game `game`; see the module docstring.

    `mcts_simulations`, `mcts_rollouts`: the built-in MCTS player's search (OpenSpiel's `MCTSBot`
    with random-rollout evaluation: simulations per move, rollouts per leaf).
    `render_mode="ansi"`: `render()` gives game 0 as text (the board, or the mover's information state).
    """

    metadata = {"render_modes": ["ansi"]}
    writes_final_observations = True

    def __init__(self, num_envs: int = 1, buf: Any = None, game: str = "tic_tac_toe", opponent: str = "none",
                 mcts_simulations: int = 100, mcts_rollouts: int = 1, render_mode: str | None = None):
        for name, value in (("num_envs", num_envs), ("mcts_simulations", mcts_simulations),
                            ("mcts_rollouts", mcts_rollouts)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise APIUsageError(f"{name} must be an int >= 1, got {value!r}.")
        if render_mode not in (None, "ansi"):
            raise APIUsageError(f"render_mode must be None or 'ansi', got {render_mode!r}.")
        self.game = load_game(game)
        self.game_name = game
        self.perfect = self.game.get_type().information == self.game.get_type().Information.PERFECT_INFORMATION
        #: Who may take a seat (`players` codes); MCTS only where it cannot see hidden information.
        players = {"random": RANDOM, "mcts": MCTS} if self.perfect else {"random": RANDOM}
        if opponent not in ("none", *players):
            raise APIUsageError(f"opponent={opponent!r} is not one of {['none', *players]} for {game}: 'none' makes "
                                "both seats agents, 'random' plays the other seat by random legal moves, 'mcts' by "
                                "OpenSpiel's MCTS (games of perfect information only: in the others it would see "
                                "the hidden cards).")
        self.opponent = opponent
        self._versus = opponent != "none"
        self.builtin_players = {} if self._versus else players
        self.render_mode = render_mode
        self.mcts_simulations, self.mcts_rollouts = int(mcts_simulations), int(mcts_rollouts)
        self.num_envs = int(num_envs)
        self.num_agents = self.num_envs if self._versus else 2 * self.num_envs
        self.game_seats = 1 if self._versus else 2
        self.num_actions = int(self.game.num_distinct_actions())
        self._info_state = _uses_information_state(self.game)
        size = int(np.prod(self.game.information_state_tensor_shape() if self._info_state
                           else self.game.observation_tensor_shape()))
        self.obs_layout = ObsLayout(spaces.Dict({
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.float32),
            "observation": spaces.Box(-np.inf, np.inf, (size + 2,), np.float32),
        }))
        self._mask_at = {leaf.path[0]: leaf.offset for leaf in self.obs_layout.leaves}["action_mask"]
        self._obs_at = {leaf.path[0]: leaf.offset for leaf in self.obs_layout.leaves}["observation"]
        self._obs_size = size
        self._observer = _observer(self.game, self._info_state, size)
        self.single_observation_space = self.obs_layout.flat_space
        self.single_action_space = spaces.Discrete(self.num_actions)
        super().__init__(buf)
        self._rng = np.random.default_rng()
        self._bot: Any = None
        self._states: list[Any] = []
        self._seats = np.zeros(self.num_envs, np.int64)  # the learner's seat per game (opponent mode)

    # -- the game -----------------------------------------------------------------------------
    def _chance(self, state: Any) -> None:
        """Sample chance nodes (deals, dice) until a seat is to move or the game is over."""
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            draw = self._rng.random() * sum(p for _, p in outcomes)  # a plain loop: rng.choice(p=...) costs 50 us
            chosen = outcomes[-1][0]
            for action, p in outcomes:
                draw -= p
                if draw < 0:
                    chosen = action
                    break
            state.apply_action(chosen)

    def _builtin(self, code: int, state: Any) -> int:
        """The move of built-in player `code` in `state`."""
        if code == MCTS:
            return int(self._mcts().step(state))
        return int(self._rng.choice(state.legal_actions()))

    def _mcts(self) -> Any:
        if self._bot is None:
            from open_spiel.python.algorithms import mcts

            random_state = np.random.RandomState(int(self._rng.integers(2 ** 31)))
            evaluator = mcts.RandomRolloutEvaluator(self.mcts_rollouts, random_state)
            self._bot = mcts.MCTSBot(self.game, 2.0, self.mcts_simulations, evaluator, solve=True,
                                     random_state=random_state)
        return self._bot

    def _move(self, state: Any, action: int) -> None:
        """Play `action` for the seat to move (its lowest legal move when it is not legal), then chance."""
        legal = state.legal_actions()
        state.apply_action(action if action in legal else legal[0])
        self._chance(state)

    def _new_game(self, game: int) -> Any:
        state = self.game.new_initial_state()
        self._chance(state)
        if self._versus:
            self._seats[game] = int(self._rng.integers(2))
            self._play_opponent(state, game)
            if state.is_terminal():  # the opponent ended it before the learner's first move (no such game here)
                return self._new_game(game)
        return state

    def _play_opponent(self, state: Any, game: int) -> None:
        code = MCTS if self.opponent == "mcts" else RANDOM
        while not state.is_terminal() and state.current_player() != self._seats[game]:
            self._move(state, self._builtin(code, state))

    # -- observations ---------------------------------------------------------------------------
    def _encode(self, out: np.ndarray, state: Any, seat: int, board: bool = True) -> None:
        """Write seat `seat`'s observation of `state` into the flat row `out` (`board` False: the mask and the
        seat only, for a seat that waits)."""
        out[:] = 0
        out[self._obs_at + self._obs_size + seat] = 1
        if not board:
            return
        if not state.is_terminal() and state.current_player() == seat:
            out[self._mask_at + np.asarray(state.legal_actions(), np.int64)] = 1
        self._observer.set_from(state, seat)
        out[self._obs_at:self._obs_at + self._obs_size] = self._observer.tensor.reshape(-1)

    def _observe(self, game: int) -> None:
        state = self._states[game]
        if self._versus:
            self._encode(self.observations[game], state, int(self._seats[game]))
            self.masks[game] = True
            return
        mover = state.current_player()
        for seat in (0, 1):
            self._encode(self.observations[2 * game + seat], state, seat, board=seat == mover)
            self.masks[2 * game + seat] = seat == mover

    # -- the PufferEnv API ----------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, list[dict]]:
        """New games; `seed` seeds the chance nodes, the seats and the built-in players."""
        self._rng = np.random.default_rng(seed)
        self._bot = None
        self._states = [self._new_game(game) for game in range(self.num_envs)]
        for game in range(self.num_envs):
            self._observe(game)
        self.rewards[:] = 0
        self.terminals[:] = False
        self.truncations[:] = False
        return self.observations, []

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """One move per game (the seat to move's), the opponent's replies, and new games for those that ended."""
        if not self._states:
            raise APIUsageError("step() before reset(): call reset() first.")
        self.actions[:] = np.asarray(actions).reshape(self.actions.shape)
        chosen = self.actions.reshape(-1)
        self.rewards[:] = 0
        self.terminals[:] = False
        infos: list[dict] = []
        for game in range(self.num_envs):
            state = self._states[game]
            if self._versus:
                self._move(state, int(chosen[game]))
                self._play_opponent(state, game)
            else:
                row = 2 * game + state.current_player()
                code = int(self.players[row])
                self._move(state, int(chosen[row]) if code == 0 else self._builtin(code, state))
            if state.is_terminal():
                infos.append(self._end(game, state))
                self._states[game] = self._new_game(game)
            self._observe(game)
        return self.observations, self.rewards, self.terminals, self.truncations, infos

    def _end(self, game: int, state: Any) -> dict:
        """Write the rewards, terminals and outcomes of a game that ended; its info."""
        returns = state.returns()
        scores = [0.5 + 0.5 * float(np.sign(returns[seat] - returns[1 - seat])) for seat in (0, 1)]
        moves = sum(1 for step in state.full_history() if step.player >= 0)
        if self._versus:
            seat = int(self._seats[game])
            self._encode(self.final_observations[game], state, seat)
            self.rewards[game] = returns[seat]
            self.terminals[game] = True
            self.outcomes[game] = scores[seat]
            return {"episode_return": float(returns[seat]), "episode_length": moves, "outcome": scores[seat],
                    "win": float(scores[seat] == 1), "draw": float(scores[seat] == 0.5),
                    "loss": float(scores[seat] == 0)}
        rows = slice(2 * game, 2 * game + 2)
        for seat in (0, 1):
            self._encode(self.final_observations[2 * game + seat], state, seat)
        self.rewards[rows] = returns
        self.terminals[rows] = True
        self.outcomes[rows] = scores
        return {"episode_return": float(returns[0]), "episode_length": moves}

    def render(self) -> str | None:
        """Game 0 as text (render_mode "ansi"): the board in games of perfect information, else what the seat
        to move knows (its information state: its own card, never the other's)."""
        if self.render_mode != "ansi" or not self._states:
            return None
        state = self._states[0]
        mover = int(self._seats[0]) if self._versus else state.current_player()
        view = str(state) if self.perfect else state.information_state_string(mover)
        return f"{self.game_name}, seat {mover} to move\n{view}"

    def close(self) -> None:
        """Nothing to free."""


@functools.cache
def _tabular(game_string: str) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    """(the game, OpenSpiel's uniform TabularPolicy of it, the observation rows of its information
    states as `OpenSpielEnv` writes them for the seat to move (n, obs), their legal masks (n, actions))."""
    from open_spiel.python import policy

    game = load_game(game_string)
    table = policy.TabularPolicy(game)
    env = OpenSpielEnv(game=game_string)
    rows = np.zeros((len(table.states), env.single_observation_space.shape[0]), np.float32)
    for row, state in zip(rows, table.states):
        env._encode(row, state, state.current_player())
    return game, table, rows, np.asarray(table.legal_actions_mask, bool)


class SolvableOpenSpielEnv(OpenSpielEnv):
    """An `OpenSpielEnv` that offers `selfplay/exploitability` (`pufferlib.train.exploitability`), computed by
    OpenSpiel. Building it walks the whole game tree once per process (Leduc: 936 information sets,
    0.03 s), and each measure walks it again for both best responses (Leduc: about 0.2 s)."""

    def information_sets(self) -> np.ndarray:
        """Every information set's observation (n, obs), in the order `exploitability` takes probabilities."""
        return _tabular(self.game_name)[2]

    def exploitability(self, probs: np.ndarray) -> float:
        """OpenSpiel's exploitability, (BR_0 + BR_1) / 2 (NashConv / 2), of the policy with action probabilities
        `probs` (n, actions) at `information_sets()`; probabilities of illegal actions are dropped and the
        rest renormalised (uniform where a row gives legal actions no weight)."""
        from open_spiel.python.algorithms import exploitability

        game, table, _, legal = _tabular(self.game_name)
        probs = np.asarray(probs, np.float64)
        if probs.shape != legal.shape or not np.isfinite(probs).all() or (probs < 0).any():
            raise APIUsageError(f"exploitability takes {legal.shape} finite action probabilities >= 0, one row per "
                                f"information set; got shape {probs.shape}.")
        probs = probs * legal
        total = probs.sum(1, keepdims=True)
        uniform = legal / legal.sum(1, keepdims=True)
        table = table.__copy__(copy_action_probability_array=False)
        table.action_probability_array = np.where(total > 0, probs / np.where(total > 0, total, 1), uniform)
        return float(exploitability.exploitability(game, table))


def make(num_envs: int = 1, buf: Any = None, game: str = "tic_tac_toe", opponent: str = "none",
         mcts_simulations: int = 100, mcts_rollouts: int = 1, exploitability: bool = False,
         render_mode: str | None = None) -> OpenSpielEnv:
    """Creator of the `openspiel-*` ids (see the module docstring). `exploitability=True` makes the env offer
    `selfplay/exploitability` (walks the whole game tree at every log step: small games only)."""
    if not isinstance(exploitability, bool):
        raise APIUsageError(f"exploitability must be true or false, got {exploitability!r}.")
    cls = SolvableOpenSpielEnv if exploitability else OpenSpielEnv
    return cls(num_envs=num_envs, buf=buf, game=game, opponent=opponent, mcts_simulations=mcts_simulations,
               mcts_rollouts=mcts_rollouts, render_mode=render_mode)
