"""Game code that knows no torch: outcome tallies and their intervals (`scores`), ratings
(`ratings`), built-in players (`players`) and the exact solver (`exact`).

The modules here take outcomes, moves and envs as plain data; the trainer (`pufferlib.train`),
the emulation (`pufferlib.emulation`, `pufferlib.turn_based`), `pufferlib.match` and
`pufferlib.league` call them. No module here imports torch.
"""
