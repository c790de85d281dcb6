"""Helpers shared by the Ocean rules tests (`tests/ocean/test_rules_*.py`)."""


def make(cls, **kwargs):
    env = cls(num_envs=1, **kwargs)
    env.reset(seed=0)
    return env
