"""puffer-griddly: Griddly's single-player games (Bamford 2021) as PufferLib environments.

Nothing heavy is imported here: griddly (and the gym it imports) loads when an env is made.
"""

__version__ = "0.1.0"
