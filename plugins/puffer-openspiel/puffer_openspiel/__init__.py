"""puffer-openspiel: OpenSpiel's two-player zero-sum turn-based games as PufferLib games.

Nothing heavy is imported here: OpenSpiel loads when an env is made.
"""

__version__ = "0.1.0"
