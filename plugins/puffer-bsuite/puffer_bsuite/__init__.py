"""puffer-bsuite: bsuite (DeepMind's Behaviour Suite for RL) as PufferLib environments.

Nothing heavy is imported here: bsuite loads when an env is made, and its analysis (pandas,
plotnine) only when `puffer_bsuite.scoring` scores a run.
"""

__version__ = "0.1.0"
