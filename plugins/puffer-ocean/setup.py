"""Builds puffer_ocean._ocean: module.c plus one translation unit per environment.

Set PUFFER_OCEAN_SANITIZE=1 to build with AddressSanitizer and UBSan (run Python with
LD_PRELOAD=$(gcc -print-file-name=libasan.so)), and PUFFER_OCEAN_NATIVE=1 to tune for this
machine's CPU (-march=native; not portable).
"""

import os
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
CSRC = Path("puffer_ocean") / "csrc"
sources = [str(CSRC / "module.c")] + sorted(str(p.relative_to(HERE)) for p in (HERE / CSRC / "envs").glob("*.c"))

compile_args = ["-O3", "-std=c11", "-fno-strict-aliasing", "-Wall", "-Wno-unused-function",
                "-Wno-unused-parameter", "-Wno-missing-braces"]
link_args = ["-lpthread", "-lm"]
if os.environ.get("PUFFER_OCEAN_NATIVE"):
    compile_args.append("-march=native")
if os.environ.get("PUFFER_OCEAN_SANITIZE"):
    sanitize = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-O1", "-g"]
    compile_args += sanitize
    link_args += sanitize

setup(
    ext_modules=[
        Extension(
            "puffer_ocean._ocean",
            sources=sources,
            include_dirs=[str(CSRC)],
            extra_compile_args=compile_args,
            extra_link_args=link_args,
        )
    ]
)
