"""PufferLib plugin: wandb, neptune and tensorboard loggers for the PuffeRL trainer.

Choose them with `puffer train ENV --logger wandb --logger tensorboard` (or the config
key `logger.names`); per-logger options live in the `[wandb]`, `[neptune]` and
`[tensorboard]` config sections (`--wandb.project NAME`, ...). The trainer knows no
logger: this package implements its hooks (`puffer_loggers.plugin`).
"""

__version__ = "0.1.0"
