"""Episode playback for `puffer eval`: a policy plays episodes; their statistics, rendering and videos.

Not `PuffeRL.evaluate()`, which collects a training batch (upstream's name for it)."""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

from pufferlib.config import merge
from pufferlib.cpu.threads import set_torch_threads
from pufferlib.errors import APIUsageError
from pufferlib.protocols import Renderable, VecEnv
from pufferlib.registry.make import make_from_config
from pufferlib.train import checkpoint, normalize
from pufferlib.train.acting import Actor
from pufferlib.train.policy import make_policy

#: Vectorized steps `puffer eval` takes at most before it stops waiting for episodes to end.
MAX_EVAL_STEPS = 1_000_000


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
    images: list[ArrayLike] = list(frames)  # the element type imageio declares (list is invariant)
    if gif:
        imageio.mimsave(path, images, duration=1000 / fps, loop=0)
    else:
        imageio.mimsave(path, images, fps=fps)


def run_episodes(env_id: str, config: dict, load_model_path: str | None, episodes: int,
                 render_mode: str | None = None, video_path: str | None = None, fps: int = 30) -> dict[str, float]:
    """Play `episodes` episodes with the policy (a checkpoint's, or an untrained one).

    With a checkpoint, its policy and rnn settings are used so the weights fit. Returns
    episodes, mean/min/max return and mean length.
    """
    payload = None
    if load_model_path:
        payload = checkpoint.load(load_model_path, config["train"]["data_dir"])
        config = merge(config, {key: payload["config"][key] for key in ("policy", "rnn", "normalize")
                                if key in payload["config"]})
    if config["train"]["cpu_threads"] > 0:
        set_torch_threads(config["train"]["cpu_threads"])
    env = _make_render_env(env_id, config, render_mode)
    try:
        policy = normalize.wrap(make_policy(env, config, env_id=env_id), env, config["normalize"],
                                config["train"]["gamma"])
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


def _make_render_env(env_id: str, config: dict, render_mode: str | None) -> VecEnv:
    """The env of `run_episodes`; APIUsageError naming the modes the env has when it lacks `render_mode`."""
    from pufferlib.environment import render_modes
    if not render_mode:
        return make_from_config(env_id, config)
    try:
        env = make_from_config(env_id, config, render_mode=render_mode)
    except TypeError as exc:
        if "render_mode" not in str(exc):
            raise
        raise APIUsageError(f"{env_id} does not take render_mode ({exc}); drop --render-mode/--video-path, or "
                            "give the env's __init__ a render_mode parameter.") from None
    modes = render_modes(env)
    if modes is not None and render_mode not in modes:
        env.close()
        raise APIUsageError(f"{env_id} has no render mode {render_mode!r}; it has: {', '.join(modes)}. "
                            "Pass one of those to --render-mode (--video-path needs rgb_array).")
    return env


def _render(env: Renderable, render_mode: str) -> object:
    try:
        return env.render()
    except NotImplementedError as exc:
        from pufferlib.environment import render_modes

        modes = render_modes(env)
        raise APIUsageError(f"The env cannot render in {render_mode!r} mode ({type(exc).__name__}: {exc}); "
                            f"its render modes: {', '.join(modes) if modes else 'none declared'}.") from None


@torch.no_grad()
def _play(env: VecEnv, policy: torch.nn.Module, episodes: int, render_mode: str | None,
          max_steps: int = MAX_EVAL_STEPS) -> tuple[list[float], list[float], list[np.ndarray]]:
    """Act with `policy` (through the trainer's `Actor`) until `episodes` episodes ended."""
    actor = Actor(env, policy)
    returns: list[float] = []
    lengths: list[float] = []
    frames: list[np.ndarray] = []
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
                                        actor.state(rows, torch.from_numpy(terminals | truncations)), rows)
        actor.keep_state(rows, state)
        env.send(actor.to_env(action))
        if render_mode and isinstance(env, Renderable):
            frame = _render(env, render_mode)
            if render_mode == "ansi" and frame is not None:
                print(frame)
            elif render_mode == "rgb_array" and frame is not None:
                frames.append(np.asarray(frame))
    return returns[:episodes], lengths[:episodes], frames
