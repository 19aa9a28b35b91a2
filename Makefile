# Numba Lens: one-command setup. Every step is idempotent (stamp files in .make/), so a second
# `make test` spends its time on tests. Everything the project needs is installed from here.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

ROOT := $(CURDIR)
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python
STAMPS := $(ROOT)/.make
TOOLS := $(ROOT)/.tools
VSIX := dist/numba-lens.vsix
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
EXT_SOURCES := $(shell find extension -name '*.ts' 2>/dev/null) package.json esbuild.mjs tsconfig.json
PY_SOURCES := $(shell find pyserver -name '*.py' 2>/dev/null)
# Debian packages: gdb for the debugger; chromium and libkrb5-dev for the real-editor tests
# (code-server builds a kerberos module; Playwright drives Debian's Chromium).
APT_PACKAGES := gdb chromium libkrb5-dev

.PHONY: help setup venv npm vsix apt editor test test-python test-ts test-e2e screenshots lint format demo bench fuzz clean

help:
	@echo "make demo   set everything up, check examples/, open them in VS Code (or code-server)"
	@echo "make test   set everything up and run every test suite"
	@echo "make bench  run the benchmarks (ratios against Numba's compile and plain gdb)"
	@echo "make fuzz   long fuzzing run of the checker and the language server"
	@echo "make lint   ruff, mypy, tsc and eslint"
	@echo "make screenshots  regenerate the README's debugging screenshots in a real editor"

$(STAMPS):
	mkdir -p $(STAMPS)

# --- Python ---------------------------------------------------------------------------------------
$(STAMPS)/venv: pyproject.toml | $(STAMPS)
	[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $@

venv: $(STAMPS)/venv

# --- Node ------------------------------------------------------------------------------------------
$(STAMPS)/npm: package.json $(wildcard package-lock.json) | $(STAMPS)
	if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
	touch $@

npm: $(STAMPS)/npm

$(VSIX): $(STAMPS)/npm $(STAMPS)/venv $(EXT_SOURCES) $(PY_SOURCES) scripts/bundle-python.sh pyproject.toml
	npm run -s build
	bash scripts/bundle-python.sh $(PY)
	npm run -s package

vsix: $(VSIX)

# --- System packages and the real editor -----------------------------------------------------------
$(STAMPS)/apt: | $(STAMPS)
	missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
	touch $@

apt: $(STAMPS)/apt

# Node 24 and code-server 4.139.1 from the npm registry, under .tools/ (see scripts/install-editor.sh).
$(STAMPS)/editor: scripts/install-editor.sh $(STAMPS)/apt | $(STAMPS)
	bash scripts/install-editor.sh $(TOOLS)
	touch $@

editor: $(STAMPS)/editor

setup: $(STAMPS)/venv $(STAMPS)/npm $(STAMPS)/apt $(VSIX)

# --- Tests -------------------------------------------------------------------------------------------
test: setup
	$(MAKE) --no-print-directory test-python
	$(MAKE) --no-print-directory test-ts
	$(MAKE) --no-print-directory test-e2e

test-python: $(STAMPS)/venv $(STAMPS)/apt
	$(PY) -m ruff check pyserver tests bench
	$(PY) -m ruff format --check pyserver tests bench
	$(PY) -m mypy
	$(PY) -m pytest -q -p no:cacheprovider tests

test-ts: $(STAMPS)/npm
	npm run -s lint
	npm test

test-e2e: $(STAMPS)/editor $(VSIX)
	bash scripts/e2e.sh $(TOOLS)

# The README's debugging screenshots: the e2e debugger scenario, copied to docs/images/ when it is green.
screenshots: $(STAMPS)/editor $(VSIX)
	E2E_ONLY=debugger E2E_PUBLISH=1 bash scripts/e2e.sh $(TOOLS)

lint: $(STAMPS)/venv $(STAMPS)/npm
	$(PY) -m ruff check pyserver tests bench
	$(PY) -m ruff format --check pyserver tests bench
	$(PY) -m mypy
	npm run -s lint

format: $(STAMPS)/venv
	$(PY) -m ruff format pyserver tests bench
	$(PY) -m ruff check --fix pyserver tests bench

# --- Demo, benchmarks, fuzzing ---------------------------------------------------------------------
demo: setup
	@echo "== python -m pyserver check examples/"
	-$(PY) -m pyserver check examples/
	@if ! command -v code >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory editor || echo "editor: code-server could not be installed (see above)"; fi
	bash scripts/demo-editor.sh $(TOOLS)

bench: $(STAMPS)/venv $(STAMPS)/apt
	$(PY) bench/run_all.py

fuzz: $(STAMPS)/venv
	NUMBA_LENS_FUZZ_EXAMPLES=1000 $(PY) -m pytest -q -p no:cacheprovider tests/fuzz

clean:
	rm -rf $(STAMPS) dist node_modules .venv .tools
