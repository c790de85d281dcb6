"""SpinPolicy: spin while it pays, back off while it does not."""

from pufferlib.vector.shared import SpinPolicy


def test_spins_while_waits_end_within_the_spin():
    spin = SpinPolicy(50.0)
    for _ in range(100):
        spin.record(10e-6)
        assert spin.current == 50.0


def test_backs_off_exponentially_while_spinning_fails():
    spin = SpinPolicy(50.0)
    sleeps_between_probes = []
    for _ in range(6):
        spin.record(1e-3)  # the probe's spin did not pay
        skipped = 0
        while spin.current == 0:
            spin.record(1e-3)
            skipped += 1
        sleeps_between_probes.append(skipped)
    assert sleeps_between_probes == [1, 2, 4, 8, 16, 32]


def test_recovers_when_spinning_pays_again():
    spin = SpinPolicy(50.0)
    for _ in range(5):  # back off to 32 waits
        spin.record(1e-3)
        while spin.current == 0:
            spin.record(1e-3)
    for _ in range(10):
        spin.record(5e-6)  # each paying spin halves the backoff
    spin.record(1e-3)
    assert spin._skip == 1


def test_fixed_spin_never_adapts():
    spin = SpinPolicy(20.0, adaptive=False)
    for _ in range(10):
        spin.record(1.0)
    assert spin.current == 20.0
    off = SpinPolicy(0.0)
    off.record(1.0)
    assert off.current == 0.0
