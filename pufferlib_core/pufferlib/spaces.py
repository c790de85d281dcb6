"""Space helpers and the flat layouts that map structured spaces onto flat arrays.

An observation space of any nesting (Dict/Tuple of Box, Discrete, MultiDiscrete,
MultiBinary) becomes one flat row per agent. When every leaf has the same dtype the
row has that dtype; otherwise the row is raw bytes (uint8) with each leaf aligned to
its itemsize, so that numpy and torch can view each leaf in place without copying.
Action spaces flatten to a single MultiDiscrete (discrete leaves) or a single Box
(continuous leaves).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from pufferlib._emulation import in_range
from pufferlib.errors import APIUsageError

LEAF_TYPES = (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)
STRUCT_TYPES = (spaces.Dict, spaces.Tuple)

T = TypeVar("T")
#: A value nested as a Dict/Tuple space nests its leaves: a leaf value (an array, a tensor, a
#: number), or a dict (Dict spaces) or tuple (Tuple spaces) of nested values.
Nested: TypeAlias = T | dict[Hashable, "Nested[T]"] | tuple["Nested[T]", ...]


def make_space(shape: Sequence[int] | int, low: float = -np.inf, high: float = np.inf,
               dtype: npt.DTypeLike = np.float32) -> spaces.Box:
    """A Box observation/action space of `shape` (float32 by default)."""
    if isinstance(shape, int):
        shape = (shape,)
    return spaces.Box(low=low, high=high, shape=tuple(shape), dtype=np.dtype(dtype))


def make_discrete(n: int) -> spaces.Discrete:
    """A Discrete action space with `n` choices."""
    return spaces.Discrete(int(n))


def make_multidiscrete(nvec: Sequence[int]) -> spaces.MultiDiscrete:
    """A MultiDiscrete action space with one sub-action per entry of `nvec`."""
    return spaces.MultiDiscrete(np.asarray(nvec, dtype=np.int64))


def iter_leaves(space: spaces.Space, path: tuple = ()) -> list[tuple[tuple, spaces.Space]]:
    """(path, leaf space) pairs of a nested space, in a fixed order (Dict keys as stored)."""
    if isinstance(space, spaces.Dict):
        return [leaf for key, sub in space.spaces.items() for leaf in iter_leaves(sub, path + (key,))]
    if isinstance(space, spaces.Tuple):
        return [leaf for i, sub in enumerate(space.spaces) for leaf in iter_leaves(sub, path + (i,))]
    if isinstance(space, LEAF_TYPES):
        return [(path, space)]
    raise APIUsageError(
        f"Unsupported space {space!r} at {_fmt_path(path)}: PufferLib supports Box, Discrete, "
        "MultiDiscrete, MultiBinary and Dict/Tuple nestings of them.")


def _fmt_path(path: tuple) -> str:
    return "observation" + "".join(f"[{k!r}]" for k in path) if path else "the top level"


def _leaf_shape(space: spaces.Space) -> tuple[int, ...]:
    if isinstance(space, spaces.Discrete):
        return ()
    assert space.shape is not None, f"{space!r} has no shape"  # leaves are Box, Discrete or MultiDiscrete
    return tuple(space.shape)


def _leaf_bounds(space: spaces.Space) -> tuple[np.ndarray, np.ndarray]:
    """Flat low/high of a leaf, in float64 so that the union can be cast afterwards."""
    if isinstance(space, spaces.Box):
        return space.low.astype(np.float64).ravel(), space.high.astype(np.float64).ravel()
    if isinstance(space, spaces.Discrete):
        return np.array([space.start], np.float64), np.array([space.start + space.n - 1], np.float64)
    if isinstance(space, spaces.MultiDiscrete):
        start = np.broadcast_to(space.start, space.nvec.shape).astype(np.float64).ravel()
        return start, start + space.nvec.astype(np.float64).ravel() - 1
    assert space.shape is not None, f"{space!r} has no shape"  # leaves are Box, Discrete or MultiDiscrete
    n = int(np.prod(space.shape))
    return np.zeros(n), np.ones(n)


@dataclass(frozen=True)
class Leaf:
    """One leaf of a structured space and where it lives in the flat row."""

    path: tuple[Hashable, ...]
    space: spaces.Space
    dtype: np.dtype
    shape: tuple[int, ...]
    offset: int  # in elements of the row dtype (bytes when the row is uint8 raw bytes)
    length: int  # in elements of the row dtype

    def view(self, flat: np.ndarray, raw: bool) -> np.ndarray:
        """A view of this leaf in `flat` of shape (..., row_size); no copy."""
        part = flat[..., self.offset:self.offset + self.length]
        if raw:
            part = part.view(self.dtype)
        return part.reshape(flat.shape[:-1] + self.shape)


class _Layout:
    """Value equality of layouts: a layout is a function of its space and the order of its leaves, so
    two layouts of equal spaces whose leaves come in the same order map every row the same way (an
    agent's layouts compare equal to those of the env it acts in, wherever each was built)."""

    space: spaces.Space
    paths: tuple[tuple[Hashable, ...], ...]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Layout)
        return self.paths == other.paths and self.space == other.space


class ObsLayout(_Layout):
    """Maps a nested observation space onto one flat row and back, without copies.

    `flat_space` is the Box that vectorizers and policies see. `write(obs, views)`
    copies one env observation into precomputed leaf views of a row (a plain loop over
    leaves, no recursion); `unflatten(flat)` returns the nested structure as views of
    `flat`, for a single row or a batch.
    """

    def __init__(self, space: spaces.Space):
        self.space = space
        self.structured = isinstance(space, STRUCT_TYPES)
        leaf_spaces = iter_leaves(space)
        self.paths = tuple(path for path, _ in leaf_spaces)
        dtypes = {np.dtype(s.dtype) for _, s in leaf_spaces}
        self.raw = len(dtypes) > 1
        self.dtype = np.dtype(np.uint8) if self.raw else dtypes.pop()
        leaves, offset = [], 0
        for path, sub in leaf_spaces:
            dt, shape = np.dtype(sub.dtype), _leaf_shape(sub)
            count = math.prod(shape)
            if self.raw:
                offset = -(-offset // dt.alignment) * dt.alignment
                length = count * dt.itemsize
            else:
                length = count
            leaves.append(Leaf(path, sub, dt, shape, offset, length))
            offset += length
        if self.raw:  # rows stay aligned for the widest leaf, so batched views work in torch too
            widest = max(leaf.dtype.itemsize for leaf in leaves)
            offset = -(-offset // widest) * widest
        self.leaves: tuple[Leaf, ...] = tuple(leaves)
        self.size = offset
        self.flat_space = self._make_flat_space()

    def _make_flat_space(self) -> spaces.Box:
        if not self.structured and isinstance(self.space, spaces.Box) and self.space.shape:
            return self.space
        if not self.structured:
            low, high = _leaf_bounds(self.space)
            shape = self.space.shape or (1,)
            return spaces.Box(low.reshape(shape).astype(self.dtype), high.reshape(shape).astype(self.dtype),
                              dtype=self.dtype)
        if self.raw:
            return spaces.Box(0, 255, (self.size,), np.uint8)
        low = np.concatenate([_leaf_bounds(leaf.space)[0] for leaf in self.leaves])
        high = np.concatenate([_leaf_bounds(leaf.space)[1] for leaf in self.leaves])
        if np.issubdtype(self.dtype, np.integer):
            info = np.iinfo(self.dtype)
            low, high = np.clip(low, info.min, info.max), np.clip(high, info.min, info.max)
        return spaces.Box(low.astype(self.dtype), high.astype(self.dtype), dtype=self.dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of one agent's flat observation."""
        return tuple(self.flat_space.shape)

    def leaf_views(self, row: np.ndarray) -> list[tuple[tuple, np.ndarray]]:
        """(path, view) for each leaf of one flat row; precompute once per env."""
        if not self.structured:
            return [((), row.reshape(self.leaves[0].shape))]
        return [(leaf.path, leaf.view(row, self.raw)) for leaf in self.leaves]

    @staticmethod
    def write(obs: object, views: list[tuple[tuple, np.ndarray]]) -> None:
        """Copy one structured observation into the leaf views of its row."""
        try:
            for path, view in views:
                value: Any = obs  # indexed as the space nests it; what does not fit raises below
                for key in path:
                    value = value[key]
                view[...] = value
        except (KeyError, IndexError, TypeError) as exc:
            raise APIUsageError(f"The observation does not match its space: {_fmt_path(path)} cannot be read "
                                f"({type(exc).__name__}: {exc}).") from exc

    def flatten(self, obs: object) -> np.ndarray:
        """A new flat row holding `obs` (tests and tools; envs use `write`)."""
        row = np.zeros(self.shape, self.dtype)
        self.write(obs, self.leaf_views(row))
        return row

    def unflatten(self, flat: np.ndarray) -> Nested[np.ndarray]:
        """The nested observation (dict/tuple of arrays) as views of `flat` (..., *shape)."""
        if not self.structured:
            return flat.reshape(flat.shape[:flat.ndim - len(self.shape)] + self.leaves[0].shape)
        values = {leaf.path: leaf.view(flat, self.raw) for leaf in self.leaves}
        return assemble(self.space, (), values)


def assemble(space: spaces.Space, path: tuple, values: Mapping[tuple, T]) -> Nested[T]:
    """Rebuild the nested container of `space` from leaf values keyed by path."""
    if isinstance(space, spaces.Dict):
        return {key: assemble(sub, path + (key,), values) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(assemble(sub, path + (i,), values) for i, sub in enumerate(space.spaces))
    return values[path]


class ActionLayout(_Layout):
    """Maps an action space onto a flat Discrete, MultiDiscrete or Box and back.

    Dict/Tuple of discrete leaves (Discrete, MultiDiscrete, MultiBinary) become one
    MultiDiscrete; Dict/Tuple of Box leaves become one flat float32 Box; a lone Box or
    MultiDiscrete is flattened to one dimension, a Discrete stays. Mixing the two
    is not supported yet and raises APIUsageError.
    """

    def __init__(self, space: spaces.Space):
        self.space = space
        self.structured = isinstance(space, STRUCT_TYPES)
        leaf_spaces = iter_leaves(space)
        self.paths = tuple(path for path, _ in leaf_spaces)
        discrete = [isinstance(s, (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary))
                    for _, s in leaf_spaces]
        if any(discrete) and not all(discrete):
            kinds = ", ".join(f"{_fmt_path(p).replace('observation', 'action')}: {type(s).__name__}"
                              for p, s in leaf_spaces)
            raise APIUsageError(
                f"Action space mixes discrete and continuous leaves ({kinds}); this is not supported "
                "yet. Split the action into a discrete-only or Box-only structure.")
        self.discrete = all(discrete)
        self._slices = []
        offset = 0
        for path, sub in leaf_spaces:
            count = 1 if isinstance(sub, spaces.Discrete) else math.prod(_leaf_shape(sub))
            self._slices.append((path, sub, offset, count))
            offset += count
        self.size = offset
        self.flat_space = self._make_flat_space(leaf_spaces)
        self.dtype = np.dtype(np.int32) if self.discrete else np.dtype(np.float32)

    def _make_flat_space(self, leaf_spaces) -> spaces.Space:
        if not self.structured:
            if isinstance(self.space, spaces.Discrete):
                return spaces.Discrete(int(self.space.n))
            if isinstance(self.space, spaces.MultiDiscrete):
                return spaces.MultiDiscrete(self.space.nvec.ravel())
            if isinstance(self.space, spaces.MultiBinary):
                return spaces.MultiDiscrete(np.full(math.prod(self.space.shape), 2))
            assert isinstance(self.space, spaces.Box)  # the one other action leaf (checked in __init__)
            return spaces.Box(self.space.low.astype(np.float32).ravel(),
                              self.space.high.astype(np.float32).ravel(), dtype=np.float32)
        if self.discrete:
            nvec = []
            for _, sub in leaf_spaces:
                if isinstance(sub, spaces.Discrete):
                    nvec.append(int(sub.n))
                elif isinstance(sub, spaces.MultiDiscrete):
                    nvec.extend(int(n) for n in sub.nvec.ravel())
                else:
                    nvec.extend([2] * math.prod(sub.shape))
            return spaces.MultiDiscrete(nvec)
        low = np.concatenate([s.low.astype(np.float32).ravel() for _, s in leaf_spaces])
        high = np.concatenate([s.high.astype(np.float32).ravel() for _, s in leaf_spaces])
        return spaces.Box(low, high, dtype=np.float32)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of one agent's flat action (() for Discrete)."""
        assert self.flat_space.shape is not None  # Discrete, MultiDiscrete or Box: all have one
        return tuple(self.flat_space.shape)

    def unflatten(self, flat: np.ndarray) -> Nested[np.ndarray | np.integer]:
        """The env's action for one agent from its flat action row."""
        if not self.structured:
            return self._leaf_action(self.space, flat, 0, None)
        values = {path: self._leaf_action(sub, flat, off, count) for path, sub, off, count in self._slices}
        return assemble(self.space, (), values)

    @staticmethod
    def _leaf_action(space: spaces.Space, flat: np.ndarray, offset: int, count: int | None) -> np.ndarray | np.integer:
        part = flat if count is None else flat[offset:offset + count]
        if isinstance(space, spaces.Discrete):
            return np.int64(part.reshape(-1)[0]) + space.start
        if isinstance(space, spaces.MultiDiscrete):
            return part.reshape(space.shape).astype(space.dtype) + space.start
        return part.reshape(space.shape).astype(space.dtype)

    def flatten(self, action: object) -> np.ndarray:
        """The flat action row of one env action (inverse of `unflatten`)."""
        row = np.zeros(self.size, self.dtype)
        for path, sub, off, count in self._slices:
            value: Any = action  # indexed as the space nests it
            for key in path:
                value = value[key]
            value = np.asarray(value)
            if isinstance(sub, (spaces.Discrete, spaces.MultiDiscrete)):
                value = value - sub.start
            row[off:off + count] = value.ravel()
        return row.reshape(self.shape)


def observation_problems(obs: object, space: spaces.Space, path: tuple = ()) -> tuple[list[str], list[str]]:
    """What is wrong with one observation `obs` for `space`: (errors, warnings).

    Errors: what would be written wrongly without a word (a wrong shape that numpy would
    broadcast, None or non-numbers, values that wrap or truncate in the space's dtype, NaN
    into integers, a missing or an extra Dict key, a Tuple of the wrong length).
    Warnings: values of the right type outside the space's bounds (what Gymnasium's own
    env checker warns about). Meant for a few observations per env, not for every step.
    """
    where = _fmt_path(path)
    if isinstance(space, spaces.Dict):
        if not isinstance(obs, Mapping):
            return [f"{where} is a {type(obs).__name__}, expected a dict with keys {list(space.spaces)}"], []
        errors, warns = [], []
        missing = [k for k in space.spaces if k not in obs]
        extra = [k for k in obs if k not in space.spaces]
        if missing:
            errors.append(f"{where} lacks the key(s) {missing}")
        if extra:
            errors.append(f"{where} has key(s) {extra} that the space does not declare (they would be dropped)")
        for key, sub in space.spaces.items():
            if key in obs:
                e, w = observation_problems(obs[key], sub, path + (key,))
                errors += e
                warns += w
        return errors, warns
    if isinstance(space, spaces.Tuple):
        if not isinstance(obs, (tuple, list)) or len(obs) != len(space.spaces):
            got = f"a {type(obs).__name__} of length {len(obs)}" if isinstance(obs, (tuple, list)) \
                else f"a {type(obs).__name__}"
            return [f"{where} is {got}, expected a tuple of {len(space.spaces)}"], []
        errors, warns = [], []
        for i, sub in enumerate(space.spaces):
            e, w = observation_problems(obs[i], sub, path + (i,))
            errors += e
            warns += w
        return errors, warns
    try:
        arr = np.asarray(obs)
    except Exception as exc:  # noqa: BLE001 - reported as the problem
        return [f"{where} cannot be read as an array ({exc})"], []
    if arr.dtype.kind not in "biuf":
        return [f"{where} is {obs!r:.60} (dtype {arr.dtype}), expected numbers of dtype {space.dtype}"], []
    shape = _leaf_shape(space)
    if arr.shape != shape and not (isinstance(space, spaces.Discrete) and arr.size == 1):
        return [f"{where} has shape {arr.shape}, expected {shape} (numpy would broadcast or reject it)"], []
    target = np.dtype(space.dtype)
    if target.kind in "iub" and arr.size:
        if arr.dtype.kind == "f":
            if not np.isfinite(arr).all():
                return [f"{where} holds NaN or inf, which integer dtype {target} cannot hold"], []
            if not np.array_equal(arr, np.round(arr)):
                return [f"{where} holds non-integer values (e.g. {arr[arr != np.round(arr)].flat[0]}) that dtype "
                        f"{target} would truncate"], []
        if target.kind != "b":
            info = np.iinfo(target)
            if arr.min() < info.min or arr.max() > info.max:
                return [f"{where} holds values in [{arr.min()}, {arr.max()}] that dtype {target} cannot hold "
                        f"(they would wrap around; {target} holds [{info.min}, {info.max}])"], []
    low, high = _leaf_bounds(space)
    flat = arr.astype(np.float64).ravel()
    if arr.size and (np.isnan(flat).any() or (flat < low).any() or (flat > high).any()):
        return [], [f"{where} holds values in [{np.nanmin(flat) if not np.isnan(flat).all() else 'nan'}, "
                    f"{np.nanmax(flat) if not np.isnan(flat).all() else 'nan'}]"
                    f"{' and NaN' if np.isnan(flat).any() else ''} outside the space's bounds "
                    f"[{low.min()}, {high.max()}]"]
    return [], []


#: The unsigned dtype of each integer size (a negative action is huge in its unsigned view).
_UNSIGNED: dict[int, np.dtype] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
                                 8: np.dtype(np.uint64)}


class ActionCheck:
    """Checks batches of flat actions for one Discrete, MultiDiscrete or Box space, cheaply.

    `check(actions, shape)` returns `actions` as an array of `shape` (rows of the space),
    or raises APIUsageError for a wrong shape, non-integer or out-of-range discrete
    actions (checked before any cast, so 2**32 never wraps to 0 nor 0.5 to 0) and
    NaN/inf continuous actions. Every vectorizer and native vector checks actions here:
    one reduction per check in the common case.
    """

    def __init__(self, space: spaces.Space, who: str = ""):
        self.space = space
        self.who = f"{who}: " if who else ""
        if isinstance(space, spaces.Discrete):
            self.high: np.ndarray | None = np.asarray(space.n)
        elif isinstance(space, spaces.MultiDiscrete):
            self.high = space.nvec.ravel()
        else:
            self.high = None
        self._scalar_high = int(self.high) if self.high is not None and self.high.ndim == 0 else None
        self._zeros = np.zeros(0, np.float32)  # as many zeros as the last batch had values

    def check(self, actions: npt.ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
        """`actions` as an array of `shape`, or APIUsageError saying what is wrong."""
        if type(actions) is not np.ndarray:
            actions = np.asarray(actions)
        if actions.shape != shape:
            if actions.size != math.prod(shape) or actions.ndim > len(shape) \
                    or (actions.ndim and len(actions) != shape[0]):
                raise APIUsageError(
                    f"{self.who}actions have shape {actions.shape}; expected {shape} "
                    f"({shape[0]} agent rows of {self.space}).")
            actions = actions.reshape(shape)
        kind = actions.dtype.kind
        if self.high is None:
            if kind == "f":
                # A dot product with zeros is 0 when every value is finite and NaN otherwise
                # (0 * inf is NaN), never overflows, and costs one BLAS call (half of what
                # isfinite().all() costs).
                if self._zeros.size != actions.size:
                    self._zeros = np.zeros(actions.size, np.float32)
                try:
                    finite = not math.isnan(np.vdot(actions, self._zeros))
                except RuntimeWarning:  # 0 * inf under warnings-as-errors
                    finite = False
                if not finite:
                    raise APIUsageError(
                        f"{self.who}actions for {self.space} contain NaN or inf (rows "
                        f"{np.flatnonzero(~np.isfinite(actions.reshape(len(actions), -1)).all(1)).tolist()[:10]}); "
                        "check the policy's outputs.")
            elif kind not in "iub":
                raise APIUsageError(f"{self.who}actions for {self.space} must be numbers, got dtype {actions.dtype}.")
            return actions
        if kind not in "iu":
            if kind not in "fb" or (kind == "f" and not np.array_equal(actions, np.round(actions))):
                raise APIUsageError(
                    f"{self.who}actions for {self.space} must be integers, got dtype {actions.dtype}"
                    + (f" with non-integer values (e.g. {actions[actions != np.round(actions)].flat[0]})"
                       if kind == "f" else "") + ".")
            actions = actions.astype(np.int64)
        if self._scalar_high is not None:
            fits = in_range(actions, self._scalar_high)  # one pass in C
            if fits is None:  # not C-contiguous or not in native byte order: a native copy is
                fits = in_range(np.ascontiguousarray(actions, actions.dtype.newbyteorder("=")), self._scalar_high)
            # None only for an integer type in_range cannot read: numpy's comparisons say it then
            bad = (not fits) if fits is not None else bool((actions < 0).any() or (actions >= self._scalar_high).any())
        else:
            # Negative values become huge in the same-size unsigned view: one comparison checks both ends.
            unsigned = actions.view(_UNSIGNED[actions.dtype.itemsize])
            bad = bool((unsigned.reshape(len(unsigned), -1) >= self.high).any())
        if bad:
            raise APIUsageError(
                f"{self.who}actions out of range for {self.space}: min {actions.min()}, "
                f"max {actions.max()}.")
        return actions


def joint_space(space: spaces.Space, n: int) -> spaces.Space:
    """The batched space of `n` agents sharing `space` (what `vecenv.action_space` is)."""
    from gymnasium.vector.utils import batch_space
    return batch_space(space, n)
