"""Ocean stepping speed: agent-steps/s of each env beside PufferLib 3.0's env of the same name.

Each env steps pre-drawn random actions (64 batches, cycled) in one process on one core, by the
rule of `ocean_stepping.py`: 1,024 copies unless CASES says otherwise (the agents column counts
them). The ratio is of agent-steps per CPU-second of each process (`time.process_time`), which
other jobs on the machine disturb far less than wall time; ours is printed per wall second too.

With `--reference-python PATH` (the interpreter of a PufferLib 3.0 install, e.g. from
`../shared/reference/build_pufferlib_3.sh`), each env of REFERENCE is timed there too, built to
match ours (same copies, agents and sizes), alternating with ours `--repeats` times; the row
gives both medians and the ratio as median [min, max] over the pairs, all from this run.
Without it, the ratio is against the figures recorded in CASES (another day, under load), and
the output says so. The last line compares breakout with 2 threads against 1.

    python benchmarks/bench_ocean.py [--seconds 1.0] [--envs squared,breakout]
    python benchmarks/bench_ocean.py --reference-python /tmp/up3/venv/bin/python --repeats 3 --envs checkers,blastar
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile

from ocean_stepping import agent_steps_per_second

from puffer_ocean import envs

#: name -> (class, constructor kwargs, recorded reference agent-steps/s per CPU-s on this machine class)
CASES = {
    "squared": (envs.Squared, {"num_envs": 4096}, 72e6),
    "cartpole": (envs.Cartpole, {"num_envs": 1024}, 35e6),
    "pong": (envs.Pong, {"num_envs": 1024}, 35e6),
    # 4 frames per step, as 3.0's default and our shipped config (ours defaults to 1)
    "breakout": (envs.Breakout, {"num_envs": 1024, "frameskip": 4}, 4.4e6),
    "grid": (envs.Grid, {"num_envs": 1024}, 4.8e6),
    "snake": (envs.Snake, {"num_envs": 512}, 4.0e6),
    "connect4": (envs.Connect4, {"num_envs": 1024}, 0.05e6),
    "bandit": (envs.Bandit, {"num_envs": 1024}, None),
    "memory": (envs.Memory, {"num_envs": 1024}, None),
    "password": (envs.Password, {"num_envs": 1024}, None),
    "stochastic": (envs.Stochastic, {"num_envs": 1024}, None),
    "multiagent": (envs.Multiagent, {"num_envs": 512}, None),
    "spaces": (envs.Spaces, {"num_envs": 1024}, None),
    "continuous": (envs.Continuous, {"num_envs": 1024}, None),
    # Second wave: reference figures of PufferLib 3.0.0 (one process, 1,024 copies unless noted).
    "target": (envs.Target, {"num_envs": 1024}, 3.3e6),                   # 8 agents per copy
    "freeway": (envs.Freeway, {"num_envs": 1024}, 0.70e6),
    "convert": (envs.Convert, {"num_envs": 1, "num_agents": 1024}, 4.0e6),  # 1,024 agents in one copy
    "tripletriad": (envs.Tripletriad, {"num_envs": 1024}, 5.5e6),
    "tetris": (envs.Tetris, {"num_envs": 1024}, 1.8e6),
    "pacman": (envs.Pacman, {"num_envs": 1024}, 1.9e6),
    "go": (envs.Go, {"num_envs": 1024}, 0.99e6),
    "rware": (envs.Rware, {"num_envs": 256}, 14.3e6),                     # 4 agents per copy
    "trash_pickup": (envs.TrashPickup, {"num_envs": 256}, 2.2e6),         # 3 agents per copy
    "drone": (envs.Drone, {"num_envs": 64}, 7.6e6),                        # 64 copies
    "enduro": (envs.Enduro, {"num_envs": 1024}, 1.6e6),
    "tower_climb": (envs.TowerClimb, {"num_envs": 4096}, 1.4e6),          # 4,096 copies
    # Third wave.
    "chain_mdp": (envs.ChainMdp, {"num_envs": 1024}, None),
    "tmaze": (envs.Tmaze, {"num_envs": 1024}, None),
    "g2048": (envs.G2048, {"num_envs": 1024}, None),
    "flappy": (envs.Flappy, {"num_envs": 1024}, None),
    "hex": (envs.Hex, {"num_envs": 1024}, None),
    "tron": (envs.Tron, {"num_envs": 1024}, None),
    "onestateworld": (envs.Onestateworld, {"num_envs": 1024}, None),
    "cpr": (envs.Cpr, {"num_envs": 128, "size": 32, "num_agents": 8}, None),  # PufferLib 3.0's default map
    "boids": (envs.Boids, {"num_envs": 16, "num_agents": 64}, None),        # 64 birds a flock
    "slimevolley": (envs.Slimevolley, {"num_envs": 1024}, None),
    "checkers": (envs.Checkers, {"num_envs": 1024}, None),
    "squared_continuous": (envs.SquaredContinuous, {"num_envs": 4096}, None),
    "space_invaders": (envs.SpaceInvaders, {"num_envs": 1024}, None),
    "blastar": (envs.Blastar, {"num_envs": 1024}, None),
    "chess": (envs.Chess, {"num_envs": 1024}, None),
    "asteroids": (envs.Asteroids, {"num_envs": 1024}, None),
    # Fourth wave.
    "drive": (envs.Drive, {"num_envs": 32}, None),                           # 32 cars a copy, 1,024 agents
    "moba": (envs.Moba, {"num_envs": 256}, None),                            # 5 heroes a copy against the scripted team
    "tcg": (envs.Tcg, {"num_envs": 1024}, None),                            # PufferLib 3.0's tcg has no binding
    "terraform": (envs.Terraform, {"num_envs": 1024, "num_agents": 1}, None),  # 3.0's shipped config: 1 dozer, 64 x 64
    "school": (envs.School, {"num_envs": 2, "num_agents": 512}, None),       # 2 battles of 512 units (2 armies)
    "maze": (envs.Maze, {"num_envs": 1024}, None),                           # not in PufferLib 3.0
    "boxoban": (envs.Boxoban, {"num_envs": 1024, "size": 7, "boxes": 2, "pull_moves": 12}, None),  # the shipped setting
    # one 512 x 512 map of 1,024 agents and 2,048 NPCs, as 3.0's nmmo3 default copy
    "mmo": (envs.Mmo, {"num_envs": 1, "num_agents": 1024, "map_size": 512, "num_npcs": 2048}, None),
    # No REFERENCE rows for these three: PufferLib 3.0.0's tactical binding does not import (its .so
    # lacks c_close: "undefined symbol: c_close"), its rocket_lander's Cython module is not built by
    # its install (ModuleNotFoundError: pufferlib.ocean.rocket_lander.cy_rocket_lander; the header
    # needs Box2D and raylib), and its robocode has no binding at all.
    "tactical": (envs.Tactical, {"num_envs": 1024}, None),                   # one agent per copy (vs scripted)
    "robocode": (envs.Robocode, {"num_envs": 1024}, None),                   # one agent per copy (vs scripted)
    "rocket_lander": (envs.RocketLander, {"num_envs": 1024}, None),
    "impulse_wars": (envs.ImpulseWars, {"num_envs": 1024}, None),           # 3.0's binding is not built (box2d)
}


#: name -> (module, class, kwargs) of PufferLib 3.0's env, built like CASES' (same agents and sizes)
REFERENCE = {
    "squared": ("pufferlib.ocean.squared.squared", "Squared", {"num_envs": 4096}),
    "cartpole": ("pufferlib.ocean.cartpole.cartpole", "Cartpole", {"num_envs": 1024}),
    "pong": ("pufferlib.ocean.pong.pong", "Pong", {"num_envs": 1024}),
    "breakout": ("pufferlib.ocean.breakout.breakout", "Breakout", {"num_envs": 1024}),
    "snake": ("pufferlib.ocean.snake.snake", "Snake", {"num_envs": 512, "num_snakes": 8, "width": 64, "height": 64,
                                                       "num_food": 32, "max_snake_length": 256}),
    "connect4": ("pufferlib.ocean.connect4.connect4", "Connect4", {"num_envs": 1024}),
    "target": ("pufferlib.ocean.target.target", "Target", {"num_envs": 1024}),
    "freeway": ("pufferlib.ocean.freeway.freeway", "Freeway", {"num_envs": 1024}),
    "convert": ("pufferlib.ocean.convert.convert", "Convert", {"num_envs": 1, "num_agents": 1024}),
    "tripletriad": ("pufferlib.ocean.tripletriad.tripletriad", "TripleTriad", {"num_envs": 1024}),
    "tetris": ("pufferlib.ocean.tetris.tetris", "Tetris", {"num_envs": 1024}),
    "pacman": ("pufferlib.ocean.pacman.pacman", "Pacman", {"num_envs": 1024}),
    "go": ("pufferlib.ocean.go.go", "Go", {"num_envs": 1024}),
    "rware": ("pufferlib.ocean.rware.rware", "Rware", {"num_envs": 256}),
    "trash_pickup": ("pufferlib.ocean.trash_pickup.trash_pickup", "TrashPickupEnv", {"num_envs": 256}),
    "drone": ("pufferlib.ocean.drone.drone", "Drone", {"num_envs": 64}),
    "enduro": ("pufferlib.ocean.enduro.enduro", "Enduro", {"num_envs": 1024}),
    "tower_climb": ("pufferlib.ocean.tower_climb.tower_climb", "TowerClimb", {"num_envs": 4096}),
    "boids": ("pufferlib.ocean.boids.boids", "Boids", {"num_envs": 16, "num_boids": 64}),
    "cpr": ("pufferlib.ocean.cpr.cpr", "PyCPR", {"num_envs": 128}),
    "checkers": ("pufferlib.ocean.checkers.checkers", "Checkers", {"num_envs": 1024}),
    "blastar": ("pufferlib.ocean.blastar.blastar", "Blastar", {"num_envs": 1024}),
    # A different world: 3.0's gpudrive drives the cars of a Waymo-derived scene (its one shipped
    # map, copied to the map_000.bin it loads: see REFERENCE_FILES), reloaded every 91 steps.
    "drive": ("pufferlib.ocean.gpudrive.gpudrive", "GPUDrive", {"num_agents": 1024, "num_maps": 1}),
    # 5 agent heroes a copy against its scripted team (script_opponents, its default), as ours
    "moba": ("pufferlib.ocean.moba.moba", "Moba", {"num_envs": 256}),
    # 3.0's shipped configs (config/ocean/*.ini): terraform 1,024 maps of 64 x 64 with one dozer, reset every
    # 1,024 steps; school 2 copies of 512 units in 2 armies on a 4 x 4 x 4 arena (its default 1 x 1 x 1 arena
    # with 4 armies never places its bases: they must lie 2 apart inside a square of side 1)
    "terraform": ("pufferlib.ocean.terraform.terraform", "Terraform",
                  {"num_envs": 1024, "num_agents": 1, "reset_frequency": 1024}),
    "school": ("pufferlib.ocean.school.school", "School",
               {"num_envs": 2, "num_agents": 512, "num_armies": 2, "size_x": 2, "size_y": 2, "size_z": 2}),
    # A larger world: 3.0's nmmo3 adds items, equipment, a market and professions (26 actions).
    "mmo": ("pufferlib.ocean.nmmo3.nmmo3", "NMMO3", {"num_envs": 1, "width": [512], "height": [512],
                                                      "num_players": 1024, "num_enemies": 2048}),
}

#: name -> [(file in the reference's installed `pufferlib` package, where its run's working folder
#: must hold it)]: data a reference env loads from `resources/` that PufferLib 3.0 does not place there.
REFERENCE_FILES = {
    "drive": [("resources/gpudrive/map_942.bin", "resources/gpudrive/binaries/map_000.bin")],
}

STEPPING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ocean_stepping.py")


def ours(name: str, seconds: float, **overrides) -> tuple[float, float, int]:
    """(agent-steps per wall second, per CPU second, agents) of our env `name`."""
    cls, kwargs, _ = CASES[name]
    env = cls(**{**kwargs, **overrides})
    try:
        return (*agent_steps_per_second(env, seconds), env.num_agents)
    finally:
        env.close()


def place_reference_files(python: str, name: str, cwd: str) -> None:
    """Copy REFERENCE_FILES[name] from the reference's package into `cwd` (a real `resources`
    folder there stops 3.0 from linking its own)."""
    if name not in REFERENCE_FILES:
        return
    found = subprocess.run([python, "-c", "import importlib.util, os; "
                            "print(os.path.dirname(importlib.util.find_spec('pufferlib').origin))"],
                           capture_output=True, text=True, cwd=cwd, env={**os.environ, "PYTHONPATH": ""})
    if found.returncode:
        raise SystemExit(f"{name}: cannot find the reference's pufferlib under {python}:\n{found.stderr[-2000:]}")
    package = found.stdout.strip()
    for source, target in REFERENCE_FILES[name]:
        if not os.path.exists(os.path.join(package, source)):
            raise SystemExit(f"{name}: the reference install lacks {source} (under {package}); its env cannot run")
        os.makedirs(os.path.dirname(os.path.join(cwd, target)), exist_ok=True)
        shutil.copyfile(os.path.join(package, source), os.path.join(cwd, target))


def reference(python: str, name: str, seconds: float) -> tuple[float, int]:
    """(agent-steps per CPU second, agents) of PufferLib 3.0's env `name`, timed under `python`."""
    module, cls, kwargs = REFERENCE[name]
    with tempfile.TemporaryDirectory(prefix="bench_ocean_") as cwd:  # 3.0 links `resources` into its cwd
        place_reference_files(python, name, cwd)
        done = subprocess.run([python, STEPPING, module, cls, json.dumps(kwargs), str(seconds)], cwd=cwd,
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    if done.returncode:
        raise SystemExit(f"{name}: the reference run failed under {python}:\n{done.stderr[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures["cpu"], figures["agents"]


def main() -> None:
    """Print each env's figure, the reference's and their ratio, then the threads figure."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per timing")
    parser.add_argument("--envs", default=None, help="comma-separated env names (default: all; with "
                                                     "--reference-python, those PufferLib 3.0 has)")
    parser.add_argument("--reference-python", default=None, metavar="PATH",
                        help="a PufferLib 3.0 interpreter: measure its envs in this run")
    parser.add_argument("--repeats", type=int, default=1, help="pairs of timings per env (the spread)")
    args = parser.parse_args()
    names = args.envs.split(",") if args.envs else list(REFERENCE if args.reference_python else CASES)
    for name in names:
        if name not in CASES:
            raise SystemExit(f"unknown env {name!r}; choose from {', '.join(CASES)}")
    if args.reference_python:
        print(f"reference: PufferLib 3.0 under {args.reference_python}, measured in this run, alternating with "
              f"ours, {args.repeats} pair(s) of {args.seconds:g} CPU-s each; medians, ratio median [min, max]")
    else:
        print("reference: figures recorded on another day under load (CASES), not measured now; "
              "pass --reference-python PATH to measure PufferLib 3.0 in this run")
    print(f"{'env':<19}{'agents':>7}{'ours/s':>9}{'ours/CPU-s':>12}{'reference':>11}  ratio (per CPU-s)")
    for name in names:
        if args.reference_python and name not in REFERENCE:
            print(f"{name:<19}  (PufferLib 3.0 has no such env)")
            continue
        walls, cpus, refs = [], [], []
        for _ in range(args.repeats):
            wall, cpu, agents = ours(name, args.seconds)
            walls.append(wall)
            cpus.append(cpu)
            if args.reference_python:
                ref, ref_agents = reference(args.reference_python, name, args.seconds)
                if ref_agents != agents:
                    raise SystemExit(f"{name}: the reference has {ref_agents} agents, ours {agents}: fix REFERENCE")
                refs.append(ref)
        if not refs and CASES[name][2]:
            refs = [CASES[name][2]] * len(cpus)  # the recorded figure beside each of our timings
        ratios = sorted(c / r for c, r in zip(cpus, refs))
        ratio = (f"{statistics.median(ratios):.2f}x [{ratios[0]:.2f}, {ratios[-1]:.2f}]" if len(ratios) > 1
                 else f"{ratios[0]:.2f}x" if ratios else "-")
        ref_text = f"{statistics.median(refs) / 1e6:.2f}M" if refs else "-"
        print(f"{name:<19}{agents:>7}{statistics.median(walls) / 1e6:>8.2f}M{statistics.median(cpus) / 1e6:>11.2f}M"
              f"{ref_text:>11}  {ratio}")
    one, _, _ = ours("breakout", args.seconds)
    two, _, _ = ours("breakout", args.seconds, num_threads=2)
    print(f"breakout threads: 1 thread {one / 1e6:.2f}M, 2 threads {two / 1e6:.2f}M per wall second: {two / one:.2f}x "
          "(target >= 1.7x; needs 2 idle cores)")


if __name__ == "__main__":
    main()
