"""Standard-library modules that older supported Pythons lack: `tomllib` is `tomli` on 3.10."""

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

__all__ = ["tomllib"]
