"""puffer-crafter: Crafter (Hafner 2021) as PufferLib environments.

Nothing heavy is imported here: crafter loads when an env is made.
"""

__version__ = "0.1.0"
