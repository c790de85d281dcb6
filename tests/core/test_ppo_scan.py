"""pufferlib._ppo.reverse_scan: the advantage recursion in C, against a Python loop, and its input checks."""

import numpy as np
import pytest

from pufferlib._ppo import reverse_scan


def python_scan(delta, chain):
    out = np.zeros_like(delta)
    last = np.zeros(delta.shape[0], delta.dtype)
    for t in reversed(range(delta.shape[1])):
        last = delta[:, t] + chain[:, t] * last
        out[:, t] = last
    return out


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (8, 128), (0, 5), (4, 0)])
def test_reverse_scan_matches_the_python_loop(shape):
    rng = np.random.default_rng(0)
    delta = rng.normal(size=shape).astype(np.float32)
    chain = (rng.random(shape) * (rng.random(shape) > 0.2)).astype(np.float32)  # zeros: dones
    out = np.full(shape, np.nan, np.float32)
    reverse_scan(delta, chain, out)
    np.testing.assert_allclose(out, python_scan(delta, chain), rtol=1e-6, atol=1e-6)
    reverse_scan(delta, chain, delta)  # in place
    np.testing.assert_allclose(delta, out, rtol=0, atol=0)


def test_a_done_stops_the_chain():
    delta = np.ones((1, 4), np.float32)
    chain = np.array([[0.5, 0.0, 0.5, 0.5]], np.float32)
    out = np.empty_like(delta)
    reverse_scan(delta, chain, out)
    assert out.tolist() == [[1.5, 1.0, 1.5, 1.0]]  # step 1 is a done: step 0 sees only it


def test_bad_inputs_are_refused_with_what_was_wrong():
    good = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match="delta must be a 2-D float32"):
        reverse_scan(good.astype(np.float64), good, good)
    with pytest.raises(TypeError, match="chain must be a C-contiguous"):
        reverse_scan(good, np.zeros((3, 2), np.float32).T, good)
    with pytest.raises(TypeError, match="out must be a 2-D"):
        reverse_scan(good, good, np.zeros(6, np.float32))
    readonly = np.zeros((2, 3), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(TypeError, match="out must be a C-contiguous, writable"):
        reverse_scan(good, good, readonly)
    with pytest.raises(ValueError, match=r"shapes differ: delta \(2, 3\), chain \(2, 4\)"):
        reverse_scan(good, np.zeros((2, 4), np.float32), good)
    with pytest.raises(TypeError):
        reverse_scan(good, good)
