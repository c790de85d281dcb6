"""puffer-nmmo: Neural MMO 2 (Suarez et al.) as PufferLib environments.

Nothing heavy is imported here: nmmo loads when an env is made.
"""

__version__ = "0.1.0"
