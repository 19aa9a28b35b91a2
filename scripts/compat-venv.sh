#!/usr/bin/env bash
# Builds one compatibility venv for `make test-compat`: DIR PYTHON_VERSION NUMBA_VERSION [GDB_VERSION]
#   DIR             where the venv goes (under .make/compat/)
#   PYTHON_VERSION  3.10 | 3.11 | 3.12 | 3.13: under ~/.pyenv/versions (built with a shared libpython,
#                   which gdb-for-pwndbg needs), else pythonX.Y on PATH (e.g. Debian 13's python3.13,
#                   which needs python3.13-venv, and libpython3.13 for the PyPI gdb)
#   NUMBA_VERSION   exact Numba release, e.g. 0.65.1
#   GDB_VERSION     optional: a gdb-for-pwndbg release from PyPI (installs DIR/bin/gdb)
# EXTRA_PACKAGES (environment): more requirements, space-separated (e.g. numba-cuda and its NVVM)
# The project is installed editable (its own dependency ranges must admit NUMBA_VERSION), plus the test
# tools. Idempotent: a second run with the same arguments only checks.
set -euo pipefail
DIR=$1 PYVER=$2 NUMBA=$3 GDB=${4:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

find_python() {
  local v=$1 candidate
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v" "$(command -v "python$v" 2>/dev/null || true)"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    # A system Python without its venv module (Debian: python3.X-venv) cannot make the venv.
    if "$candidate" -c 'import venv, ensurepip' 2>/dev/null; then echo "$candidate"; return 0; fi
  done
  return 1
}

PYTHON=$(find_python "$PYVER") || {
  echo "compat: no usable Python $PYVER (~/.pyenv/versions/$PYVER.*, or python$PYVER on PATH with venv/ensurepip)." >&2
  echo "compat: on Debian/Ubuntu: apt-get install python$PYVER-venv, or: pyenv install $PYVER" >&2
  exit 1
}
[ -x "$DIR/bin/python" ] || "$PYTHON" -m venv "$DIR"
PIP=("$DIR/bin/python" -m pip install -q --disable-pip-version-check)
packages=(-e "$ROOT" "numba==$NUMBA" "pytest>=8,<10" "pytest-timeout>=2.3,<3" "pytest-lsp>=1.0,<2"
  "hypothesis>=6.100,<7" "psutil>=5.9,<8")
[ -n "$GDB" ] && packages+=("gdb-for-pwndbg==$GDB")
# shellcheck disable=SC2206
[ -n "${EXTRA_PACKAGES:-}" ] && packages+=(${EXTRA_PACKAGES})
"${PIP[@]}" "${packages[@]}"
"$DIR/bin/python" -c "import numba, sys; print('compat venv', sys.version.split()[0], 'numba', numba.__version__)"
if [ -n "$GDB" ]; then
  "$DIR/bin/gdb" --version | head -1
else
  # As `make setup` does: a gdb from PyPI only where the system's cannot drive the debugger (a CPU with AMX).
  "$DIR/bin/python" -m pyserver doctor --fix --into-environment >/dev/null ||
    echo "compat: no gdb from PyPI for Python $PYVER: the system gdb is used"
fi
