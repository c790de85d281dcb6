"""Keeping the faster of two ways of working by timing the other one now and then: a probe.

Two controllers of the core work this way: `pufferlib.cpu.threads.ThreadTuner` (torch's thread
count during training) and `pufferlib.vector.shared.SpinPolicy` (whether the multiprocessing
backend's waits spin or sleep). Each measures in units of its own and chooses its modes itself;
`Prober` is what they share: when to probe, the margin a probe must win by, and the back-off.

Contract:

* The user works in a *chosen* mode and measures it in units of its own (ThreadTuner: one
  training iteration; SpinPolicy: one window of recv/send cycles). After each finished
  measurement it calls `due()`. When that returns True, a probe begins: the user switches to
  another mode and times it.
* Probes begin every `interval` measurements, counted from the beginning of the last probe. A
  probe that is itself a full measurement (ThreadTuner's one iteration) is counted like any
  other; one cut short (SpinPolicy's, which ends as soon as it wins or loses) is not one.
* The user judges the probe (`deadline` gives the time a probe must beat, margin included)
  and reports the verdict with `settle(won)`: a lost probe doubles `interval`, up to `most`
  (the back-off: a mode that keeps losing is timed ever less often); a won one sets it back to
  `least`. `restart()` sets it back to `least` and counts from zero, for a user whose
  measurements no longer hold (ThreadTuner, when the load on the machine changes).

`Prober` does a few integer operations per call and allocates nothing; callers on a hot path
(SpinPolicy, on every recv) call it once per measurement or probe, not on every event.
"""

from __future__ import annotations

__all__ = ["Prober"]


class Prober:
    """The probing schedule, margin and back-off shared by `ThreadTuner` and `SpinPolicy` (see module doc).

    `least`, `most`: the measurements from one probe to the next at first and after a won
    probe, and at most after lost ones (`interval` starts at `least`). `margin`: the fraction of
    the chosen mode's time by which a probe must beat it, or may lose to it and still win when
    the probe is the *favoured* mode (the one that wins ties; SpinPolicy favours sleeping,
    which leaves the cores to others).
    """

    __slots__ = ("least", "most", "margin", "interval", "since")

    def __init__(self, least: int, most: int, margin: float = 0.0) -> None:
        self.least, self.most, self.margin = least, most, margin
        self.interval = least  # measurements from the beginning of one probe to the next
        self.since = 0  # measurements since the last probe began (or since the start)

    def due(self) -> bool:
        """Count one finished measurement; True when a probe begins now (the count restarts)."""
        self.since += 1
        if self.since < self.interval:
            return False
        self.since = 0
        return True

    def deadline(self, chosen_s: float, favoured: bool) -> float:
        """The time, in seconds, within which a probe must do the work that the chosen mode did in
        `chosen_s` seconds to win: `margin` less, or `margin` more if the probe is the favoured mode."""
        return chosen_s * (1 + self.margin if favoured else 1 - self.margin)

    def settle(self, won: bool) -> None:
        """The verdict of a probe: a won one brings the next probe back to `least` measurements
        away; a lost one doubles the interval, up to `most`."""
        self.interval = self.least if won else min(2 * self.interval, self.most)

    def restart(self) -> None:
        """Back to the first schedule: the next probe `least` measurements from now."""
        self.since, self.interval = 0, self.least
