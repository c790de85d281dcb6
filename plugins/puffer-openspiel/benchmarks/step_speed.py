"""OpenSpiel stepping speed: pyspiel alone, puffer-openspiel, and upstream PufferLib 3.0's open_spiel wrapper.

Run `raw` and `ours` with this repository's venv, `upstream` with upstream 3.0's venv plus
`pip install open_spiel==2.0.2`. Upstream 3.0's wrapper (`pufferlib.environments.open_spiel`) does not
import there: its modules import `pufferlib.namespace`, which 3.0 no longer ships, and its `make` passes
`pufferlib.emulation.BasicPostprocessor`, also gone, and its package's `__init__` imports its policy,
which needs `pufferlib.models.Policy` (gone as well). `upstream` therefore enters the package without its
`__init__`, puts a stand-in for
`namespace` (sets the keyword arguments as attributes of the object) before importing it, and builds the
rest of `make`'s chain for `multiplayer=True` (both seats agents, as ours): `OpenSpielPettingZooEnvironment`
in 3.0's `PettingZooPufferEnv` and `pufferlib.vector`, without the postprocessor.

    python step_speed.py IMPL [--game kuhn_poker] [--num-envs N] [--seconds S]

prints one line: IMPL, game, envs, agent steps per second (rows stepped: 2 per game) over S seconds of
random legal moves, serial, and games ended per second.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def upstream_creator(game: str):
    def creator(buf=None, seed=0):
        import types

        import pufferlib

        if not hasattr(pufferlib, "namespace"):  # what 3.0 dropped: set attributes, return the object
            def namespace(self=None, **kwargs):
                if self is None:
                    return types.SimpleNamespace(**kwargs)
                self.__dict__.update(kwargs)  # used in __init__: returns None

            pufferlib.namespace = namespace
        import importlib.util
        import sys

        import pyspiel

        import pufferlib.emulation
        import pufferlib.environments

        # the package's __init__ imports its policy, which needs `pufferlib.models.Policy` (gone in 3.0 too):
        # the package is entered without it
        name = "pufferlib.environments.open_spiel"
        if name not in sys.modules:
            spec = importlib.util.find_spec(name)
            package = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(
                name, None, is_package=True))
            package.__path__ = list(spec.submodule_search_locations)
            sys.modules[name] = package
        from pufferlib.environments.open_spiel.pettingzoo_environment import OpenSpielPettingZooEnvironment

        env = OpenSpielPettingZooEnvironment(env=pyspiel.load_game(game), n_rollouts=5, min_simulations=10,
                                             max_simulations=10)
        return pufferlib.emulation.PettingZooPufferEnv(env=env, buf=buf, seed=seed)
    return creator


def masks_of(obs: np.ndarray, n: int) -> np.ndarray:
    """The action masks of flat Dict rows whose first `n` entries are the mask (both layouts sort the keys)."""
    return obs[:, :n] > 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("impl", choices=["raw", "ours", "upstream"])
    parser.add_argument("--game", default="kuhn_poker")
    parser.add_argument("--num-envs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    steps = games = 0
    if args.impl == "raw":  # one game at a time: a random legal move per step, chance sampled alike
        import pyspiel

        game = pyspiel.load_game(args.game)
        state = game.new_initial_state()
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            while state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0])
            if state.is_terminal():
                state, games = game.new_initial_state(), games + 1
                continue
            legal = state.legal_actions()
            state.observation_tensor(state.current_player())
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 2
    else:
        if args.impl == "ours":
            import pufferlib

            env = pufferlib.make(f"openspiel-{args.game}", num_envs=args.num_envs, backend="serial")
        else:
            import pufferlib.vector

            env = pufferlib.vector.make(upstream_creator(args.game), backend=pufferlib.vector.Serial,
                                        num_envs=args.num_envs)
        n = env.single_action_space.n
        obs, _ = env.reset(seed=0)
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            masks = masks_of(obs, n)
            actions = np.argmax(np.where(masks, rng.random(masks.shape), -1.0), 1)  # a random legal move (0: none)
            obs, _, terminals, _, _ = env.step(actions)
            steps += len(actions)
            games += int(terminals.sum()) // 2
        env.close()
    elapsed = time.perf_counter() - start
    print(f"{args.impl} {args.game} envs={args.num_envs} {steps / elapsed:.0f} agent steps/s, "
          f"{games / elapsed:.0f} games/s")


if __name__ == "__main__":
    main()
