"""`pufferlib.cpu.probe.Prober`: probe now and then, keep the faster, back off after a lost probe.

Fake timings throughout: every figure is exact and every decision deterministic."""

from __future__ import annotations

import pytest

from pufferlib.cpu.probe import Prober


class TwoModes:
    """A user of `Prober` in the way `SpinPolicy` is one: it works in the chosen mode, measures
    it in windows of `work` units, and after every window asks whether to probe the other mode
    for as much work (a probe is not a window). `seconds[mode]` is the time a unit takes."""

    def __init__(self, seconds: dict[str, float], least: int = 1, most: int = 8, margin: float = 0.0,
                 favoured: str = "b", work: int = 10):
        self.prober = Prober(least, most, margin)
        self.seconds, self.favoured, self.work = seconds, favoured, work
        self.chosen = "a"
        self.log: list[str] = []  # the mode of every window and probe, in order, probes in capitals

    def window(self) -> None:
        self.log.append(self.chosen)
        chosen_s = self.work * self.seconds[self.chosen]
        if not self.prober.due():
            return
        other = "b" if self.chosen == "a" else "a"
        self.log.append(other.upper())
        won = self.work * self.seconds[other] < self.prober.deadline(chosen_s, favoured=other == self.favoured)
        self.prober.settle(won)
        if won:
            self.chosen = other

    def run(self, windows: int) -> str:
        for _ in range(windows):
            self.window()
        return "".join(self.log)


def test_probes_at_least_then_backs_off_after_each_lost_probe_up_to_most():
    user = TwoModes({"a": 1.0, "b": 2.0}, least=1, most=8)
    # a window, a probe of b (lost: 2 windows to the next), then 4, then 8, 8, ...: the back-off
    assert user.run(1 + 2 + 4 + 8 + 8) == "aB" + "aaB" + "aaaaB" + "aaaaaaaaB" + "aaaaaaaaB"
    assert user.chosen == "a" and user.prober.interval == 8


def test_keeps_the_faster_mode_and_a_won_probe_resets_the_schedule():
    user = TwoModes({"a": 2.0, "b": 1.0}, least=1, most=8)
    assert user.run(1) == "aB" and user.chosen == "b"  # the probe won: b is chosen at once
    assert user.prober.interval == 1
    assert user.run(1 + 2 + 4)[2:] == "bA" + "bbA" + "bbbbA"  # a loses every probe: the back-off again
    assert user.prober.interval == 8
    user.seconds = {"a": 0.5, "b": 1.0}  # the machine changed: a is now the faster
    done = len(user.log)
    assert user.run(8)[done:] == "bbbbbbbbA"  # found at the next probe, at most `most` windows later
    assert user.chosen == "a" and user.prober.interval == 1
    assert user.run(1)[-2:] == "aB"  # the next probe comes after one window again


def test_margin_a_probe_must_beat_by_it_and_the_favoured_mode_wins_within_it():
    assert Prober(1, 8, 0.05).deadline(1.0, favoured=False) == pytest.approx(0.95)
    assert Prober(1, 8, 0.05).deadline(1.0, favoured=True) == pytest.approx(1.05)
    assert Prober(1, 8).deadline(1.0, favoured=True) == Prober(1, 8).deadline(1.0, favoured=False) == 1.0
    # b is favoured: it takes over from a 3% faster a, but a 3% faster a cannot take over from b
    user = TwoModes({"a": 1.0, "b": 1.03}, margin=0.05, favoured="b")
    assert user.run(1) == "aB" and user.chosen == "b"
    user.run(1 + 2 + 4)
    assert user.chosen == "b" and user.prober.interval == 8  # a lost its three probes
    # beyond the margin the favoured mode loses, and the other one wins
    user = TwoModes({"a": 1.06, "b": 1.0}, margin=0.05, favoured="a")
    user.chosen = "b"
    assert user.run(1) == "bA" and user.chosen == "b"
    user = TwoModes({"a": 1.0, "b": 1.06}, margin=0.05, favoured="b")
    user.chosen = "b"
    assert user.run(1) == "bA" and user.chosen == "a"


def test_a_probe_counted_as_a_measurement_comes_every_interval_measurements():
    """ThreadTuner's way: the probe is one iteration, counted like the others."""
    prober = Prober(4, 16)
    due = [prober.due() for _ in range(12)]
    assert [i for i, d in enumerate(due) if d] == [3, 7, 11]  # every 4th, the probe among the 4
    prober.settle(won=False)
    due = [prober.due() for _ in range(16)]
    assert [i for i, d in enumerate(due) if d] == [7, 15]  # 8 apart, the probe's own iteration counted


def test_restart_brings_back_the_first_schedule():
    prober = Prober(2, 16)
    for _ in range(3):
        prober.settle(won=False)
    prober.due()
    assert prober.interval == 16 and prober.since == 1
    prober.restart()
    assert (prober.interval, prober.since) == (2, 0)
    assert [prober.due() for _ in range(4)] == [False, True, False, True]


def test_the_interval_given_above_most_is_kept_until_a_probe_is_lost():
    """ThreadTuner(probe_every=64, max_probe_every=32) behaved so before Prober; it still does."""
    prober = Prober(64, 32)
    assert prober.interval == 64
    prober.settle(won=False)
    assert prober.interval == 32
    prober.settle(won=True)
    assert prober.interval == 64


def test_both_controllers_use_it():
    from pufferlib.cpu.threads import ThreadTuner
    from pufferlib.vector.shared import SpinPolicy

    tuner = ThreadTuner([1, 2], set_threads=lambda n: None)
    assert isinstance(tuner.prober, Prober) and (tuner.prober.least, tuner.prober.most) == (8, 32)
    policy = SpinPolicy(lambda spin: None, 50.0)
    assert isinstance(policy._prober, Prober)
    assert (policy._prober.least, policy._prober.most, policy._prober.margin) == (1, SpinPolicy.MAX_STINT,
                                                                                 SpinPolicy.MARGIN)
