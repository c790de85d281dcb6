"""puffer-minigrid: ids for every MiniGrid/BabyAI env, observations against minigrid's own, vectorization."""

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
import torch

import pufferlib
from puffer_minigrid.env import decode_mission, encode_mission
from puffer_minigrid.specs import split_gym_id
from pufferlib import APIUsageError, EnvNotFoundError
from pufferlib.registry import spec


def gym_ids() -> list[str]:
    import minigrid  # noqa: F401

    return [k for k in gymnasium.registry if k.startswith(("MiniGrid-", "BabyAI-"))]


def test_every_minigrid_and_babyai_id_resolves_to_its_latest_version():
    ids = gym_ids()
    assert len(ids) > 150
    latest: dict[str, tuple[int, str]] = {}
    for gym_id in ids:
        ours, version = split_gym_id(gym_id)
        assert spec(f"{ours}-v{version}").kwargs["env_name"] == gym_id
        if ours not in latest or version > latest[ours][0]:
            latest[ours] = (version, gym_id)
    for ours, (_, gym_id) in latest.items():
        s = spec(ours)
        assert s.kwargs["env_name"] == gym_id and s.policy == "puffer_minigrid.policy:MiniGridPolicy"
    assert spec("minigrid-empty-8x8").kwargs["env_name"] == "MiniGrid-Empty-8x8-v0"
    assert spec("minigrid-obstructedmaze-1q").kwargs["env_name"] == "MiniGrid-ObstructedMaze-1Q-v1"
    assert spec("babyai-gotolocal").kwargs == {"env_name": "BabyAI-GoToLocal-v0", "mission": True,
                                               "mission_length": 128}
    with pytest.raises(EnvNotFoundError, match="minigrid-empty-8x8"):
        spec("minigrid-empty-8x9")


def test_the_entry_module_imports_neither_minigrid_nor_pygame():
    code = ("import sys, pufferlib; from pufferlib.registry import spec, listed_specs; "
            "assert len(listed_specs()['minigrid']) > 150; spec('minigrid-doorkey-8x8'); "
            "heavy = [m for m in ('minigrid', 'pygame') if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("env_id", ["minigrid-doorkey-8x8", "babyai-gotolocal", "babyai-bosslevel"])
def test_observations_equal_minigrids_with_same_seed_and_actions(env_id):
    import minigrid  # noqa: F401  (registers the MiniGrid/BabyAI ids that the reference env is made from)

    gym_id = spec(env_id).kwargs["env_name"]
    ref = gymnasium.make(gym_id, max_steps=40)  # short episodes: resets are compared too
    env = pufferlib.make(env_id, num_envs=1, seed=11, backend="serial", max_steps=40)
    rng = np.random.default_rng(0)
    try:
        expected, _ = ref.reset(seed=11)
        obs, _ = env.reset()
        ends = 0
        for _ in range(300):
            got = env.obs_layout.unflatten(obs[0])
            np.testing.assert_array_equal(got["image"], expected["image"])
            assert got["direction"][0] == expected["direction"]
            assert decode_mission(got["mission"]) == expected["mission"]
            action = int(rng.integers(ref.action_space.n))
            expected, reward, term, trunc, _ = ref.step(action)
            obs, rewards, terms, truncs, infos = env.step(np.array([action]))
            assert (rewards[0], terms[0], truncs[0]) == (np.float32(reward), term, trunc)
            if term or trunc:
                ends += 1
                assert infos[0]["episode_length"] > 0
                expected, _ = ref.reset()
        assert ends > 0
    finally:
        ref.close()
        env.close()


def test_mission_tokens_and_dropping_the_mission():
    tokens = encode_mission("go to the red ball", 32)
    assert tokens.dtype == np.uint8 and tokens.shape == (32,) and decode_mission(tokens) == "go to the red ball"
    with pytest.raises(APIUsageError, match="mission_length"):
        encode_mission("x" * 40, 32)
    env = pufferlib.make("minigrid-empty-8x8", num_envs=2, mission=False)
    try:
        assert set(env.obs_layout.unflatten(env.reset()[0])) == {"image", "direction"}
        assert env.single_observation_space.shape == (7 * 7 * 3 + 1,)
    finally:
        env.close()


def test_multiprocessing_rendering_and_the_default_policy():
    env = pufferlib.make("babyai-gotolocal", num_envs=4, num_workers=2, seed=0)
    try:
        assert type(env).__name__ == "Multiprocessing"
        obs, _ = env.reset()
        missions = {decode_mission(m) for m in env.obs_layout.unflatten(obs)["mission"]}
        assert all(m.startswith("go to") for m in missions) and len(missions) > 1
        policy = spec("babyai-gotolocal").load_policy()(env)
        for _ in range(20):
            logits, value = policy(torch.from_numpy(obs))
            assert logits.shape == (4, 7) and value.shape == (4, 1)
            obs = env.step(logits.argmax(-1).numpy())[0]
    finally:
        env.close()
    single = pufferlib.make("minigrid-empty-8x8", num_envs=1, render_mode="rgb_array")
    try:
        single.reset(seed=0)
        frame = single.render(0)
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3 and frame.max() > 0
    finally:
        single.close()
