"""Running a policy for `puffer eval`: episode statistics, rendering and videos."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from pufferlib import checkpoint, normalize
from pufferlib.acting import Actor
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
                            "pip install 'pufferlib-core[video]' (imageio and imageio-ffmpeg).") from None
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
        config = merge(config, {key: payload["config"][key] for key in ("policy", "rnn", "normalize")
                                if key in payload["config"]})
    if config["train"]["cpu_threads"] > 0:
        torch.set_num_threads(config["train"]["cpu_threads"])
    env = make_env(env_id, config, **({"render_mode": render_mode} if render_mode else {}))
    try:
        policy = normalize.wrap(make_policy(env_id, env, config), env, config["normalize"], config["train"]["gamma"])
        if payload is not None:
            checkpoint.load_policy(policy, payload)
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
    """Act with `policy` (through the trainer's `Actor`) until `episodes` episodes ended."""
    actor = Actor(env, policy)
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
        rows = torch.from_numpy(np.asarray(ids))
        action, _, _, state = actor.act(torch.from_numpy(np.asarray(obs)),
                                        actor.state(rows, torch.from_numpy(terminals | truncations)))
        actor.keep_state(rows, state)
        env.send(actor.to_env(action))
        if render_mode and hasattr(env, "render"):
            frame = env.render()
            if render_mode == "ansi" and frame is not None:
                print(frame)
            elif render_mode == "rgb_array" and frame is not None:
                frames.append(np.asarray(frame))
    return returns[:episodes], lengths[:episodes], frames
