"""puffer-dmcontrol: the DeepMind Control Suite's state-based tasks as PufferLib environments.

Nothing heavy is imported here: dm_control loads when an env is made.
"""

__version__ = "0.1.0"
