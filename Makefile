# The two set-up commands of the README: `make train` and `make test`.
# Each creates .venv on a fresh machine, installs the pinned CPU torch first
# (override with `make test TORCH=torch==X`), then the core and every plugin
# in editable mode, then runs.

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch==2.13.0
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
PLUGINS := $(sort $(wildcard plugins/*/pyproject.toml))
PLUGIN_DIRS := $(patsubst %/pyproject.toml,%,$(PLUGINS))
# Wheels whose metadata over-constrains the environment (numpy<2, gymnasium==1.2.0) but
# that run within it: a plugin lists them in requirements-nodeps.txt, installed with --no-deps
# (and --ignore-requires-python: gym-microrts declares <3.10 yet runs here, see its README).
NODEPS := $(sort $(wildcard plugins/*/requirements-nodeps.txt))
# Sdists that must compile against the venv's own numpy (nmmo): built with --no-build-isolation,
# after their build tools (Cython 3) are installed into the venv.
NOBUILDISO := $(sort $(wildcard plugins/*/requirements-nobuildisolation.txt))
CYTHON := "cython>=3,<4"
STAMP  := $(VENV)/.installed

.PHONY: test train install clean docs lint

# C sources: an edit to any of them rebuilds its extension before `make test`/`make train`
# (the install stamp follows only the pyproject.toml files). A build is skipped when the
# install stamp is newer than every source: that install has just compiled them.
OCEAN_DIR := plugins/puffer-ocean
OCEAN_C   := $(OCEAN_DIR)/setup.py $(wildcard $(OCEAN_DIR)/puffer_ocean/csrc/*.[ch] $(OCEAN_DIR)/puffer_ocean/csrc/envs/*.h)
OCEAN_STAMP := $(VENV)/.ocean-built
CORE_C    := setup.py $(wildcard pufferlib_core/pufferlib/*.c pufferlib_core/pufferlib/*/*.c)
CORE_STAMP := $(VENV)/.core-built
BUILT     := $(if $(wildcard $(OCEAN_DIR)/setup.py),$(OCEAN_STAMP)) $(CORE_STAMP)

$(OCEAN_STAMP): $(STAMP) $(OCEAN_C)
	@if [ -n "$$(find $(OCEAN_C) -newer $(STAMP))" ]; then echo "rebuilding $(OCEAN_DIR): C sources changed"; $(PIP) install --quiet --no-deps --no-build-isolation -e $(OCEAN_DIR); fi
	@touch $@

$(CORE_STAMP): $(STAMP) $(CORE_C)
	@if [ -n "$$(find $(CORE_C) -newer $(STAMP))" ]; then echo "rebuilding the core: C sources changed"; $(PIP) install --quiet --no-deps --no-build-isolation -e .; fi
	@touch $@

$(STAMP): pyproject.toml $(PLUGINS) $(NODEPS) $(NOBUILDISO)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel
	$(PIP) install --quiet "$(TORCH)"
	# the core was named pufferlib-core before 0.1.0: drop a stale install and build metadata of that name
	$(PIP) uninstall --quiet --yes pufferlib-core
	rm -rf pufferlib_core/pufferlib_core.egg-info
	$(PIP) install --quiet -e ".[test]" $(foreach d,$(PLUGIN_DIRS),-e $(d))
	$(if $(NODEPS),$(PIP) install --quiet --no-deps --ignore-requires-python $(foreach f,$(NODEPS),-r $(f)))
	$(if $(NOBUILDISO),$(PIP) install --quiet $(CYTHON) && $(PIP) install --quiet --no-deps --no-build-isolation --ignore-requires-python $(foreach f,$(NOBUILDISO),-r $(f)))
	touch $(STAMP)

install: $(STAMP)

# Three parts: the tests that may share the machine in parallel (pytest-xdist, one worker per
# core), microRTS's in a process of their own, then the `serial` ones alone (tests/conftest.py
# says which and why). microRTS's JVM stays in the process that started it and breaks other
# native code there (NLE's reset segfaulted in a worker that had run them and JAX's tests), so
# no other test shares its process. A worker that dies ends the run at once, naming its test:
# pytest-xdist 3.8's replacement worker under --dist loadgroup never got the dead worker's
# tests, and the run waited until CI's time limit.
# PYTHONDONTWRITEBYTECODE (set in some CI images) made every process compile the checkout's
# modules and every xdist worker rewrite every test module's asserts again: collecting the
# suite took 23 s of CPU per worker with it, 13 s with the caches written (2026-12-07).
test: export PYTHONDONTWRITEBYTECODE :=
test: $(STAMP) $(BUILT)
	$(PY) -m pytest tests -q -n auto --dist loadgroup --max-worker-restart 0 -m "not serial" --ignore=tests/microrts --durations=15
	$(PY) -m pytest tests/microrts -q --durations=5
	$(PY) -m pytest tests -q -m serial --durations=5

# ruff over every Python file, mypy over the core ([tool.mypy] in pyproject.toml), and the
# layers of the core ([tool.importlinter]: which subsystem may import which).
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# A real PPO run (about 15 s on 2 cores): ends printing the score and the checkpoint path.
train: $(STAMP) $(BUILT)
	$(VENV)/bin/puffer train gym-CartPole-v1 --train.total-timesteps 200000

# The guides of docs/ as a static site in site/, with the API reference generated from the
# docstrings: the `docs` extra (mkdocs, mkdocs-material, mkdocstrings), which `.[test]` includes.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) site
