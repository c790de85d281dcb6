"""puffer-craftax: Craftax (Matthews et al. 2024, JAX) as natively batched PufferLib environments.

Nothing heavy is imported here: jax and craftax load when an env is made.
"""

__version__ = "0.1.0"
