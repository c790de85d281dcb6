"""puffer-procgen: the 16 Procgen games as native PufferLib environments (`procgen-<game>`).

Nothing heavy is imported here: procgen (and the old gym it imports) load when an env is made.
"""

__version__ = "0.1.0"
