"""puffer-retro: the stable-retro games whose ROMs ship inside the package, as PufferLib environments.

Nothing heavy is imported here: stable_retro loads when an env is made.
"""

__version__ = "0.1.0"
