"""One PufferEnv class per Ocean environment (the creators named by the specs).

The classes are derived from `puffer_ocean.specs.ENVS`: env `name` gets the class
`specs.class_name(name)` (e.g. `TrashPickup`), an `OceanEnv` whose behaviour lives in
csrc/envs/<name>.h and whose docstring is the spec's description. An env that needs
Python-side behaviour (here: `Spaces`, with its Dict observation layout) defines its class
below; the loop at the end only adds the classes not written out. (A game whose observation
starts with its legal actions says so in C, `OceanSpaces.legal_actions`: `OceanEnv` lays it out.)
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
