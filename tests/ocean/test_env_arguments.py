"""Constructor argument checks of the Ocean envs: target, freeway, convert, tripletriad, tetris,
pacman, go, rware, trash_pickup, drone.

One parametrized test: each row builds an env with an argument out of range, unknown or of
the wrong type, and checks that the `pufferlib.APIUsageError` names the problem. An env's
other argument checks (snake's arena size) sit with its rules tests in `test_rules_*.py`.
"""

import pytest

import pufferlib
from puffer_ocean import envs


@pytest.mark.parametrize("cls, kwargs, match", [
    (envs.Target, {"num_agents": 65}, "out of range"), (envs.Freeway, {"lane_size": 80}, "do not fit"),
    (envs.Convert, {"num_resources": 9}, "out of range"), (envs.Tripletriad, {"max_steps": 0}, "out of range"),
    (envs.Tetris, {"n_init_garbage": 18}, "free rows"), (envs.Pacman, {"min_start_timeout": 60}, "must not exceed"),
    (envs.Go, {"grid_size": 20}, "out of range"), (envs.Rware, {"num_requested_shelves": 17}, "fits at most"),
    (envs.TrashPickup, {"num_trash": 99}, "below the 100 cells"), (envs.Drone, {"max_rings": 0}, "out of range"),
    (envs.Tripletriad, {"max_step": 5}, "unknown argument"), (envs.Freeway, {"frameskip": 2.5}, "must be an int"),
])
def test_bad_constructor_arguments_name_the_problem(cls, kwargs, match):
    with pytest.raises(pufferlib.APIUsageError, match=match):
        cls(**kwargs)
