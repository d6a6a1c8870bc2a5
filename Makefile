# basketbench: the two commands are `make demo` and `make test`.
# Each area keeps its own targets in a fragment next to its code.
SHELL := /bin/bash
.DEFAULT_GOAL := help

ROOT_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VENV     := $(ROOT_DIR)/.venv
PY       := $(VENV)/bin/python
# The first Python >= 3.11 on PATH (a fresh machine may have an older python3 first).
PYTHON   ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
              command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
              2>/dev/null && { echo $$p; break; }; done)
# Real ROOT files come from ../shared/data/root-files when the checkout sits next to it,
# else from the scikit-hep-testdata wheel (the `demo` extra).
comma    := ,
PY_EXTRAS := dev$(if $(wildcard $(ROOT_DIR)/../shared/data/root-files/*.root),,$(comma)demo)
# Python test processes (pytest-xdist). Most long tests wait on builds, workers and servers,
# so two share two cores well; every test makes its own databases, ports, queues and
# folders, and the caches outside the clone take a file lock per entry.
PYTEST_WORKERS ?= 2

include bench-harness/harness.mk
include frontend/frontend.mk
include docker/compose.mk

.PHONY: help setup system-deps venv demo demo-deps replay replay-quick test test-python lint services codec-sources

help:
	@echo "make demo   - build everything, benchmark this machine, serve http://127.0.0.1:8000"
	@echo "make test   - the whole test suite (C++, Python, frontend unit and browser tests)"
	@echo "make setup  - install dependencies and build the harness and the frontend"
	@echo "make lint   - ruff, mypy, eslint, tsc"

# System packages (codec dev libraries, compilers, chromium for browser tests).
system-deps:
	@bash scripts/system-deps.sh

$(VENV)/.installed: pyproject.toml constraints.txt
	@test -x $(PY) || test -n "$(PYTHON)" || { echo "Python 3.11+ is required: install it (e.g. sudo apt-get install -y python3 python3-venv, or brew install python@3.12)" >&2; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[$(PY_EXTRAS)]'
	@touch $@

venv: $(VENV)/.installed

setup: system-deps venv harness-build frontend-build

services:
	@bash scripts/ensure-services.sh

# deb-src lines for the codec libraries the workers build from source (pinned codec sets).
codec-sources:
	@bash scripts/setup-codec-sources.sh

test-python: venv harness-build services codec-sources
	# The demo's fallback data (scikit-hep-testdata) is tested too, even where ../shared exists.
	$(PY) -m pip install -q -c constraints.txt -e '.[dev,demo]'
	$(PY) -m pytest -q -rs -p no:cacheprovider -n $(PYTEST_WORKERS) --durations=15

lint: venv frontend-deps
	$(VENV)/bin/ruff check backend workers devtools tests bench scripts
	$(VENV)/bin/mypy
	# Import contracts (pyproject.toml [tool.importlinter]) and no module-level circles.
	$(VENV)/bin/lint-imports --no-cache
	$(PY) scripts/check_import_cycles.py
	$(MAKE) frontend-lint

test: setup services
	$(MAKE) harness-test
	$(MAKE) test-aarch64
	$(MAKE) lint
	$(MAKE) test-python
	$(MAKE) frontend-test
	$(MAKE) frontend-e2e

# The demo needs the build tools and codec libraries, not the browser-test packages.
demo-deps:
	@BASKETBENCH_TEST_DEPS=0 bash scripts/system-deps.sh
	@command -v node >/dev/null && node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
	  || { echo "the dashboard needs Node.js 20.19+ (found: $$(node --version 2>/dev/null || echo none)); install it, e.g. from https://nodejs.org or your package manager" >&2; exit 1; }

# The dashboard is rebuilt for the demo only when its sources changed (a file target).
DEMO_DASHBOARD := $(ROOT_DIR)/frontend/dist/index.html
$(DEMO_DASHBOARD): $(shell find $(ROOT_DIR)/frontend/src $(ROOT_DIR)/frontend/public -type f 2>/dev/null) \
                   $(wildcard $(ROOT_DIR)/frontend/*.json $(ROOT_DIR)/frontend/*.ts $(ROOT_DIR)/frontend/index.html)
	$(MAKE) frontend-build
	@touch $@

# ROOT's released compression sources through the pipeline (docs/replay.md): the quick form
# (5 releases, minutes once cached) and the full one (every release, a documented job).
replay-quick: demo-deps venv
	$(VENV)/bin/basketbench replay --quick --json replay-quick.json $(REPLAY_ARGS)

replay: demo-deps venv
	$(VENV)/bin/basketbench replay --json replay-full.json $(REPLAY_ARGS)

# DEMO_ARGS passes options through, e.g. make demo DEMO_ARGS="--port 8080 --rerun".
demo: demo-deps venv harness-rzbench $(DEMO_DASHBOARD)
	$(VENV)/bin/basketbench demo $(DEMO_ARGS)
