"""Run a command in a private network namespace whose only interface is loopback.

torch's TCPStore servers (torchrun's rendezvous store, `--standalone` included) listen on
every interface ('::') and torchrun has no option to change that. Inside `unshare -rn` (a
new user and network namespace: no privileges needed) the only interface is loopback, so
'::' reaches nothing outside this host's loopback.
"""

from __future__ import annotations

import shutil
import sys

#: Python lines that bring `lo` up in the namespace (`ip link set lo up`) and check that it
#: is the only interface.
LOOPBACK_UP = """
import fcntl, socket, struct
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH", b"lo", 0))[:18])[1]
    fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))
INTERFACES = [name for _, name in socket.if_nameindex()]
assert INTERFACES == ["lo"], f"the namespace has interfaces besides loopback: {INTERFACES}"
"""

_EXEC = LOOPBACK_UP + """
import os, sys
os.execv(sys.argv[1], sys.argv[1:])
"""


def loopback_only(argv: list[str]) -> list[str]:
    """`argv` (an absolute executable path first) wrapped to run in a loopback-only namespace."""
    return [shutil.which("unshare") or "unshare", "-rn", sys.executable, "-c", _EXEC, *argv]
