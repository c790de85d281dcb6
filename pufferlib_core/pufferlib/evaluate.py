"""Running a policy for `puffer eval`: episode statistics, rendering and videos."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import pufferlib.pytorch
from pufferlib import checkpoint
from pufferlib.config import merge
from pufferlib.errors import APIUsageError


def write_video(frames: list[np.ndarray], path: str, fps: int) -> None:
    """Save rgb frames as a GIF, or a video file such as MP4 (the `video` extra: imageio, imageio-ffmpeg)."""
    if not frames:
        raise APIUsageError("No frames to write: the env returned nothing from render() in rgb_array mode.")
    gif = path.lower().endswith(".gif")
    try:
        import imageio.v2 as imageio
        if not gif:
            import imageio_ffmpeg  # noqa: F401  (imageio's video writer)
    except ImportError as exc:
        raise APIUsageError(f"Writing {'GIFs' if gif else 'videos'} needs {exc.name or 'imageio'}: "
                            "pip install 'puffer-core[video]' (imageio and imageio-ffmpeg).") from None
    if gif:
        imageio.mimsave(path, frames, duration=1000 / fps, loop=0)
    else:
        imageio.mimsave(path, frames, fps=fps)


def run_episodes(env_id: str, config: dict, load_model_path: str | None, episodes: int,
                 render_mode: str | None = None, video_path: str | None = None, fps: int = 30) -> dict[str, Any]:
    """Play `episodes` episodes with the policy (a checkpoint's, or an untrained one).

    With a checkpoint, its policy and rnn settings are used so the weights fit. Returns
    episodes, mean/min/max return and mean length.
    """
    from pufferlib.cli_train import make_env, make_policy

    payload = None
    if load_model_path:
        payload = checkpoint.load(load_model_path, config["train"]["data_dir"])
        config = merge(config, {key: payload["config"][key] for key in ("policy", "rnn")})
    if config["train"]["cpu_threads"] > 0:
        torch.set_num_threads(config["train"]["cpu_threads"])
    env = make_env(env_id, config, **({"render_mode": render_mode} if render_mode else {}))
    try:
        policy = make_policy(env_id, env, config)
        if payload is not None:
            policy.load_state_dict(checkpoint.policy_state(payload["policy"]))
        policy.eval()
        returns, lengths, frames = _play(env, policy, episodes, render_mode)
    finally:
        env.close()
    if video_path:
        write_video(frames, video_path, fps)
    if not returns:
        raise APIUsageError(f"No episode of {env_id} ended; its infos carry no episode_return.")
    return {"episodes": len(returns), "mean_return": float(np.mean(returns)), "min_return": float(np.min(returns)),
            "max_return": float(np.max(returns)), "mean_length": float(np.mean(lengths))}


@torch.no_grad()
def _play(env: Any, policy: torch.nn.Module, episodes: int, render_mode: str | None, max_steps: int = 1_000_000):
    recurrent = bool(getattr(policy, "is_recurrent", False))
    nvec = ([int(n) for n in env.single_action_space.nvec.ravel()]
            if hasattr(env.single_action_space, "nvec") else None)
    state = policy.initial_state(env.num_agents) if recurrent else None
    returns, lengths, frames = [], [], []
    env.async_reset()
    for _ in range(max_steps):
        obs, _, terminals, truncations, infos, ids, _ = env.recv()
        for info in infos:
            if "episode_return" in info:
                returns.append(float(info["episode_return"]))
                lengths.append(float(info.get("episode_length", np.nan)))
        if len(returns) >= episodes:
            break
        obs_t = torch.from_numpy(np.asarray(obs))
        ids_t = torch.from_numpy(np.asarray(ids))
        if recurrent:
            keep = torch.from_numpy(~(terminals | truncations)).float().unsqueeze(1)
            logits, _, (h, c) = policy(obs_t, (state[0][ids_t] * keep, state[1][ids_t] * keep))
            state[0][ids_t], state[1][ids_t] = h, c
        else:
            logits = policy(obs_t)[0]
        mask = pufferlib.pytorch.action_mask(obs_t, getattr(env, "obs_layout", None))
        action, _, _ = pufferlib.pytorch.sample_logits(logits, nvec=nvec, action_mask=mask, entropy=False)
        action = action.numpy()
        if isinstance(logits, torch.distributions.Normal):
            action = action.clip(env.single_action_space.low, env.single_action_space.high)
        env.send(action)
        if render_mode and hasattr(env, "render"):
            frame = env.render()
            if render_mode == "ansi" and frame is not None:
                print(frame)
            elif render_mode == "rgb_array" and frame is not None:
                frames.append(np.asarray(frame))
    return returns[:episodes], lengths[:episodes], frames
