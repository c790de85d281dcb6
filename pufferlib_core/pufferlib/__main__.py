"""`python -m pufferlib COMMAND ...` is the same as `puffer COMMAND ...`."""

import sys

from pufferlib.cli import main

sys.exit(main())
