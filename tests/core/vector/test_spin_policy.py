"""SpinPolicy: both sides spin or both sleep, whichever mode makes the measured cycles faster."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pufferlib.vector.shared import SpinPolicy


class Simulated:
    """Drives a SpinPolicy with cycles whose length depends only on the published mode."""

    def __init__(self, spin_us: float = 50.0, adaptive: bool = True):
        self.published: list[float] = []
        self.policy = SpinPolicy(self.published.append, spin_us, adaptive)
        self.now = 0.0
        self.policy.cycle(self.now)
        self.time_in = {"spin": 0.0, "sleep": 0.0}

    def run(self, seconds: float, cycle_s: Callable[[str], float]) -> None:
        """Cycle for `seconds` of simulated time; `cycle_s(mode)` gives each cycle's length."""
        end = self.now + seconds
        while self.now < end:
            mode = "spin" if self.policy.current > 0 else "sleep"
            took = cycle_s(mode)
            self.time_in[mode] += took
            self.now += took
            self.policy.cycle(self.now)

    def share(self, mode: str) -> float:
        return self.time_in[mode] / sum(self.time_in.values())


def fast(mode_that_is_fast: str, fast_s: float = 20e-6, slow_s: float = 180e-6) -> Callable[[str], float]:
    return lambda mode: fast_s if mode == mode_that_is_fast else slow_s


def test_it_publishes_the_spin_of_both_sides_at_once():
    sim = Simulated()
    assert sim.published == [50.0]  # before any worker starts
    sim.run(1.0, fast("sleep"))
    assert sim.published[-1] == 0.0 == sim.policy.current
    assert all(a != b for a, b in zip(sim.published, sim.published[1:]))  # published on changes only


def test_spins_where_spinning_makes_cycles_faster():
    sim = Simulated()
    sim.run(2.0, fast("spin"))
    assert sim.policy.current == 50.0
    assert sim.share("spin") > 0.98  # a losing probe of sleeping ends early
    assert sim.policy.switches == 0


def test_sleeps_where_spinning_is_slow_and_probes_it_ever_less():
    """Loaded: a spinning cycle takes 2 ms against 60 us asleep; probes cost < 2% of the time."""
    sim = Simulated()
    sim.run(0.2, fast("sleep", 60e-6, 2e-3))
    assert sim.policy.current == 0.0
    probes = sim.policy.probes
    sim.time_in = {"spin": 0.0, "sleep": 0.0}
    sim.run(5.0, fast("sleep", 60e-6, 2e-3))
    assert sim.policy.current == 0.0
    assert sim.share("spin") < 0.02
    assert sim.policy.probes - probes < 5.0 / (SpinPolicy.MAX_STINT * SpinPolicy.WINDOW_S) + 2


@pytest.mark.parametrize("first, then", [("spin", "sleep"), ("sleep", "spin")])
def test_follows_a_change_of_machine_within_a_bounded_time(first, then):
    sim = Simulated()
    sim.run(5.0, fast(first))  # probes of the other mode are now MAX_STINT windows apart
    sim.time_in = {"spin": 0.0, "sleep": 0.0}
    # the longest a losing mode can stay: MAX_STINT windows of at least WINDOW_S or WINDOW_CYCLES
    bound = SpinPolicy.MAX_STINT * max(SpinPolicy.WINDOW_S, SpinPolicy.WINDOW_CYCLES * 180e-6) * 1.5
    sim.run(bound, fast(then))
    assert sim.policy.current == (50.0 if then == "spin" else 0.0)
    sim.time_in = {"spin": 0.0, "sleep": 0.0}
    sim.run(2.0, fast(then))
    assert sim.share(then) > 0.95


def test_ties_go_to_sleeping():
    sim = Simulated()
    sim.run(2.0, lambda mode: 100e-6)
    assert sim.policy.current == 0.0
    assert sim.share("sleep") > 0.9


def test_pauses_between_steps_are_not_cycles():
    """A user's pause (an evaluation, a checkpoint) in the chosen mode's window must not make the
    other mode look faster."""
    sim = Simulated()
    sim.run(1.0, fast("spin"))
    for _ in range(300):  # a pause in about every window of the chosen mode, over several probes
        sim.run(SpinPolicy.WINDOW_S, fast("spin"))
        if not sim.policy._probing:
            sim.now += 0.5  # the user pauses between two recv calls
            sim.policy.cycle(sim.now)
    assert sim.policy.probes >= 3 and sim.policy.switches == 0


def test_fixed_spin_never_adapts():
    sim = Simulated(20.0, adaptive=False)
    sim.run(1.0, fast("sleep"))
    assert sim.published == [20.0] and sim.policy.current == 20.0
    off = Simulated(0.0)
    off.run(1.0, fast("spin"))
    assert off.published == [0.0] and off.policy.current == 0.0


def test_counts_waits_for_diagnosis():
    sim = Simulated()
    sim.policy.record(10e-6)
    sim.policy.record(1e-3)
    assert (sim.policy.waits, sim.policy.spun, sim.policy.paid) == (2, 2, 1)
    assert sim.policy.waited_s == pytest.approx(1.01e-3)


def test_lost_probes_double_the_stint_up_to_max_stint_and_a_won_one_resets_it():
    """The schedule of `pufferlib.cpu.probe.Prober`: stints of 1, 2, 4, ... windows between lost
    probes, one window again after a won probe."""
    sim = Simulated()
    stints = [sim.policy.stint]
    while sim.now < 3.0:
        sim.run(1e-3, fast("sleep", 60e-6, 2e-3))
        if sim.policy.stint != stints[-1]:
            stints.append(sim.policy.stint)
    assert sim.policy.switches == 1 and sim.policy.current == 0.0  # the first probe, of sleeping, won
    assert stints == [1, 2, 4, 8, 16, 32, SpinPolicy.MAX_STINT]  # then every probe of spinning lost
    probes = sim.policy.probes
    while sim.policy.switches == 1:  # spinning turns faster: the next probe of it wins
        sim.run(1e-4, fast("spin"))
    assert sim.policy.probes == probes + 1 and sim.policy.current == 50.0 and sim.policy.stint == 1
