"""The Ocean env specs. Kept free of heavy imports: creators are lazy 'module:attr' strings.

Each env ships default env kwargs and a default training config (merged over the core's
`data/default.toml` by `puffer train`); the README table lists what each config reaches.
"""

from __future__ import annotations

from pufferlib import NATIVE, EnvSpec

PACKAGE = "puffer-ocean"
PREFIX = "ocean-"


def _config(num_envs: int, total_timesteps: int, batch_size: int, minibatch_size: int, rnn: bool = False,
            **train: float) -> dict:
    """A training config: `num_envs` copies, PPO over `total_timesteps` agent steps."""
    config = {"vec": {"num_envs": num_envs},
              "train": {"total_timesteps": total_timesteps, "batch_size": batch_size,
                        "minibatch_size": minibatch_size, **train}}
    if rnn:
        config["rnn"] = {"enabled": True}
    return config


#: The one list of Ocean envs besides the C headers: name -> (what it tests, default env kwargs,
#: default training config). A name here must have a header csrc/envs/<name>.h (setup.py
#: compiles every header); its class `puffer_ocean.envs.<ClassName>` is derived (`class_name`).
ENVS: dict[str, tuple[str, dict, dict]] = {
    "squared": ("walk to a target on a grid: basic credit assignment", {},
                _config(256, 5_000_000, 8192, 2048, learning_rate=0.01, ent_coef=0.01, gamma=0.95)),
    "bandit": ("pick the paying arm: learning from reward alone", {},
               _config(64, 16_384, 1024, 256, learning_rate=0.01)),
    "memory": ("recall a bit seen earlier: needs the LSTM", {},
               _config(32, 16_384, 512, 512, rnn=True, bptt_horizon=8, learning_rate=0.01)),
    "password": ("type a fixed password: sparse reward", {},
                 _config(64, 30_000, 1024, 256, learning_rate=0.01, ent_coef=0.01)),
    "stochastic": ("the optimal policy is stochastic", {},
                   _config(64, 200_000, 4096, 1024, learning_rate=0.005, ent_coef=0.02)),
    "multiagent": ("two agents, each rewarded for a different action", {},
                   _config(32, 16_384, 1024, 256, learning_rate=0.01)),
    "spaces": ("dict observation and multi-discrete action", {},
               _config(64, 20_000, 1024, 256, learning_rate=0.01)),
    "continuous": ("Box actions: output the observed targets", {},
                   _config(64, 40_000, 1024, 256, learning_rate=0.01)),
    "cartpole": ("Gymnasium CartPole-v1 physics, discrete or continuous", {},
                 _config(64, 500_000, 2048, 512, learning_rate=0.005)),
    "pong": ("Pong against a scripted opponent: timing and tracking", {},
             _config(256, 5_000_000, 16384, 4096, learning_rate=0.003)),
    "breakout": ("Breakout: long horizons, many objects", {"frameskip": 4},
                 _config(256, 10_000_000, 16384, 4096, learning_rate=0.003, ent_coef=0.01,
                         gamma=0.99, gae_lambda=0.95)),
    "snake": ("many snakes in one arena: multi-agent competition for food", {},
              _config(128, 3_000_000, 16384, 4096, learning_rate=0.003)),
    "connect4": ("connect four against a scripted opponent: planning", {},
                 _config(256, 3_000_000, 8192, 2048, learning_rate=0.003)),
    "grid": ("procedural mazes with a partial view: exploration and memory", {},
             _config(256, 3_000_000, 16384, 4096, rnn=True, learning_rate=0.003)),
    "target": ("8 puffers swim to 4 stars: multi-agent steering with a multi-discrete action", {},
               _config(128, 4_000_000, 65536, 8192, learning_rate=0.003, gamma=0.99, gae_lambda=0.95)),
    "freeway": ("cross ten lanes of traffic (Atari Freeway): timing with dense rewards", {},
                _config(256, 20_000_000, 16384, 4096, learning_rate=0.003, ent_coef=0.02, gamma=0.995,
                        gae_lambda=0.95)),
    "convert": ("puffers carry items through a chain of moving factories: multi-agent navigation",
                {"num_agents": 256}, _config(4, 4_000_000, 65536, 8192, learning_rate=0.003, gamma=0.99,
                                             gae_lambda=0.95)),
    "tripletriad": ("the card game Triple Triad against a random opponent: rules and card choice", {},
                    _config(256, 3_000_000, 16384, 4096, learning_rate=0.003)),
    "tetris": ("Tetris with hold, previews and rising garbage: long-horizon planning", {},
               _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, ent_coef=0.01)),
    "pacman": ("Pac-Man on the classic maze with four scripted ghosts: pursuit and evasion", {},
               _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99)),
    "go": ("7 x 7 Go against a greedy opponent: captures, ko and area scoring", {},
           _config(256, 3_000_000, 16384, 4096, learning_rate=0.003)),
    "rware": ("4 robots deliver requested shelves in a warehouse: multi-agent coordination", {},
              _config(256, 5_000_000, 16384, 4096, rnn=True, learning_rate=0.003, gamma=0.99, gae_lambda=0.95,
                      ent_coef=0.01)),  # the LSTM remembers the free shelf spot (see the README)
    "trash_pickup": ("3 agents carry trash to bins on a 10 x 10 grid: multi-agent foraging", {},
                     _config(256, 3_000_000, 16128, 4032, learning_rate=0.003)),  # 768 agent rows
    "drone": ("a quadcopter flies through rings: continuous control with Box actions", {},
              _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99)),
    "enduro": ("the Atari Enduro race: overtake 200 cars before the day ends", {"frameskip": 4},
               _config(256, 40_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, ent_coef=0.01)),
    "checkers": ("English draughts on 8 x 8 against a scripted player (captures, then safe moves): mandatory "
                 "captures, multi-jumps, kings", {},
                 {**_config(256, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.9),
                  "policy": {"hidden_size": 256}}),  # 128 legal-move inputs to pass on to 128 logits
    "tron": ("light cycles on a 12 x 12 arena against a scripted rider: the first to crash loses", {},
             _config(256, 3_000_000, 16384, 4096, learning_rate=0.003)),
    "slimevolley": ("volleyball between two slimes against a scripted one, first to 3 points: physics and timing", {},
                    _config(256, 15_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99)),
    "hex": ("7 x 7 Hex against a scripted player that wins and blocks in one move: connection strategy", {},
            _config(256, 3_000_000, 16384, 4096, learning_rate=0.003)),
    "g2048": ("the 2048 sliding-tile game: long-horizon planning with a random spawn", {},
              _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, ent_coef=0.01)),
    "flappy": ("Flappy Bird: flap through the gaps of oncoming pipes: timing under gravity", {},
               _config(256, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99)),
    "tmaze": ("the T-maze: a cue at the start says which way to turn at the end of a corridor: memory", {},
              _config(64, 200_000, 2048, 1024, rnn=True, bptt_horizon=16, learning_rate=0.01)),
    "squared_continuous": ("ocean-squared with a Box action (dx, dy): continuous control of a discrete walk", {},
                           _config(256, 3_000_000, 8192, 2048, learning_rate=0.01, gamma=0.95)),
    "chain_mdp": ("walk a chain of 10 states past a small sure reward to a large one: deep exploration", {},
                  _config(64, 200_000, 4096, 1024, learning_rate=0.01, ent_coef=0.05, gamma=0.99)),
    "onestateworld": ("one state, a sure 0.5 or a 75% chance of 1: choosing by the mean through the noise", {},
                      _config(64, 100_000, 2048, 512, learning_rate=0.01)),
    "cpr": ("a common-pool resource: apples regrow only near apples, so greed empties the orchard", {},
            _config(64, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99)),
    "boids": ("birds as agents, rewarded for flying aligned with neighbours without crowding: flocking", {},
              _config(64, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.95)),
    "space_invaders": ("Space Invaders on a 16 x 14 grid: shoot a marching, bombing formation of 24 aliens; 3 lives",
                       {},
                       _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.995)),
    "blastar": ("Blastar on a 16 x 12 grid: lead shots at a passing enemy ship, never sit under its freezing beam", {},
                _config(256, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99)),
    "tower_climb": ("climb a tower of blocks by pushing and pulling them: a puzzle with solver-checked levels",
                    # 80% of the training episodes start partway along the level's known solution (see the
                    # README); evaluations play from the start
                    {"start_on_solution": 0.8},
                    {**_config(256, 10_000_000, 16384, 4096, learning_rate=0.003, gamma=0.95, ent_coef=0.02),
                     "eval": {"env": {"start_on_solution": 0}}}),
    "chess": ("chess with every rule (castling, en passant, promotion, the draw rules) against random legal moves: "
              "checkmating by play", {"opponent": "random"},
              # policy-bound (a 4,168-way head and mask): one epoch per batch, both cores' threads
              {**_config(256, 1_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, update_epochs=1,
                         cpu_threads=2), "policy": {"hidden_size": 128}}),
    "asteroids": ("Asteroids on a wrapping field: turn, thrust and shoot rocks that split 3 -> 2 -> 1 sizes; 3 lives",
                  {}, _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.995)),
    "drive": ("32 cars drive to their own goals on a procedurally generated road grid; collisions and leaving the "
              "road end a car's episode: multi-agent driving", {},
              # 1,024 cars (32 copies); with half the progress reward, twice the penalties, gamma 0.98
              # and 64 wide, a 3M-step run learned to stand still (see the README)
              {**_config(32, 10_000_000, 32768, 8192, learning_rate=0.003, gamma=0.99, gae_lambda=0.95,
                         ent_coef=0.005), "policy": {"hidden_size": 128}}),
    "moba": ("two teams of 5 heroes, creep waves, towers and ancients on a 3-lane map, against a scripted team: "
             "a MOBA", {},
             # 64 copies of 5 heroes: 320 agent rows, 64 steps each per batch; 2 epochs (4: learning took 70%)
             {**_config(64, 1_500_000, 20480, 5120, learning_rate=0.003, gamma=0.99, gae_lambda=0.95, ent_coef=0.01,
                        update_epochs=2),
              "policy": {"hidden_size": 128}}),
    "tcg": ("a trading-card game of creatures against a greedy scripted player: mana curve, trades and when to "
            "go face", {},
            {**_config(256, 2_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, ent_coef=0.01),
             "policy": {"hidden_size": 128}}),
    "terraform": ("8 bulldozers dig and dump soil to reshape a generated 64 x 64 terrain toward a target height map: "
                  "multi-agent earthmoving", {},
                  _config(32, 2_000_000, 32768, 8192, learning_rate=0.003, gamma=0.95, gae_lambda=0.9,
                          update_epochs=2)),
    "school": ("two armies of 256 air and ground units (7 types) fight over a generated terrain: each unit an agent, "
               "paid for hits, penalized for crashing", {"num_agents": 512},
               # 20M: at 2M two seeds of three scored as random play did (README)
               _config(4, 20_000_000, 32768, 8192, learning_rate=0.003, gamma=0.99, gae_lambda=0.95, update_epochs=2)),
    "maze": ("reach the far corner of a new 5 x 5-cell maze each episode through an 11 x 11 window, with a compass "
             "to the goal and the last move: maze navigation without memory", {},
             # at 8 x 8 cells random play reaches the goal in 0.6% of its episodes and a 5M-step run never
             # did (see the README)
             _config(256, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, ent_coef=0.02)),
    "boxoban": ("Sokoban on generated levels, solvable by construction (boxes pulled back from their goals); the "
                "shipped setting is easy, 7 x 7 with 2 boxes: planning pushes without deadlocks",
                {"size": 7, "boxes": 2, "pull_moves": 12},
                _config(256, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, ent_coef=0.01)),
    "mmo": ("128 agents forage food and water, fight NPCs and each other and level up on a procedurally "
            "generated 64 x 64 map: a many-agent survival world", {"num_agents": 128, "map_size": 64, "num_npcs": 32},
            _config(4, 5_000_000, 32768, 8192, learning_rate=0.003, gamma=0.99, gae_lambda=0.95, ent_coef=0.01,
                    update_epochs=1)),  # 512 agent rows: a batch is ample data; one pass keeps the update cheap
    "tactical": ("a turn-based battle of two squads of warriors and archers on a walled 8 x 8 map against a "
                 "scripted squad: positioning and focus fire", {},
                 {**_config(256, 3_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99),
                  "policy": {"hidden_size": 128}}),
    "robocode": ("two tank robots in an arena, Robocode's physics (gun heat, bullet travel, energy) and a sensor cone "
                 "on the gun, against a scripted robot that spins its gun and fires at what it sees",
                 {"energy_reward": 1},  # firing costs and energy back count too: the energy lead decides (README)
                 _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.999, gae_lambda=0.95)),
    "rocket_lander": ("land a rocket upright on a pad with a main engine and side thrusters: 2D rigid-body control "
                      "with LunarLander's shaping", {},
                      _config(256, 5_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, gae_lambda=0.95)),
    "impulse_wars": ("two drones in a walled arena with death pits: push the scripted drone into a pit with an "
                     "impulse burst before it pushes you (2D circle physics; a deadly border closes in from step "
                     "150)",
                     {},  # step_cost 0.002, push_reward 0.05 and the border from 250 won less (README)
                     _config(256, 12_000_000, 16384, 4096, learning_rate=0.003, gamma=0.99, ent_coef=0.002)),
}


#: Ocean's envs written in Python (no C header): name -> (what it tests, its class, default training config).
PYTHON_ENVS: dict[str, tuple[str, str, dict]] = {
    "kuhn_poker": ("Kuhn poker, both seats agents: hidden cards and bluffing, exploitability solved exactly",
                   "puffer_ocean.poker:KuhnPoker",
                   {**_config(64, 500_000, 4096, 1024, learning_rate=0.003, ent_coef=0.05, gamma=1.0),
                    "selfplay": {"enabled": True}}),
    "leduc_poker": ("Leduc poker, both seats agents: two rounds and a public card, exploitability solved exactly",
                    "puffer_ocean.poker:LeducPoker",
                    {**_config(64, 2_000_000, 8192, 2048, learning_rate=0.003, ent_coef=0.05, gamma=1.0),
                     "selfplay": {"enabled": True}}),
}


def class_name(name: str) -> str:
    """The PufferEnv class of env `name` in puffer_ocean.envs: 'trash_pickup' -> 'TrashPickup'."""
    return "".join(part.capitalize() for part in name.split("_"))


def env_specs() -> list[EnvSpec]:
    """One EnvSpec per Ocean env: id `ocean-<name>`, alias `puffer_<name>`, native backend."""
    return [
        EnvSpec(
            id=f"{PREFIX}{name}",
            creator=f"puffer_ocean.envs:{class_name(name)}",
            kwargs=dict(kwargs),
            policy="pufferlib.models:Default",
            config={key: dict(value) for key, value in config.items()},
            backend=NATIVE,
            package=PACKAGE,
            description=description,
            aliases=(f"puffer_{name}",),
        )
        for name, (description, kwargs, config) in ENVS.items()
    ] + [
        EnvSpec(id=f"{PREFIX}{name}", creator=creator, policy="pufferlib.models:Default",
                config={key: dict(value) for key, value in config.items()}, package=PACKAGE,
                description=description, aliases=(f"puffer_{name}",))
        for name, (description, creator, config) in PYTHON_ENVS.items()
    ]
