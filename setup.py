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
            "pufferlib._emulation",
            sources=["pufferlib_core/pufferlib/_emulation.c"],
            extra_compile_args=extra_compile_args,
        ),
        Extension(
            "pufferlib.train._kernels",
            sources=["pufferlib_core/pufferlib/train/_kernels.c"],
            extra_compile_args=extra_compile_args,
        ),
    ],
)
