"""The `minihack-<task>` specs (no heavy imports).

One id per MiniHack 1.0.2 task that runs here: its Gymnasium id `MiniHack-<Name>-v<N>`
becomes `minihack-<name>` in lower case (`MiniHack-Room-5x5-v0` -> `minihack-room-5x5`,
`MiniHack-Sokoban1a-v1` -> `minihack-sokoban1a`). Left out: the Boxoban tasks (their levels
are a separate download) and the MiniGrid crossings (`LavaCrossing*`, `SimpleCrossing*`:
minihack 1.0.2 builds them with arguments that minigrid 3 refuses, an AssertionError in
`MiniGridEnv.__init__`). The MultiRoom tasks build their maps with the `minigrid` package.
"""

from __future__ import annotations

import re

from pufferlib import EnvSpec

PACKAGE = "puffer-minihack"
PREFIX = "minihack-"
CREATOR = "puffer_minihack.env:make"
POLICY = "puffer_minihack.policy:MiniHackPolicy"

#: MiniHack's Gymnasium ids (without the `MiniHack-` prefix) -> the task's own step limit
#: (`max_episode_steps` of minihack 1.0.2), family by family: navigation, then skills.
MINIHACK_TASKS: dict[str, int] = {
    "Room-5x5-v0": 100, "Room-Random-5x5-v0": 100, "Room-Dark-5x5-v0": 100, "Room-Monster-5x5-v0": 100,
    "Room-Trap-5x5-v0": 100, "Room-Ultimate-5x5-v0": 100, "Room-15x15-v0": 300, "Room-Random-15x15-v0": 300,
    "Room-Dark-15x15-v0": 300, "Room-Monster-15x15-v0": 300, "Room-Trap-15x15-v0": 300,
    "Room-Ultimate-15x15-v0": 300,
    "Corridor-R2-v0": 1000, "Corridor-R3-v0": 1000, "Corridor-R5-v0": 1000,
    "KeyRoom-Fixed-S5-v0": 200, "KeyRoom-S5-v0": 200, "KeyRoom-S15-v0": 400, "KeyRoom-Dark-S5-v0": 200,
    "KeyRoom-Dark-S15-v0": 400,
    "MazeWalk-9x9-v0": 200, "MazeWalk-Mapped-9x9-v0": 200, "MazeWalk-15x15-v0": 1000,
    "MazeWalk-Mapped-15x15-v0": 1000, "MazeWalk-45x19-v0": 1000, "MazeWalk-Mapped-45x19-v0": 1000,
    "CorridorBattle-v0": 350, "CorridorBattle-Dark-v0": 350,
    "MultiRoom-N2-v0": 40, "MultiRoom-N4-v0": 120, "MultiRoom-N6-v0": 240, "MultiRoom-N10-v0": 360,
    "MultiRoom-N6-OpenDoor-v0": 240, "MultiRoom-N10-OpenDoor-v0": 360, "MultiRoom-N2-Locked-v0": 40,
    "MultiRoom-N4-Locked-v0": 120, "MultiRoom-N6-Locked-v0": 240, "MultiRoom-N2-Lava-v0": 40,
    "MultiRoom-N4-Lava-v0": 120, "MultiRoom-N6-Lava-v0": 240, "MultiRoom-N10-Lava-v0": 360,
    "MultiRoom-N6-Lava-OpenDoor-v0": 240, "MultiRoom-N10-Lava-OpenDoor-v0": 360, "MultiRoom-N2-Monster-v0": 40,
    "MultiRoom-N4-Monster-v0": 120, "MultiRoom-N6-Monster-v0": 240, "MultiRoom-N2-Extreme-v0": 40,
    "MultiRoom-N4-Extreme-v0": 120, "MultiRoom-N6-Extreme-v0": 240, "MultiRoom-N2-LavaMonsters-v0": 40,
    "MultiRoom-N4-LavaMonsters-v0": 120, "MultiRoom-N6-LavaMonsters-v0": 240,
    "Memento-Short-F2-v0": 5000, "Memento-F2-v0": 5000, "Memento-F4-v0": 5000,
    "River-v0": 350, "River-Monster-v0": 350, "River-Lava-v0": 350, "River-MonsterLava-v0": 350,
    "River-Narrow-v0": 350,
    "HideNSeek-Mapped-v0": 200, "HideNSeek-v0": 200, "HideNSeek-Lava-v0": 200, "HideNSeek-Big-v0": 400,
    "Labyrinth-Big-v0": 1000, "Labyrinth-Small-v0": 400,
    "ExploreMaze-Easy-v0": 500, "ExploreMaze-Hard-v0": 500, "ExploreMaze-Easy-Mapped-v0": 500,
    "ExploreMaze-Hard-Mapped-v0": 500,
    "Eat-v0": 250, "Eat-Fixed-v0": 250, "Eat-Distr-v0": 250,
    "Pray-v0": 250, "Pray-Fixed-v0": 250, "Pray-Distr-v0": 250,
    "Sink-v0": 250, "Sink-Fixed-v0": 250, "Sink-Distr-v0": 250,
    "Wield-v0": 250, "Wield-Fixed-v0": 250, "Wield-Distr-v0": 250,
    "Wear-v0": 250, "Wear-Fixed-v0": 250, "Wear-Distr-v0": 250,
    "PutOn-v0": 250, "PutOn-Fixed-v0": 250, "PutOn-Distr-v0": 250,
    "Zap-v0": 250, "Zap-Fixed-v0": 250, "Zap-Distr-v0": 250,
    "Read-v0": 250, "Read-Fixed-v0": 250, "Read-Distr-v0": 250,
    "ClosedDoor-v0": 250,
    "LockedDoor-v0": 250, "LockedDoor-Fixed-v0": 250,
    "WoD-Easy-Full-v0": 50, "WoD-Easy-Restricted-v0": 50, "WoD-Medium-Full-v0": 150, "WoD-Medium-Restricted-v0": 150,
    "WoD-Hard-Full-v0": 400, "WoD-Hard-Restricted-v0": 400, "WoD-Pro-Full-v0": 1000, "WoD-Pro-Restricted-v0": 1000,
    "Levitate-Boots-Full-v0": 250, "Levitate-Boots-Restricted-v0": 250, "Levitate-Ring-Full-v0": 250,
    "Levitate-Ring-Restricted-v0": 250, "Levitate-Potion-Full-v0": 250, "Levitate-Potion-Restricted-v0": 250,
    "Levitate-Random-Full-v0": 400, "Levitate-Boots-Fixed-v0": 250, "Levitate-Ring-Fixed-v0": 250,
    "Levitate-Potion-Fixed-v0": 250,
    "Freeze-Wand-Full-v0": 250, "Freeze-Wand-Restricted-v0": 250, "Freeze-Horn-Full-v0": 250,
    "Freeze-Horn-Restricted-v0": 250, "Freeze-Random-Full-v0": 250, "Freeze-Random-Restricted-v0": 250,
    "Freeze-Lava-Full-v0": 250, "Freeze-Lava-Restricted-v0": 250,
    "LavaCross-Levitate-Potion-Pickup-Full-v0": 400, "LavaCross-Levitate-Potion-Pickup-Restricted-v0": 400,
    "LavaCross-Levitate-Potion-Inv-Full-v0": 400, "LavaCross-Levitate-Potion-Inv-Restricted-v0": 400,
    "LavaCross-Levitate-Ring-Pickup-Full-v0": 400, "LavaCross-Levitate-Ring-Pickup-Restricted-v0": 400,
    "LavaCross-Levitate-Ring-Inv-Full-v0": 400, "LavaCross-Levitate-Ring-Inv-Restricted-v0": 400,
    "LavaCross-Levitate-Full-v0": 400, "LavaCross-Levitate-Restricted-v0": 400, "LavaCross-Full-v0": 250,
    "LavaCross-Restricted-v0": 250,
    "Quest-Easy-v0": 500, "Quest-Medium-v0": 1000, "Quest-Hard-v0": 1000,
    "Sokoban4a-v1": 2000, "Sokoban4b-v1": 2000, "Sokoban3a-v1": 2000, "Sokoban3b-v1": 2000, "Sokoban2a-v1": 2000,
    "Sokoban2b-v1": 2000, "Sokoban1a-v1": 2000, "Sokoban1b-v1": 2000,}
#: Families of skill tasks (the rest are navigation tasks); their action space is NetHack's
#: full one (85 actions) for the `-Full` and unsuffixed tasks.
SKILL_FAMILIES = ("Eat", "Pray", "Sink", "Wield", "Wear", "PutOn", "Zap", "Read", "ClosedDoor", "LockedDoor",
                  "WoD", "Levitate", "Freeze", "LavaCross", "Quest")
#: The observations of the MiniHack paper's baseline agents: the 21 x 79 glyph map, its 9 x 9
#: crop around the agent, and the bottom-line statistics.
OBSERVATION_KEYS = ("glyphs", "glyphs_crop", "blstats")


def task_name(minihack_id: str) -> str:
    """`MiniHack-Room-5x5-v0` or `Room-5x5-v0` -> `room-5x5` (the part after `minihack-`)."""
    return re.sub(r"-v\d+$", "", minihack_id.removeprefix("MiniHack-")).lower()


#: Our task names -> MiniHack's Gymnasium ids.
TASKS: dict[str, str] = {task_name(short): f"MiniHack-{short}" for short in MINIHACK_TASKS}
#: Our task names -> their step limits.
STEP_LIMITS: dict[str, int] = {task_name(short): limit for short, limit in MINIHACK_TASKS.items()}


def is_skill(task: str) -> bool:
    """Whether `task` (our name) is one of MiniHack's skill tasks."""
    return any(task.startswith(family.lower()) for family in SKILL_FAMILIES)


def kind(task: str) -> str:
    """"skill", "sokoban" (NetHack's own Sokoban levels) or "navigation"."""
    return "skill" if is_skill(task) else "sokoban" if task.startswith("sokoban") else "navigation"


#: MiniHack steps NetHack in C (about 3,000 steps/s on one core of the 2-core test machine), so
#: the copies run in 2 worker processes; the policy's update is the larger cost. See the README
#: for what this config reached on `minihack-room-5x5`.
CONFIG: dict = {
    "vec": {"num_envs": 16, "num_workers": 2},
    "policy": {"hidden_size": 256, "glyph_embed": 16, "map_channels": 16, "crop_channels": 16},
    "train": {"total_timesteps": 1_000_000, "batch_size": 2048, "minibatch_size": 512, "cpu_threads": 0,
              "update_epochs": 2, "learning_rate": 5e-4, "gamma": 0.99, "gae_lambda": 0.95,
              "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01, "max_grad_norm": 0.5},
}


def env_specs() -> list[EnvSpec]:
    """One spec per MiniHack task."""
    return [EnvSpec(id=PREFIX + task, creator=CREATOR, kwargs={"task": task, "max_episode_steps": STEP_LIMITS[task]},
                    policy=POLICY, config={k: dict(v) for k, v in CONFIG.items()}, package=PACKAGE,
                    description=f"MiniHack {kind(task)} task {gym_id}")
            for task, gym_id in TASKS.items()]
