"""ThreadTuner: torch's thread count follows measured speed, as the load on the machine changes."""

import pytest
import torch

import pufferlib
from pufferlib import PuffeRL
from pufferlib.cpu.cores import usable_cores
from pufferlib.cpu.threads import OtherLoad, ThreadTuner, candidate_counts, set_torch_threads
from pufferlib.train.dashboard import Dashboard


class Machine:
    """A simulated CPU: an iteration of 1,000 steps takes `cost[(threads, busy)]` seconds."""

    def __init__(self, cost):
        self.cost, self.busy, self.now, self.threads = cost, False, 0.0, None
        self.history = []

    def set_threads(self, n):
        self.threads = n

    def clock(self):
        return self.now

    def others(self):
        """Cores taken by other processes, as `OtherLoad` would see them."""
        return 1.0 if self.busy else 0.0

    def iterate(self, tuner, n=1):
        for _ in range(n):
            self.now += self.cost[(self.threads, self.busy)]
            self.history.append(self.threads)
            tuner.step(1000)


# Two threads are 1.6x faster on an idle machine and 3x slower beside a busy process.
TWO_CORES = {(1, False): 1.0, (2, False): 0.625, (1, True): 1.1, (2, True): 3.3}


def make(machine, **kw):
    tuner = ThreadTuner([1, 2], set_threads=machine.set_threads, clock=machine.clock, others=machine.others, **kw)
    tuner.step(0)  # starts the clock, as the trainer's first iteration does
    return tuner


def test_keeps_the_faster_count_on_an_idle_machine_and_probes_rarely():
    machine = Machine(TWO_CORES)
    tuner = make(machine)
    machine.iterate(tuner, 200)
    assert tuner.current == 2
    assert machine.history[:8] == [2] * 8  # no probe in the first probe_every iterations
    assert machine.history[-100:].count(1) <= 3  # probes back off to one in 32 iterations


def test_probes_back_off_after_lost_probes_and_come_back_after_a_won_one():
    """The schedule of `pufferlib.cpu.probe.Prober`, an iteration the measurement."""
    machine = Machine(TWO_CORES)
    tuner = make(machine)
    machine.iterate(tuner, 200)
    # probes of one thread: the first (not measured yet: no verdict) 8 iterations after the
    # start, then 8, 16 and 32 iterations apart as they lose
    assert [i for i, h in enumerate(machine.history) if h == 1] == [8, 16, 32, 64, 96, 128, 160, 192]
    assert tuner.probe_every == 32
    machine.cost = {**TWO_CORES, (1, False): 0.5}  # one thread turns faster
    machine.iterate(tuner, 40)
    assert machine.history[224:233] == [1] * 8 + [2]  # the probe at 224 won; two threads lose 8 later
    assert tuner.current == 1 and tuner.probe_every == 16


def test_switches_to_one_thread_when_a_busy_process_takes_a_core():
    machine = Machine(TWO_CORES)
    tuner = make(machine)
    machine.iterate(tuner, 50)
    machine.busy = True
    machine.iterate(tuner, 3)
    assert tuner.current == 1
    machine.iterate(tuner, 100)
    assert machine.history[-100:].count(2) <= 8  # only the occasional probe of two threads


def test_returns_to_two_threads_when_the_machine_is_idle_again():
    machine = Machine(TWO_CORES)
    tuner = make(machine)
    machine.busy = True
    machine.iterate(tuner, 200)
    machine.busy = False
    machine.iterate(tuner, 2)  # the load's change triggers a probe of two threads
    assert tuner.current == 2


def test_a_machine_busy_from_the_start_gets_one_thread_from_the_first_iteration():
    machine = Machine(TWO_CORES)
    machine.busy = True
    tuner = make(machine)  # the clock starts after the warm-up iteration, which saw the load
    machine.iterate(tuner, 20)
    assert machine.history[:8] == [1] * 8


def test_a_load_that_comes_back_gets_its_known_count_at_once():
    machine = Machine(TWO_CORES)
    tuner = make(machine)
    for busy in (False, True, False, True, False):
        machine.busy = busy
        start = len(machine.history)
        machine.iterate(tuner, 40)
        # the iteration in which the load changed ran with the old count; every later one, bar
        # scheduled probes of the other count, with the count that is best under this load
        right = 1 if busy else 2
        assert machine.history[start + 1:start + 8] == [right] * 7
    # Every change after the first of each kind costs only its own iteration: no probe at the
    # wrong count follows it. 200 iterations, at most a probe per probe_every of them.
    assert sum(h != (1 if i // 40 % 2 else 2) for i, h in enumerate(machine.history)) <= 4 + 200 // 8


def test_other_load_reads_only_windows_long_enough_to_mean_something():
    import time

    load = OtherLoad(min_seconds=0.2)
    if load._sample() is None:
        pytest.skip("no /proc/stat")  # not Linux
    time.sleep(0.25)
    assert load() is not None
    assert load() is None  # a few microseconds: the 10 ms counters would read noise
    time.sleep(0.25)
    assert load() is not None  # the window spans the call that read nothing


def test_without_a_load_signal_probes_on_schedule():
    machine = Machine(TWO_CORES)
    tuner = ThreadTuner([1, 2], set_threads=machine.set_threads, clock=machine.clock)
    tuner.step(0)
    machine.busy = True
    machine.iterate(tuner, 10)
    assert tuner.current == 1


def test_other_load_sees_a_busy_process_but_not_this_one():
    import subprocess
    import sys
    import time

    load = OtherLoad()
    if load() is None and load._sample() is None:
        pytest.skip("no /proc/stat")  # not Linux
    load()
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:  # this process's own work is not "others"
        pass
    own = load()
    spin = "import time\nend = time.time() + 1.5\nwhile time.time() < end: pass"
    spinner = subprocess.Popen([sys.executable, "-c", spin])
    try:
        time.sleep(0.3)
        load()
        time.sleep(0.8)
        other = load()
    finally:
        spinner.kill()
        spinner.wait()
    assert own is not None and other is not None
    assert other >= 0.6 and own < other - 0.4


def test_loaded_throughput_beats_any_fixed_count_over_a_changing_load():
    def total(tuner_or_count):
        machine = Machine(TWO_CORES)
        if isinstance(tuner_or_count, int):
            machine.threads = tuner_or_count
            tuner = ThreadTuner([tuner_or_count], set_threads=machine.set_threads, clock=machine.clock)
        else:
            tuner = make(machine)
        for busy in (False, True, False, True):
            machine.busy = busy
            machine.iterate(tuner, 100)
        return machine.now

    adaptive = total("tune")
    assert adaptive < 0.9 * min(total(1), total(2))  # 0.88 here; 0.82 if it knew the load in advance


def test_candidate_counts():
    assert candidate_counts(1) == [1]
    assert candidate_counts(2) == [1, 2]
    assert candidate_counts(6) == [1, 2, 4, 6]
    assert 1 <= usable_cores()


def test_bad_counts_are_refused():
    with pytest.raises(ValueError):
        ThreadTuner([0, 2])


def test_cpu_threads_zero_tunes_while_training(monkeypatch):
    monkeypatch.setattr(pufferlib.pufferl, "OtherLoad", lambda: lambda: 0.0)  # a quiet machine, whatever runs
    before = torch.get_num_threads()
    env = pufferlib.make("gym-CartPole-v1", num_envs=4, seed=0)
    try:
        trainer = PuffeRL(env=env, device="cpu", cpu_threads=0, batch_size=256, minibatch_size=128,
                          total_timesteps=256 * 12, checkpoint_interval=0,
                          dashboard=Dashboard(interval=1e9, rich=False))
        assert trainer.thread_tuner is not None
        while not trainer.done_training():
            trainer.evaluate()
            trainer.train()
        rates = trainer.thread_tuner.rates
        assert set(rates) == set(candidate_counts(usable_cores()))
        assert all(r is not None and r > 0 for r in rates.values())  # every count measured by iteration 9
        assert torch.get_num_threads() == trainer.thread_tuner.current
        fixed = PuffeRL(env=env, device="cpu", cpu_threads=1, batch_size=256, minibatch_size=128,
                        checkpoint_interval=0, dashboard=Dashboard(interval=1e9, rich=False))
        assert fixed.thread_tuner is None and torch.get_num_threads() == 1
    finally:
        env.close()
        set_torch_threads(before)


def test_a_load_seen_mid_iteration_switches_at_once_and_gives_no_figure():
    machine = Machine(TWO_CORES)
    tuner = make(machine)
    machine.iterate(tuner, 20)
    assert tuner.current == 2
    machine.busy = True
    assert tuner.follow_load() and tuner.current == 1 and machine.threads == 1  # before the iteration ends
    assert not tuner.follow_load()  # one switch per change
    machine.iterate(tuner, 1)  # it ran under both loads
    assert tuner.rates[1] is None
    machine.iterate(tuner, 1)
    assert tuner.rates[1] == pytest.approx(1000 / 1.1)


def test_other_load_reads_its_counters_only_once_a_window_has_passed(monkeypatch):
    load = OtherLoad(min_seconds=60)
    if load._sample() is None:
        pytest.skip("no /proc/stat")  # not Linux
    reads = []
    monkeypatch.setattr(load, "_sample", lambda: reads.append(1))
    assert all(load() is None for _ in range(1000)) and not reads  # the trainer asks at every acting step


@pytest.mark.parametrize("batch_size", [None, 2], ids=["sync", "async"])
def test_the_trainer_follows_the_load_at_every_acting_step(batch_size):
    """A busy process that appears while the trainer acts takes its threads away then, not at
    the end of the iteration."""
    class Load:
        calls = 0

        def __call__(self):
            self.calls += 1
            return 1.5 if self.calls > 5 else 0.0

    before = torch.get_num_threads()
    env = pufferlib.make("gym-CartPole-v1", num_envs=4, batch_size=batch_size, seed=0)
    trainer = PuffeRL(env=env, device="cpu", cpu_threads=0, batch_size=256, minibatch_size=128,
                      checkpoint_interval=0, dashboard=Dashboard(interval=1e9, rich=False))
    try:
        load = Load()
        trainer.thread_tuner = ThreadTuner([1, 2], others=load)
        assert torch.get_num_threads() == 2
        trainer.evaluate()  # 64 acting steps (128 of 2 rows when async); the load appears at the sixth
        assert load.calls >= 64 and trainer.thread_tuner.current == 1 and torch.get_num_threads() == 1
    finally:
        trainer.close()  # and its env
        set_torch_threads(before)


def test_set_torch_threads_sets_the_count_and_returns_the_one_before(monkeypatch):
    before = torch.get_num_threads()
    try:
        assert set_torch_threads(1) == before and torch.get_num_threads() == 1
        assert set_torch_threads(2) == 1 and torch.get_num_threads() == 2
        calls = []
        monkeypatch.setattr(torch, "set_num_threads", calls.append)
        assert set_torch_threads(2) == 2 and calls == [2]  # called even when the count is already 2:
        # the call also sets the process-wide count that threads started later begin with
    finally:
        monkeypatch.undo()
        set_torch_threads(before)


def test_the_core_sets_torch_threads_only_through_set_torch_threads():
    from pathlib import Path

    root = Path(pufferlib.__file__).parent
    callers = sorted(str(path.relative_to(root)) for path in root.rglob("*.py")
                     if "torch.set_num_threads(" in path.read_text())
    assert callers == ["cpu/threads.py"]
