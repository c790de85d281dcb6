"""puffer-minigrid: MiniGrid and BabyAI environments as PufferLib environments.

Nothing heavy is imported here: minigrid (and pygame) load when an env is made.
"""

__version__ = "0.1.0"
