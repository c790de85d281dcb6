"""Evaluation during training (`[eval]` in the config; Stable-Baselines3's EvalCallback).

Every `eval.interval` epochs or `eval.interval_steps` agent steps, the trainer's policy plays
`eval.episodes` episodes on an env copy of its own (made once, from the run's env id and
config, `eval.num_envs` copies), by the one rule of `pufferlib.train.evaluation`, seeded with
the run's `vec.seed` so that evaluations differ only by the policy. The figures are logged as
`eval/<key>` (`EvalResult.as_dict`); the trainer keeps the checkpoint of the best mean return
as RUN_DIR/best.pt (`BEST_NAME`). With `eval.video`, env 0 of each evaluation is recorded to
RUN_DIR/eval_<epoch>.gif. With `eval.opponent` (a built-in player of an env of games,
"scripted" or "random"), the evaluation env is made with `opponent=<it>`: a self-play run
then logs its score and win/draw/loss rates against that anchor (`eval/score`, ...).

The settings are checked when the trainer is built, before it trains: the opponent is checked
against the env's built-in players (`pufferlib.train.evaluation.with_opponent`), and one copy of
the evaluation env is made from them, opponent included, and closed, so that an `[eval.env]` key
the env does not take, an opponent it does not have or cannot be made with (a plugin's PettingZoo
AEC game takes no `opponent` argument) or a video of an env that cannot render stops the run at
once, naming the `[eval]` setting, instead of at the first evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from pufferlib.config.messages import short
from pufferlib.errors import APIUsageError
from pufferlib.protocols import VecEnv
from pufferlib.train.evaluation import EvalResult, eval_env_config, evaluate, with_opponent
from pufferlib.train.playback import Recorder, make_render_env, write_video

#: The file name of the best evaluated checkpoint in a run folder (not a `model_*.pt`: "latest"
#: and run folders load the newest checkpoint, not the best).
BEST_NAME = "best.pt"


def enabled(settings: Mapping[str, Any]) -> bool:
    """Whether an `[eval]` section asks for evaluations."""
    return bool(settings["interval"] or settings["interval_steps"])


class TrainingEval:
    """Runs the evaluations of one training run; see the module docstring."""

    def __init__(self, env_id: str | None, config: Mapping[str, Any]):
        if env_id is None:
            raise APIUsageError("[eval] evaluates on an env copy of its own, made from the env id: give the trainer "
                                "env_id= (PuffeRL(..., env_id='ocean-breakout')), or set eval.interval and "
                                "eval.interval_steps to 0.")
        self.env_id, self.config = env_id, config
        self.settings = config["eval"]
        self._render_mode = "rgb_array" if self.settings["video"] else None
        self._env_config = self._checked_env_config()  # the run's config with the opponent set
        self.best = -float("inf")  # the best mean return so far (restored on resume)
        self._env: VecEnv | None = None
        self._last_epoch, self._last_step = 0, 0

    def _checked_env_config(self) -> dict[str, Any]:
        """The run's config with `eval.opponent` as the env's `opponent`, once one copy of the
        evaluation env was made from it (and closed) and the opponent found among the env's built-in
        players; APIUsageError naming the `[eval]` setting otherwise (see the module docstring)."""
        settings, given = self.settings, []
        if settings["env"]:
            given.append("[eval.env] " + ", ".join(f"{k} = {short(repr(v))}" for k, v in settings["env"].items()))
        if settings["video"]:
            given.append("eval.video = true")
        if settings["opponent"]:
            given.append(f"eval.opponent = {short(repr(settings['opponent']))}")
        config = with_opponent(self.env_id, self.config)[0] if settings["opponent"] else dict(self.config)
        try:  # the copy the evaluations will make, opponent included (an env may take no `opponent`)
            make_render_env(self.env_id, eval_env_config(config, 1), self._render_mode).close()
        except APIUsageError as exc:
            raise APIUsageError(f"{'; '.join(given) or '[eval]'}: the evaluation env cannot be made: {exc}") from None
        return config

    def due(self, epoch: int, global_step: int) -> bool:
        """Whether an evaluation is due after `epoch` (at `global_step`)."""
        every_epochs, every_steps = self.settings["interval"], self.settings["interval_steps"]
        return bool((every_epochs and epoch - self._last_epoch >= every_epochs)
                    or (every_steps and global_step - self._last_step >= every_steps))

    def run(self, policy: torch.nn.Module, epoch: int, global_step: int, run_dir: Path,
            device: torch.device) -> EvalResult:
        """Evaluate `policy` now; returns the result (the trainer logs it and keeps the best)."""
        self._last_epoch, self._last_step = epoch, global_step
        if self._env is None:
            config = eval_env_config(self._env_config, self.settings["num_envs"] or None)
            self._env = make_render_env(self.env_id, config, self._render_mode)
        recorder = Recorder(self._env, self._render_mode)
        result = evaluate(self._env, policy, self.settings["episodes"], deterministic=self.settings["deterministic"],
                          seed=self.config["vec"]["seed"], on_step=recorder, device=device)
        if self._render_mode:
            write_video(recorder.frames, str(run_dir / f"eval_{epoch:06d}.gif"), fps=30)
        return result

    def close(self) -> None:
        """Close the evaluation env; safe to call more than once."""
        if self._env is not None:
            self._env.close()
            self._env = None
