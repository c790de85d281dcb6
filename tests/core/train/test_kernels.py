"""pufferlib.train._kernels, the trainer's inner loops in C: `gae` against the numpy formulation it
replaced, `copy_rows` against numpy's assignment, and the checks of their inputs."""

import numpy as np
import pytest

from pufferlib.train._kernels import copy_rows, gae


def numpy_advantages(r, v, term, trunc, boot, gamma, lam, final=None, ratio=None, rho_clip=1.0, c_clip=1.0):
    """The numpy code `gae` replaced (pufferlib.train.ppo before it moved to C)."""
    term, trunc = term.astype(np.float32), trunc.astype(np.float32)
    own = v if final is None else np.where(np.isnan(final), v, final)
    next_value = np.where(trunc > 0, own, np.concatenate([v[:, 1:], boot[:, None]], axis=1))
    delta = r + gamma * next_value * (1.0 - term) - v
    chain = gamma * lam * (1.0 - np.minimum(term + trunc, 1.0))
    if ratio is not None:
        delta, chain = delta * np.minimum(ratio, rho_clip), chain * np.minimum(ratio, c_clip)
    out, last = np.zeros_like(delta), np.zeros(len(r), np.float32)
    for t in reversed(range(r.shape[1])):
        last = delta[:, t] + chain[:, t] * last
        out[:, t] = last
    return out


def rollout(rows, steps, seed=0):
    rng = np.random.default_rng(seed)
    f32 = np.float32
    r, v = rng.normal(size=(rows, steps)).astype(f32), rng.normal(size=(rows, steps)).astype(f32)
    term, trunc = rng.random((rows, steps)) < 0.1, rng.random((rows, steps)) < 0.1
    final = np.where(rng.random((rows, steps)) < 0.5, np.nan, rng.normal(size=(rows, steps))).astype(f32)
    return r, v, term, trunc, rng.normal(size=rows).astype(f32), final, rng.uniform(0.5, 1.5, (rows, steps)).astype(f32)


@pytest.mark.parametrize("shape", [(1, 1), (3, 7), (8, 128), (0, 5), (4, 0)])
@pytest.mark.parametrize("extras", ["plain", "final", "vtrace"])
@pytest.mark.parametrize("flags", [np.bool_, np.float32])
def test_gae_matches_the_numpy_formulation(shape, extras, flags):
    r, v, term, trunc, boot, final, ratio = rollout(*shape)
    final = final if extras != "plain" else None
    ratio = ratio if extras == "vtrace" else None
    out = np.full(shape, np.nan, np.float32)
    gae(r, v, term.astype(flags), trunc.astype(flags), boot, final, ratio, 0.97, 0.9, 0.8, 1.1, out)
    expected = numpy_advantages(r, v, term, trunc, boot, 0.97, 0.9, final, ratio, 0.8, 1.1)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_gae_stops_the_chain_at_a_done_and_bootstraps_the_last_step():
    one = np.ones((1, 3), np.float32)
    no, done = np.zeros((1, 3), bool), np.array([[False, True, False]])
    out = np.empty((1, 3), np.float32)
    # rewards 1, values 0, bootstrap 10, gamma 0.5, lambda 1
    gae(one, 0 * one, done, no, np.array([10.0], np.float32), None, None, 0.5, 1.0, 1.0, 1.0, out)
    assert out.tolist() == [[1.5, 1.0, 6.0]]  # step 1 ends the episode: step 0 sees only it


def test_gae_refuses_bad_inputs_with_what_was_wrong():
    good, flags, boot = np.zeros((2, 3), np.float32), np.zeros((2, 3), bool), np.zeros(2, np.float32)
    out = np.zeros((2, 3), np.float32)

    def call(**change):
        args = dict(r=good, v=good, term=flags, trunc=flags, boot=boot, final=None, ratio=None, out=out) | change
        gae(args["r"], args["v"], args["term"], args["trunc"], args["boot"], args["final"], args["ratio"],
            0.9, 0.9, 1.0, 1.0, args["out"])

    call()
    with pytest.raises(TypeError, match="values must be float32 \\(format d given\\)"):
        call(v=good.astype(np.float64))
    with pytest.raises(TypeError, match="rewards must be float32 \\(format \\? given\\)"):
        call(r=flags)  # flags may be bool, rewards may not
    with pytest.raises(TypeError, match="ratio must be a C-contiguous array"):
        call(ratio=np.zeros((3, 2), np.float32).T)
    with pytest.raises(ValueError, match="bootstrap must have 1 dimensions"):
        call(boot=good)
    with pytest.raises(ValueError, match="final_values has 2 rows and its own T; rewards has \\(2, 3\\)"):
        call(final=np.zeros((2, 4), np.float32))
    readonly = np.zeros((2, 3), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(TypeError, match="out must be a C-contiguous, writable array"):
        call(out=readonly)


def test_copy_rows_fills_columns_of_the_storage_and_counts_the_last_source():
    rng = np.random.default_rng(0)
    obs_storage, flag_storage = np.zeros((4, 6, 3), np.float32), np.zeros((4, 6), bool)
    obs, flags = rng.normal(size=(4, 3)).astype(np.float32), np.array([True, False, True, True])
    assert copy_rows((obs_storage[:, 2], flag_storage[:, 5]), (obs, flags)) == 3
    expected_obs, expected_flags = np.zeros_like(obs_storage), np.zeros_like(flag_storage)
    expected_obs[:, 2], expected_flags[:, 5] = obs, flags
    assert np.array_equal(obs_storage, expected_obs) and np.array_equal(flag_storage, expected_flags)
    assert copy_rows((None, flag_storage[:, 0]), (obs * 0 + 7, flags * False)) == 0  # None: not copied
    assert not (obs_storage == 7).any()


def test_copy_rows_refuses_what_does_not_fit():
    storage = np.zeros((4, 6), np.float32)
    with pytest.raises(ValueError, match="source 0 \\(format d, 1 dims\\) does not fit"):
        copy_rows((storage[:, 0],), (np.zeros(4),))
    with pytest.raises(ValueError, match="does not fit"):
        copy_rows((storage[:, 0],), (np.zeros(5, np.float32),))
    with pytest.raises(ValueError, match="contiguous rows"):  # rows of a (4, 2) view over (4, 6, 2) with stride
        copy_rows((np.zeros((4, 6, 2), np.float32)[:, :, 0],), (np.zeros((4, 6), np.float32),))
    with pytest.raises(TypeError, match="source 1 must be a C-contiguous array"):
        copy_rows((storage[:, 0], storage[:, 1]), (np.zeros(4, np.float32), storage[:, 2]))
    readonly = storage.copy()
    readonly.flags.writeable = False
    with pytest.raises(TypeError, match="destination 0 must be a writable array"):
        copy_rows((readonly[:, 0],), (np.zeros(4, np.float32),))
    with pytest.raises(ValueError, match="2 destinations for 1 sources"):
        copy_rows((storage[:, 0], None), (np.zeros(4, np.float32),))
