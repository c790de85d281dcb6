"""torch.optim optimizers that do not import torch._dynamo: the trainer's Adam and Muon.

torch.optim.Optimizer wraps `add_param_group`, `zero_grad`, `state_dict`, `load_state_dict`
and each optimizer's `step` so that torch.compile leaves them alone, and each wrapper imports
torch._dynamo the first time it runs: 1.4 s of the 3.3 s that `puffer train gym-CartPole-v1`
takes for 2,048 steps on a 2-core CPU, paid by every training process. The trainer never
calls an optimizer inside compiled code, so `without_dynamo(cls)` is a subclass of `cls` whose
methods call the functions those wrappers wrap (their `__wrapped__`): the same arithmetic and
the same state dicts (a checkpoint's optimizer state loads into either class). Where a torch
release has no `__wrapped__` on a method, that method stays torch's own (correct, and
importing torch._dynamo as before).

Contract: `Adam` and `Muon` (None on a torch without it) take torch's arguments;
`differentiable=True` (grad through the step) is left to torch's own step.
"""

from __future__ import annotations

from typing import Any, TypeVar

import torch
from torch.optim.optimizer import Optimizer

OptimizerT = TypeVar("OptimizerT", bound=Optimizer)

#: Optimizer methods that torch wraps with a lazy torch._dynamo import (torch._disable_dynamo).
_WRAPPED = ("add_param_group", "zero_grad", "state_dict", "load_state_dict")


def without_dynamo(cls: type[OptimizerT]) -> type[OptimizerT]:
    """A subclass of the optimizer class `cls` whose methods skip torch's torch.compile guards
    (module docstring); its name is `cls`'s."""
    namespace: dict[str, Any] = {"__module__": __name__, "__doc__": f"{cls.__name__} without torch._dynamo's import."}
    for name in _WRAPPED:
        raw = getattr(getattr(Optimizer, name), "__wrapped__", None)
        if raw is not None:
            namespace[name] = raw
    raw_step = getattr(cls.step, "__wrapped__", None)
    if raw_step is not None:
        guarded_step = cls.step

        def step(self: Optimizer, closure: Any = None) -> Any:
            """`cls.step` under no_grad, as torch's guard runs it (torch's own step when differentiable)."""
            if self.defaults.get("differentiable"):
                return guarded_step(self, closure)
            with torch.no_grad():
                return raw_step(self, closure)

        namespace["step"] = step
    return type(cls.__name__, (cls,), namespace)


Adam = without_dynamo(torch.optim.Adam)
#: torch.optim.Muon (torch 2.9+), None before
Muon: type[torch.optim.Muon] | None = without_dynamo(torch.optim.Muon) if hasattr(torch.optim, "Muon") else None
