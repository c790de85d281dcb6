"""Flat layouts: flatten then unflatten gives back exactly the env's observation/action."""

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferlib import APIUsageError
from pufferlib.spaces import ActionLayout, ObsLayout

shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)
box_dtypes = st.sampled_from([np.float32, np.float64, np.uint8, np.int16, np.int32, np.int64])


@st.composite
def boxes(draw):
    dtype = draw(box_dtypes)
    shape = draw(shapes)
    if np.issubdtype(dtype, np.integer):
        return spaces.Box(0, draw(st.integers(1, 100)), shape, dtype)
    return spaces.Box(-draw(st.floats(0.5, 10)), draw(st.floats(0.5, 10)), shape, dtype)


discretes = st.builds(spaces.Discrete, st.integers(1, 9), start=st.integers(-3, 3))
multidiscretes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(spaces.MultiDiscrete)
multibinaries = st.integers(1, 5).map(spaces.MultiBinary)
leaves = st.one_of(boxes(), discretes, multidiscretes, multibinaries)
keys = st.text("abcdefgh", min_size=1, max_size=4)
obs_spaces = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.dictionaries(keys, children, min_size=1, max_size=3).map(spaces.Dict),
        st.lists(children, min_size=1, max_size=3).map(spaces.Tuple)),
    max_leaves=8)


def assert_same(actual, expected):
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected)
        for key in expected:
            assert_same(actual[key], expected[key])
    elif isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
    else:
        expected = np.asarray(expected)
        assert actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)


@settings(max_examples=150, deadline=None)
@given(obs_spaces, st.integers(0, 2**31))
def test_observation_round_trip(space, seed):
    space.seed(seed)
    layout = ObsLayout(space)
    obs = space.sample()
    flat = layout.flatten(obs)
    assert flat.shape == layout.shape and flat.dtype == layout.dtype
    assert_same(layout.unflatten(flat), obs)
    # Batched unflatten gives views of each row.
    batch = np.stack([flat, layout.flatten(space.sample()), flat])
    nested = layout.unflatten(batch)
    first = layout.unflatten(batch[2])
    assert_same(first, obs)
    leaf = nested
    while isinstance(leaf, (dict, tuple)):
        leaf = next(iter(leaf.values())) if isinstance(leaf, dict) else leaf[0]
    assert np.shares_memory(leaf, batch)


@settings(max_examples=80, deadline=None)
@given(obs_spaces, st.integers(0, 2**31))
def test_unflatten_is_zero_copy(space, seed):
    space.seed(seed)
    layout = ObsLayout(space)
    row = layout.flatten(space.sample())
    for _, view in layout.leaf_views(row):
        assert np.shares_memory(view, row)


discrete_leaves = st.one_of(discretes, multidiscretes, multibinaries)
box_leaves = st.builds(lambda shape: spaces.Box(-1, 1, shape, np.float32), shapes)


def structures(leaf):
    return st.recursive(leaf, lambda children: st.one_of(
        st.dictionaries(keys, children, min_size=1, max_size=3).map(spaces.Dict),
        st.lists(children, min_size=1, max_size=3).map(spaces.Tuple)), max_leaves=6)


@settings(max_examples=120, deadline=None)
@given(st.one_of(structures(discrete_leaves), structures(box_leaves)), st.integers(0, 2**31))
def test_action_round_trip(space, seed):
    space.seed(seed)
    layout = ActionLayout(space)
    action = space.sample()
    flat = layout.flatten(action)
    assert flat.shape == layout.shape
    if layout.discrete:
        assert isinstance(layout.flat_space, (spaces.Discrete, spaces.MultiDiscrete))
        as_int = flat.astype(np.int64)
        assert layout.flat_space.contains(as_int[()] if as_int.shape == () else as_int)
    rebuilt = layout.unflatten(flat)
    assert space.contains(rebuilt)
    assert_same(_as_arrays(rebuilt), _as_arrays(action))


def _as_arrays(value):
    if isinstance(value, dict):
        return {k: _as_arrays(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_as_arrays(v) for v in value)
    return np.asarray(value).astype(np.float64)


def test_mixed_action_space_is_rejected():
    space = spaces.Dict({"move": spaces.Discrete(3), "aim": spaces.Box(-1, 1, (2,))})
    with pytest.raises(APIUsageError, match="mixes discrete and continuous"):
        ActionLayout(space)


def test_unsupported_leaf_names_its_path():
    space = spaces.Dict({"ok": spaces.Discrete(2), "bad": spaces.Text(5)})
    with pytest.raises(APIUsageError, match=r"\['bad'\]"):
        ObsLayout(space)


def test_common_dtype_keeps_dtype_and_bounds():
    space = spaces.Dict({"a": spaces.Box(-1, 1, (2,), np.float32), "b": spaces.Box(0, 5, (3,), np.float32)})
    layout = ObsLayout(space)
    assert not layout.raw and layout.dtype == np.float32 and layout.shape == (5,)
    np.testing.assert_array_equal(layout.flat_space.low, [-1, -1, 0, 0, 0])


def test_mixed_dtypes_use_aligned_raw_bytes():
    space = spaces.Tuple((spaces.MultiBinary(3), spaces.Box(0, 1, (2,), np.float64)))
    layout = ObsLayout(space)
    assert layout.raw and layout.dtype == np.uint8
    assert layout.leaves[1].offset % 8 == 0 and layout.size % 8 == 0


def test_layouts_of_equal_spaces_are_equal():
    """Layouts compare by value (an agent's spaces against its env's: AgentSpaces holds them)."""
    def masked():
        return spaces.Dict({"observation": spaces.Box(0, 1, (3, 3, 3), np.int8),
                            "action_mask": spaces.Box(0, 1, (9,), np.int8)})

    assert ObsLayout(masked()) == ObsLayout(masked())
    assert ActionLayout(spaces.Discrete(9)) == ActionLayout(spaces.Discrete(9))
    assert ObsLayout(masked()) != ObsLayout(spaces.Dict({"observation": spaces.Box(0, 1, (27,), np.int8),
                                                         "action_mask": spaces.Box(0, 1, (9,), np.int8)}))
    assert ActionLayout(spaces.Discrete(9)) != ActionLayout(spaces.Discrete(7))
    reordered = spaces.Dict({"b": spaces.Discrete(2), "a": spaces.Discrete(3)})
    reordered.spaces = {"b": reordered["b"], "a": reordered["a"]}  # insertion order kept: leaves b, a
    ordered = spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Discrete(2)})
    assert reordered == ordered and ObsLayout(reordered) != ObsLayout(ordered)  # equal spaces, rows differ
    assert ObsLayout(ordered) != ActionLayout(ordered)
