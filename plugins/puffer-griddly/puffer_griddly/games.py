"""The single-player games of griddly 1.6.7 that puffer-griddly exposes (no heavy imports).

Each entry names a GDY file shipped inside the griddly wheel (`griddly/resources/games/`),
relative to that folder. `-po` ids are griddly's partially observable variants (a 5x5 view
around the avatar, the same size on every level).
"""

from __future__ import annotations

#: game name (the id is `griddly-<name>`) -> (GDY file in griddly's games folder, description).
GAMES: dict[str, tuple[str, str]] = {
    "sokoban": ("Single-Player/GVGAI/sokoban.yaml", "Sokoban (GVGAI): push every box into a hole"),
    "sokoban2": ("Single-Player/GVGAI/sokoban2.yaml", "Sokoban - 2 (GVGAI): push boxes onto their targets"),
    "sokoban2-po": ("Single-Player/GVGAI/sokoban2_partially_observable.yaml",
                    "Sokoban - 2, partially observable (5x5 view)"),
    "zelda": ("Single-Player/GVGAI/zelda.yaml",
              "Zelda (GVGAI): pick up the key, reach the door, avoid or attack the spiders"),
    "zelda-po": ("Single-Player/GVGAI/zelda_partially_observable.yaml", "Zelda, partially observable (5x5 view)"),
    "zelda-sequential": ("Single-Player/GVGAI/zelda_sequential.yaml",
                         "Zelda Sequential (GVGAI): keys and doors in the right order"),
    "spider-nest": ("Single-Player/GVGAI/spider-nest.yaml",
                    "Spider Nest (GVGAI): a gnome reaches the gem past the spiders of a nest"),
    "spiders": ("Single-Player/Mini-Grid/minigrid-spiders.yaml",
                "Spiders (Mini-Grid dynamic obstacles): a gnome reaches the gem, moving spiders kill"),
    "clusters": ("Single-Player/GVGAI/clusters.yaml",
                 "Clusters (GVGAI): push the coloured boxes against the blocks of their colour"),
    "clusters-po": ("Single-Player/GVGAI/clusters_partially_observable.yaml",
                    "Clusters, partially observable (5x5 view)"),
    "labyrinth": ("Single-Player/GVGAI/labyrinth.yaml", "Labyrinth (GVGAI): find the exit, avoid the traps"),
    "labyrinth-po": ("Single-Player/GVGAI/labyrinth_partially_observable.yaml",
                     "Labyrinth, partially observable (5x5 view)"),
    "butterflies": ("Single-Player/GVGAI/butterflies.yaml",
                    "Butterflies and Spiders (GVGAI): catch the butterflies, avoid the spiders"),
    "random-butterflies": ("Single-Player/GVGAI/random_butterflies.yaml",
                           "Random butterflies (GVGAI): butterflies and spiders spawn at random"),
    "bait": ("Single-Player/GVGAI/bait.yaml", "Bait (GVGAI): fill the holes with boxes, get the key, unlock the door"),
    "bait-keys": ("Single-Player/GVGAI/bait_keys.yaml",
                  "Bait With Keys (GVGAI): Bait, and the avatar shows whether it holds the key"),
    "bait-po": ("Single-Player/GVGAI/bait_partially_observable.yaml", "Bait, partially observable (5x5 view)"),
    "cookmepasta": ("Single-Player/GVGAI/cookmepasta.yaml",
                    "Cook Me Pasta (GVGAI): put the ingredients together in the right order"),
    "cookmepasta-po": ("Single-Player/GVGAI/cookmepasta_partially_observable.yaml",
                       "Cook Me Pasta, partially observable (5x5 view)"),
    "zenpuzzle": ("Single-Player/GVGAI/zenpuzzle.yaml",
                  "Zen Puzzle (GVGAI): colour every tile, never stepping on one twice"),
    "zenpuzzle-po": ("Single-Player/GVGAI/zenpuzzle_partially_observable.yaml",
                     "Zen Puzzle, partially observable (5x5 view)"),
    "doggo": ("Single-Player/Mini-Grid/minigrid-doggo.yaml", "Doggo (Mini-Grid empty room): a dog fetches the stick"),
    "drunkdwarf": ("Single-Player/Mini-Grid/minigrid-drunkdwarf.yaml",
                   "Drunk Dwarf (Mini-Grid): find the key, open the door, reach the bed"),
    "eyeball": ("Single-Player/Mini-Grid/minigrid-eyeball.yaml", "Eyeball (Mini-Grid four rooms): reach the eye drops"),
}

#: Multi-agent games (PettingZoo parallel API, `puffer_griddly.multiagent`): name -> (GDY file, description).
MULTI_AGENT_GAMES: dict[str, tuple[str, str]] = {
    "foragers": ("Multi-Agent/foragers.yaml", "Foragers: 4 agents gather the coloured potions (each its own reward)"),
    "robot-tag-4": ("Multi-Agent/robot_tag_4.yaml",
                    "Robot Tag 4v4: 4 robots tag each other; a robot tagged 3 times leaves"),
    "robot-tag-8": ("Multi-Agent/robot_tag_8.yaml", "Robot Tag 8v8: 8 robots tag each other"),
    "robot-tag-12": ("Multi-Agent/robot_tag_12.yaml", "Robot Tag 12v12: 12 robots tag each other"),
}
