"""PufferLib plugin: MiniGrid and BabyAI environments.

Scaffold only: this package registers nothing yet (see issue 6).
"""
