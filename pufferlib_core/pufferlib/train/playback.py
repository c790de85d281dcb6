"""Watching a policy play, for `puffer eval`: the env made in a render mode, each step's
frame printed (ansi) or kept (rgb_array), and the frames written as a GIF or video.

The episodes and their statistics are `pufferlib.train.evaluation`'s; this module only
renders what they show.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from pufferlib.errors import APIUsageError, OutputError
from pufferlib.protocols import Renderable, VecEnv
from pufferlib.registry.make import make_from_config

#: Frames between progress lines while a long recording is written.
PROGRESS_FRAMES = 250


def write_video(frames: list[np.ndarray], path: str, fps: int) -> None:
    """Save rgb frames as a GIF, or a video file such as MP4 (the `video` extra: imageio, imageio-ffmpeg),
    creating its folder if it is missing (what `pufferlib._paths.check_writable`, run before the games, allows)."""
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
    options = {"duration": 1000 / fps, "loop": 0} if gif else {"fps": fps}
    make_parent(path, "the video")
    started = time.perf_counter()
    print(f"writing {len(frames)} frames to {path}", file=sys.stderr, flush=True)
    with imageio.get_writer(path, **options) as writer:  # what mimsave does, a frame at a time
        for count, frame in enumerate(frames, 1):
            image: ArrayLike = frame
            writer.append_data(image)  # type: ignore[attr-defined]  # every v2 writer has it; the stub lacks it
            if count % PROGRESS_FRAMES == 0 and count < len(frames):
                print(f"  {count}/{len(frames)} frames, {time.perf_counter() - started:.0f} s", file=sys.stderr,
                      flush=True)


def make_parent(path: str | Path, what: str) -> None:
    """Create the folder of the file `path` if it is missing; OutputError naming `what` if it cannot be."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"Cannot write {what} {str(path)!r}: its folder cannot be created "
                          f"({exc.strerror or exc}).") from None


def make_render_env(env_id: str, config: dict, render_mode: str | None) -> VecEnv:
    """The env of `config` in `render_mode`; APIUsageError naming the modes the env has when it lacks it."""
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


class Recorder:
    """Called after every step of an evaluation: renders env 0, printing ansi frames and keeping
    rgb_array ones (`frames`)."""

    def __init__(self, env: VecEnv, render_mode: str | None):
        self.env, self.render_mode = env, render_mode
        self.frames: list[np.ndarray] = []

    def __call__(self) -> None:
        if not self.render_mode or not isinstance(self.env, Renderable):
            return
        frame = _render(self.env, self.render_mode)
        if self.render_mode == "ansi" and frame is not None:
            print(frame)
        elif self.render_mode == "rgb_array" and frame is not None:
            self.frames.append(np.asarray(frame))
