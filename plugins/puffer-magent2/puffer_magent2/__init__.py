"""puffer-magent2: MAgent2's many-agent gridworlds (battle, battlefield, gather) as PufferLib environments.

Nothing heavy is imported here: magent2 loads when an env is made.
"""

__version__ = "0.1.0"
