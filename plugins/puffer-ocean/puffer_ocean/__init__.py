"""Ocean: PufferLib's native C environments (`ocean-<name>`, alias `puffer_<name>`).

    import pufferlib
    env = pufferlib.make('ocean-squared', num_envs=4096)

Importing this package is cheap; the compiled extension loads when an env is made.
"""


def get_include() -> str:
    """The folder of the C authoring headers (puffer.h, binding.h, ocean.h) and module.c.

    A package with its own C envs builds an extension from `module.c` plus one `.c` per env
    (which `#include "puffer.h"` and `"binding.h"`), with this folder and its own on the
    include path and `OCEAN_REGISTRY` naming its registry header (`puffer new --c` writes one)::

        Extension("my_plugin._ocean", sources=[os.path.join(get_include(), "module.c"), "my_plugin/csrc/walk.c"],
                  include_dirs=[get_include(), "my_plugin/csrc"],
                  define_macros=[("OCEAN_REGISTRY", '"registry.h"')])
    """
    from pathlib import Path

    return str(Path(__file__).parent / "csrc")
