"""Types of the C extension pufferlib.vector._sync (_sync.c): worker flags in shared memory."""

import numpy as np
from typing_extensions import Buffer, final  # collections.abc.Buffer is 3.12+

# Any object with the buffer protocol; numpy declares ndarray's only from Python 3.12 on.
_Bytes = Buffer | np.ndarray

READY: int
READY_INFOS: int
ERROR: int
INIT: int
STEP: int
RESET: int
CLOSE: int
SLOT_BYTES: int
HEADER_BYTES: int
HAVE_FUTEX: int

@final  # the C type cannot be subclassed
class Flags:
    """Flags(buffer, num_workers): worker flags in a shared buffer."""

    def __init__(self, buffer: _Bytes, num_workers: int) -> None: ...
    def send(self, worker: int, command: int, /) -> None: ...
    def send_many(self, mask: _Bytes, command: int, /) -> None: ...
    @property
    def spin_us(self) -> float: ...
    def set_spin(self, spin_us: float, /) -> None: ...
    def wait_command(self, worker: int, timeout_ms: float, /) -> int: ...
    def post(self, worker: int, command: int, result: int, /) -> bool: ...
    def wait_ready(self, pending: _Bytes, need: int, timeout_ms: float, /) -> tuple[int, int]: ...
    def release(self) -> None: ...

def exit_with_parent(parent_pid: int, interval_ms: float, /) -> bool: ...
