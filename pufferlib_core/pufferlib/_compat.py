"""Standard-library modules that older supported Pythons lack: `tomllib` is `tomli` on 3.10."""

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

__all__ = ["tomllib"]
