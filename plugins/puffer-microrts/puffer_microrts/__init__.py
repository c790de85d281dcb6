"""puffer-microrts: Gym-μRTS (Huang et al. 2021) as PufferLib environments.

Nothing heavy is imported here: gym-microrts and the JVM (JPype) load when an env resets.
"""

__version__ = "0.1.0"
