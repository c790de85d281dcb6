"""puffer-minihack: the MiniHack tasks (Samvelyan et al. 2021) as PufferLib environments.

Nothing heavy is imported here: minihack and nle load when an env is made.
"""

__version__ = "0.1.0"
