"""PufferLib plugin: wandb, neptune and tensorboard loggers for the PuffeRL trainer.

Scaffold only: this package registers nothing yet (see issue 7).
"""
