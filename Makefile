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
STAMP  := $(VENV)/.installed

.PHONY: test train install clean

$(STAMP): pyproject.toml $(PLUGINS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel
	$(PIP) install --quiet "$(TORCH)"
	$(PIP) install --quiet -e ".[test]" $(foreach d,$(PLUGIN_DIRS),-e $(d))
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest tests -q

train: $(STAMP)
	$(VENV)/bin/puffer rollout gym-CartPole-v1 --num-envs 64 --steps 2000

clean:
	rm -rf $(VENV)
