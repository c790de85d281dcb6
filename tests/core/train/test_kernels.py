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
    gae(r, v, term.astype(flags), trunc.astype(flags), boot, final, ratio, None, 0.97, 0.9, 0.8, 1.1, out)
    expected = numpy_advantages(r, v, term, trunc, boot, 0.97, 0.9, final, ratio, 0.8, 1.1)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def acting_reference(r, v, term, trunc, boot, final, acting, gamma, lam):
    """Advantages where the steps a row did not act are passed through, written forwards: each acting
    step's transition runs to the row's next acting step, taking the rewards of the steps between,
    or stops at the first of them that ends the episode (whose end it takes)."""
    out = np.zeros_like(r)
    own = np.where(np.isnan(final), v, final)  # a truncated step's final value, or its own
    for row in range(len(r)):
        acts = list(np.flatnonzero(acting[row]))
        transitions = []  # per acting step: (reward, next value, terminal, chain continues)

        def end_value(u, row=row):
            return own[row, u] if trunc[row, u] else 0.0

        for k, t in enumerate(acts):
            after = acts[k + 1] if k + 1 < len(acts) else r.shape[1]
            if term[row, t] or trunc[row, t]:
                transitions.append((r[row, t], end_value(t), bool(term[row, t]), False))
                continue
            reward, ended = r[row, t], None
            for u in range(t + 1, after):
                reward += r[row, u]
                if term[row, u] or trunc[row, u]:
                    ended = u
                    break
            if ended is not None:
                transitions.append((reward, end_value(ended), bool(term[row, ended]), False))
            else:
                transitions.append((reward, v[row, after] if after < r.shape[1] else boot[row], False, True))
        last = 0.0
        for t, (reward, after_value, terminal, goes_on) in reversed(list(zip(acts, transitions))):
            delta = reward + gamma * after_value * (1.0 - terminal) - v[row, t]
            last = delta + (gamma * lam * last if goes_on else 0.0)
            out[row, t] = last
    return out


@pytest.mark.parametrize("seed", range(6))
def test_gae_passes_through_the_steps_a_row_did_not_act(seed):
    r, v, term, trunc, boot, final, _ = rollout(5, 40, seed)
    acting = np.random.default_rng(seed + 100).random((5, 40)) < 0.5
    out = np.full((5, 40), np.nan, np.float32)
    gae(r, v, term, trunc, boot, final, None, acting, 0.97, 0.9, 1.0, 1.0, out)
    np.testing.assert_allclose(out, acting_reference(r, v, term, trunc, boot, final, acting, 0.97, 0.9),
                               rtol=1e-5, atol=1e-5)
    everywhere = np.empty_like(out)  # every step acting: plain GAE
    gae(r, v, term, trunc, boot, final, None, np.ones((5, 40), bool), 0.97, 0.9, 1.0, 1.0, everywhere)
    np.testing.assert_allclose(everywhere, numpy_advantages(r, v, term, trunc, boot, 0.97, 0.9, final), rtol=1e-5,
                               atol=1e-5)


def test_a_loss_on_the_other_seats_move_is_the_last_moves_reward():
    """A turn-based game: the row moves at steps 0 and 2 and waits at 1 and 3; the other seat wins at
    step 3. The row's last move gets the -1, undiscounted, and nothing of the waiting steps' values."""
    r = np.array([[0, 0, 0, -1]], np.float32)
    v = np.array([[0.2, 9.0, 0.1, 9.0]], np.float32)  # 9: the (untrained) values of waiting observations
    term = np.array([[0, 0, 0, 1]], bool)
    out = np.empty((1, 4), np.float32)
    gae(r, v, term, np.zeros_like(term), np.zeros(1, np.float32), None, None, np.array([[1, 0, 1, 0]], bool),
        0.5, 1.0, 1.0, 1.0, out)
    assert out[0].tolist() == pytest.approx([0.5 * 0.1 - 0.2 + 0.5 * (-1 - 0.1), 0, -1 - 0.1, 0])


def test_gae_stops_the_chain_at_a_done_and_bootstraps_the_last_step():
    one = np.ones((1, 3), np.float32)
    no, done = np.zeros((1, 3), bool), np.array([[False, True, False]])
    out = np.empty((1, 3), np.float32)
    # rewards 1, values 0, bootstrap 10, gamma 0.5, lambda 1
    gae(one, 0 * one, done, no, np.array([10.0], np.float32), None, None, None, 0.5, 1.0, 1.0, 1.0, out)
    assert out.tolist() == [[1.5, 1.0, 6.0]]  # step 1 ends the episode: step 0 sees only it


def test_gae_refuses_bad_inputs_with_what_was_wrong():
    good, flags, boot = np.zeros((2, 3), np.float32), np.zeros((2, 3), bool), np.zeros(2, np.float32)
    out = np.zeros((2, 3), np.float32)

    def call(**change):
        args = dict(r=good, v=good, term=flags, trunc=flags, boot=boot, final=None, ratio=None, out=out) | change
        gae(args["r"], args["v"], args["term"], args["trunc"], args["boot"], args["final"], args["ratio"],
            args.get("acting"), 0.9, 0.9, 1.0, 1.0, args["out"])

    call()
    with pytest.raises(TypeError, match="values must be float32 \\(format d given\\)"):
        call(v=good.astype(np.float64))
    with pytest.raises(TypeError, match="rewards must be float32 \\(format \\? given\\)"):
        call(r=flags)  # flags may be bool, rewards may not
    with pytest.raises(TypeError, match="ratio must be a C-contiguous array"):
        call(ratio=np.zeros((3, 2), np.float32).T)
    with pytest.raises(ValueError, match="acting has 2 rows and its own T"):
        call(acting=np.zeros((2, 4), bool))
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
