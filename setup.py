"""Build of the core's C extensions; every other piece of metadata lives in pyproject.toml."""

import sys

from setuptools import Extension, setup

extra_compile_args = [] if sys.platform == "win32" else ["-O2", "-std=c11"]

setup(
    ext_modules=[
        Extension(
            "pufferlib.vector._sync",
            sources=["pufferlib_core/pufferlib/vector/_sync.c"],
            extra_compile_args=extra_compile_args,
        ),
        Extension(
            "pufferlib._stepper",
            sources=["pufferlib_core/pufferlib/_stepper.c"],
            extra_compile_args=extra_compile_args,
        ),
        Extension(
            "pufferlib._train",
            sources=["pufferlib_core/pufferlib/_train.c"],
            extra_compile_args=extra_compile_args,
        ),
    ],
)
