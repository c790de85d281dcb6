"""PufferLib plugin: NetHack Learning Environment environments.

Scaffold only: this package registers nothing yet (see issue 6).
"""
