"""Exceptions raised by PufferLib. Each message says what was wrong and how to fix it."""


class PufferError(Exception):
    """Base class of every PufferLib error."""


class APIUsageError(PufferError, ValueError):
    """The library was called with arguments or an environment that break its contract."""


class EnvNotFoundError(PufferError, KeyError):
    """No registered environment or plugin provides the requested id."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class WorkerError(PufferError, RuntimeError):
    """A vectorization worker failed; the message carries its traceback."""


class CheckpointError(APIUsageError):
    """A checkpoint file is unreadable, truncated, unsafe to load, foreign, or does not fit the policy."""


class OutputError(PufferError, OSError):
    """A file or folder a run writes cannot be written (permissions, a full disk, a missing or
    read-only folder); the message names it and the cause."""


class NonFiniteError(PufferError, FloatingPointError):
    """Training produced NaN or infinite values; the message names the first source found."""
