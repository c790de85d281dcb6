"""puffer-atari: Arcade Learning Environment games as PufferLib environments (`atari-<game>`).

Nothing heavy is imported here: `puffer_atari.env` (ale-py, OpenCV) loads when an env is made.
"""

__version__ = "0.1.0"
