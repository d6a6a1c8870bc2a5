# basketbench: the two commands are `make demo` and `make test`.
# Each area keeps its own targets in a fragment next to its code.
SHELL := /bin/bash
.DEFAULT_GOAL := help

ROOT_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VENV     := $(ROOT_DIR)/.venv
PY       := $(VENV)/bin/python
PYTHON   ?= python3

include bench-harness/harness.mk
include frontend/frontend.mk

.PHONY: help setup system-deps venv demo test test-python lint services

help:
	@echo "make demo   - build everything, benchmark this machine, serve http://127.0.0.1:8000"
	@echo "make test   - the whole test suite (C++, Python, frontend unit and browser tests)"
	@echo "make setup  - install dependencies and build the harness and the frontend"
	@echo "make lint   - ruff, mypy, eslint, tsc"

# System packages (codec dev libraries, compilers, chromium for browser tests).
system-deps:
	@bash scripts/system-deps.sh

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $@

venv: $(VENV)/.installed

setup: system-deps venv harness-build frontend-build

services:
	@bash scripts/ensure-services.sh

test-python: venv harness-build services
	$(PY) -m pytest -q -p no:cacheprovider

lint: venv frontend-deps
	$(VENV)/bin/ruff check backend workers tests bench
	$(VENV)/bin/mypy
	$(MAKE) frontend-lint

test: setup services
	$(MAKE) harness-test
	$(MAKE) lint
	$(MAKE) test-python
	$(MAKE) frontend-test
	$(MAKE) frontend-e2e

demo: setup
	$(VENV)/bin/basketbench demo
