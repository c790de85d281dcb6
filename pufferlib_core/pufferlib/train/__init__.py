"""The trainer's internals: what `pufferlib.PuffeRL` uses to collect, learn, save and evaluate."""
