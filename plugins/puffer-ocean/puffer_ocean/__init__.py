"""Ocean: PufferLib's native C environments (`ocean-<name>`, alias `puffer_<name>`).

    import pufferlib
    env = pufferlib.make('ocean-squared', num_envs=4096)

Importing this package is cheap; the compiled extension loads when an env is made.
"""

__version__ = "0.1.0"
