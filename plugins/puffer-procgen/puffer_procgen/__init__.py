"""PufferLib plugin: Procgen environments.

Scaffold only: this package registers nothing yet (see issue 6).
"""
