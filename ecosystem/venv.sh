#!/usr/bin/env bash
# Builds the ecosystem check's venv: DIR PROJECT_PYTHON
#   DIR             where the venv goes (.make/ecosystem/venv)
#   PROJECT_PYTHON  the project venv's interpreter (.venv/bin/python): the new venv uses its Python, and
#                   sees its site-packages through a .pth file, so Numba, NumPy and pyserver are the
#                   project's own; only the pinned packages of ecosystem/packages.txt (and what they
#                   need beyond that) are installed here.
# Idempotent: a second run with the same packages.txt only checks.
set -euo pipefail
DIR=$1 PROJECT_PY=$2
HERE=$(cd "$(dirname "$0")" && pwd)
[ -x "$DIR/bin/python" ] || "$PROJECT_PY" -m venv "$DIR"
SITE=$("$DIR/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$PROJECT_PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$SITE/project-venv.pth"
mapfile -t REQUIREMENTS < <(grep -v '^#' "$HERE/packages.txt" | awk 'NF {print $1}')
"$DIR/bin/python" -m pip install -q --disable-pip-version-check "${REQUIREMENTS[@]}"
"$DIR/bin/python" -c 'import numba, pyserver; print("ecosystem venv: numba", numba.__version__)'
