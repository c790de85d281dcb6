"""puffer-nethack: the NetHack Learning Environment tasks as PufferLib environments.

Nothing heavy is imported here: nle loads when an env is made.
"""

__version__ = "0.1.0"
