"""Ocean: PufferLib's native C environments (`ocean-<name>`, alias `puffer_<name>`).

    import pufferlib
    env = pufferlib.make('ocean-squared', num_envs=4096)

Importing this package is cheap; the compiled extension loads when an env is made.
"""

__version__ = "0.1.0"

def get_include() -> str:
    """The folder of the C authoring headers (puffer.h, binding.h, ocean.h) and module.c.

    A package with its own C envs builds an extension `<package>._ocean` from a file that
    does `#include <module.c>` plus one `.c` per env (which `#include "puffer.h"` and
    `"binding.h"`), with its own folder and this one on the include path and
    `OCEAN_REGISTRY` naming its registry header (`puffer new --c` copies this folder into the new
    package instead, so that it builds without puffer-ocean installed)::

        Extension("my_plugin._ocean", sources=["my_plugin/csrc/my_plugin_module.c", "my_plugin/csrc/walk.c"],
                  include_dirs=["my_plugin/csrc", get_include()],
                  define_macros=[("OCEAN_REGISTRY", '"my_plugin_registry.h"')])
    """
    from pathlib import Path

    return str(Path(__file__).parent / "csrc")
