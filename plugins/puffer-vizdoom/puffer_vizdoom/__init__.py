"""puffer-vizdoom: the scenarios that ship with ViZDoom (Kempka et al. 2016) as PufferLib environments.

Nothing heavy is imported here: vizdoom loads when an env is made.
"""

__version__ = "0.1.0"
