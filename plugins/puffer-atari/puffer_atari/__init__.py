"""PufferLib plugin: Arcade Learning Environment (Atari) environments.

Scaffold only: this package registers nothing yet (see issue 6).
"""
