"""One PufferEnv class per Ocean environment (the creators named by the specs).

The classes are derived from `puffer_ocean.specs.ENVS`: env `name` gets the class
`specs.class_name(name)` (e.g. `TrashPickup`), an `OceanEnv` whose behaviour lives in
csrc/envs/<name>.h and whose docstring is the spec's description. An env that needs
Python-side behaviour (here: `Spaces`, with its Dict observation layout, and the games whose
observation starts with their legal moves, `MaskedGame`) defines its class below; the loop at
the end only adds the classes not written out.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from puffer_ocean import specs
from puffer_ocean.env import OceanEnv
from pufferlib import ObsLayout
from pufferlib.errors import APIUsageError


class Spaces(OceanEnv):
    """Dict observation {"flat": (5,), "image": (5, 5)} and MultiDiscrete([2, 2]) action.

    The observation is stored flat (30 floats); `obs_layout` gives the Dict back (the
    policy sees it as a dict of tensors through `pufferlib.pytorch`).
    """

    env_name = "spaces"
    dict_space = spaces.Dict({
        "flat": spaces.Box(-1, 1, (5,), np.float32),
        "image": spaces.Box(-1, 1, (5, 5), np.float32),
    })

    def _observation_space(self, flat: spaces.Box) -> spaces.Box:
        layout = ObsLayout(self.dict_space)
        if layout.shape != flat.shape or layout.dtype != flat.dtype:
            raise APIUsageError(f"ocean-spaces: the C observation {flat} does not match its layout "
                                f"{layout.flat_space}.")
        self.obs_layout = layout
        return layout.flat_space


class MaskedGame(OceanEnv):
    """A game whose C observation starts with its legal actions, one entry per action of its
    Discrete action space (1 legal, 0 not; all 0 for a seat that waits): presented as the Dict
    {"action_mask": (n,), "observation": (rest,)}, so the trainer, `puffer eval` and `puffer
    match` sample legal actions only (`pufferlib.pytorch.action_mask`). The storage stays one
    flat float row."""

    def _observation_space(self, flat: spaces.Box) -> spaces.Box:
        n = int(getattr(self.single_action_space, "n", 0))
        if not n or len(flat.shape) != 1 or flat.shape[0] <= n or flat.dtype != np.float32:
            raise APIUsageError(f"ocean-{self.env_name}: a masked game needs a Discrete action space and a flat "
                                f"float32 observation longer than its legal-action entries; it has "
                                f"{self.single_action_space} and {flat}.")
        layout = ObsLayout(spaces.Dict({
            "action_mask": spaces.Box(0, 1, (n,), np.float32),
            "observation": spaces.Box(flat.low[n:], flat.high[n:], (flat.shape[0] - n,), np.float32),
        }))
        self.obs_layout = layout
        return layout.flat_space


class Checkers(MaskedGame):
    env_name = "checkers"


class Hex(MaskedGame):
    env_name = "hex"


class Chess(MaskedGame):
    env_name = "chess"


def _derive_classes() -> list[str]:
    """Define the class of every spec'd env not written out above; returns all class names."""
    names = []
    for name, (description, _, _) in specs.ENVS.items():
        cls_name = specs.class_name(name)
        if cls_name not in globals():
            globals()[cls_name] = type(cls_name, (OceanEnv,), {"env_name": name, "__module__": __name__})
        cls = globals()[cls_name]
        if cls.__doc__ is None:  # a class written out without its own docstring takes the spec's
            cls.__doc__ = f"ocean-{name}: {description}."
        names.append(cls_name)
    return names


__all__ = ["OceanEnv", *_derive_classes()]
