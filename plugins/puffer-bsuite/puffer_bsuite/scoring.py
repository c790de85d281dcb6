"""bsuite's own CSV logs and scores for runs of `BsuiteEnv` copies.

Contract:
- `Recorder(env_id_or_bsuite_id, results_dir)` pools the episodes of any number of `BsuiteEnv`
  copies of one setting (`recorder.watch(env)`) into one bsuite run, in the order they end, up to
  `num_episodes` (bsuite's `bsuite_num_episodes` by default; later ones are not counted). It
  writes bsuite's CSV log with bsuite's own writer (`bsuite.logging.csv_logging.Logger`: the
  file `bsuite_id_-_<experiment>-<setting>.csv` in `results_dir`, which must not hold one yet)
  at the episode counts bsuite's `Logging` wrapper logs at (1, 2, ..., 10, 12, 14, 17, 20, ...),
  with its columns: `steps`, `episode`, `total_return`, `episode_len`, `episode_return` and the
  copies' `bsuite_info()` summed (`best_episode` maximised). `close()` adds a last row when the
  run stopped between logged counts, so that bsuite's analysis sees every counted episode.
- `load(results_dir)`: the DataFrame of bsuite's `csv_load.load_bsuite`, setting columns joined.
- `score(experiment, df)`: `bsuite.experiments.<experiment>.analysis.score` of that experiment's
  rows. bsuite 0.3.6's deep_sea analysis calls `Series.append`, which pandas 2 removed: while a
  score is computed a `Series.append` that does what pandas 1 did (`pd.concat`) is provided where
  pandas lacks one, and taken away again afterwards; the deprecation warnings pandas 3 gives
  about bsuite's own code (`inplace=`) are not shown.
- `play_random(...)`: bsuite's protocol with uniformly random actions, recorded the same way.

bsuite, pandas and plotnine (which bsuite's analysis modules import) load on first use.
"""

from __future__ import annotations

import contextlib
import importlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from puffer_bsuite.env import MAXIMA, BsuiteEnv, check_experiment, check_setting
from pufferlib.errors import APIUsageError

if TYPE_CHECKING:
    import pandas as pd


def parse_bsuite_id(bsuite_id: str) -> tuple[str, int]:
    """('memory_len', 3) from bsuite's 'memory_len/3' (checked against the sweep)."""
    experiment, sep, setting = str(bsuite_id).partition("/")
    if not sep or not setting.isdigit():
        raise APIUsageError(f"{bsuite_id!r} is not a bsuite id such as 'memory_len/3' (experiment/setting).")
    return check_experiment(experiment), check_setting(experiment, int(setting))


class Recorder:
    """Pools episodes of `BsuiteEnv` copies of `bsuite_id` into bsuite's CSV log (see the module docstring)."""

    def __init__(self, bsuite_id: str, results_dir: str | Path, num_episodes: int | None = None):
        from bsuite.logging import csv_logging

        self.experiment, self.setting = parse_bsuite_id(bsuite_id)
        self.bsuite_id = f"{self.experiment}/{self.setting}"
        if num_episodes is not None and (isinstance(num_episodes, bool) or not isinstance(num_episodes, int)
                                         or num_episodes < 1):
            raise APIUsageError(f"num_episodes must be an int >= 1 or None (bsuite's own count), got {num_episodes!r}.")
        self.results_dir = Path(results_dir)
        try:
            self._logger = csv_logging.Logger(self.bsuite_id, str(self.results_dir), overwrite=False)
        except ValueError as exc:  # bsuite refuses to overwrite a log
            raise APIUsageError(f"{exc} Each run needs a folder of its own.") from None
        self.num_episodes = num_episodes
        self.steps, self.episodes, self.total_return = 0, 0, 0.0
        self.totals: dict[str, float] = {}  # the pooled bsuite_info()
        self._last_episode = (0, 0.0)
        self._logged = 0  # the episode count of the last row written

    @property
    def done(self) -> bool:
        """True once `num_episodes` episodes are recorded."""
        return self.num_episodes is not None and self.episodes >= self.num_episodes

    def watch(self, env: BsuiteEnv) -> None:
        """Record the episodes `env` ends from now on."""
        if not isinstance(env, BsuiteEnv) or env.bsuite_id != self.bsuite_id:
            raise APIUsageError(f"This recorder logs {self.bsuite_id}; got {getattr(env, 'bsuite_id', env)!r}.")
        if self.num_episodes is None:
            self.num_episodes = env.bsuite_num_episodes
        if not self.totals:
            self.totals = {key: 0.0 for key in env.bsuite_info()}
        env.add_episode_listener(self._record)

    def _record(self, env: BsuiteEnv, episode_return: float, episode_length: int, added: dict[str, float]) -> None:
        if self.done:
            return
        for key, value in added.items():
            self.totals[key] = max(self.totals.get(key, value), value) if key in MAXIMA \
                else self.totals.get(key, 0.0) + value
        self.steps += episode_length
        self.episodes += 1
        self.total_return += episode_return
        self._last_episode = (episode_length, episode_return)
        from bsuite.utils.wrappers import _logarithmic_logging  # bsuite's own schedule

        if _logarithmic_logging(self.episodes) or self.episodes == self.num_episodes:
            self._write()

    def _write(self) -> None:
        row: dict[str, Any] = {"steps": self.steps, "episode": self.episodes, "total_return": self.total_return,
                               "episode_len": self._last_episode[0], "episode_return": self._last_episode[1],
                               **self.totals}
        self._logger.write(row)
        self._logged = self.episodes

    def close(self) -> None:
        """Write the last row if the run stopped between logged episode counts."""
        if self.episodes and self._logged != self.episodes:
            self._write()


def load(results_dir: str | Path) -> pd.DataFrame:
    """bsuite's DataFrame of the CSV logs in `results_dir` (`bsuite.logging.csv_load.load_bsuite`)."""
    from bsuite.logging import csv_load

    if not any(Path(results_dir).glob("bsuite_id_-_*.csv")):
        raise APIUsageError(f"{results_dir} holds no bsuite CSV log (bsuite_id_-_*.csv).")
    df, _ = csv_load.load_bsuite(str(results_dir))
    return df


@contextlib.contextmanager
def _pandas_1_series_append() -> Iterator[None]:
    """`pd.Series.append` as pandas 1 had it, for bsuite 0.3.6's analysis, only while inside."""
    import pandas as pd

    if hasattr(pd.Series, "append"):
        yield
        return

    def append(self: pd.Series, other: pd.Series) -> pd.Series:
        return pd.concat([self, other])

    pd.Series.append = append  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del pd.Series.append  # type: ignore[attr-defined]


def score(experiment: str, df: pd.DataFrame) -> float:
    """bsuite's score of `experiment` (`bsuite.experiments.<experiment>.analysis.score`) over its rows of `df`."""
    check_experiment(experiment)
    rows = df[df.bsuite_env == experiment]
    if rows.empty:
        raise APIUsageError(f"No {experiment} run in these logs (experiments found: {sorted(set(df.bsuite_env))}).")
    analysis = importlib.import_module(f"bsuite.experiments.{experiment}.analysis")
    with _pandas_1_series_append(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"bsuite\.")  # pandas deprecations in bsuite's own code
        return float(analysis.score(rows.copy()))


def play_random(bsuite_id: str, results_dir: str | Path, num_episodes: int | None = None, seed: int = 0) -> Recorder:
    """Play `bsuite_id` with uniformly random actions for `num_episodes` (bsuite's count by
    default), logging bsuite's CSV into `results_dir`; returns the closed recorder."""
    experiment, setting = parse_bsuite_id(bsuite_id)
    env = BsuiteEnv(experiment, setting)
    recorder = Recorder(bsuite_id, results_dir, num_episodes)
    env.reset(seed=seed)
    recorder.watch(env)
    rng = np.random.default_rng(seed)
    n = int(env.action_space.n)
    while not recorder.done:
        _, _, terminated, truncated, _ = env.step(int(rng.integers(n)))
        if terminated or truncated:
            env.reset()
    recorder.close()
    env.close()
    return recorder


__all__ = ["Recorder", "load", "parse_bsuite_id", "play_random", "score"]
