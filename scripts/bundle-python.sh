#!/usr/bin/env bash
# Puts pyserver and its pure-Python dependencies into dist/bundled/libs for the .vsix (the
# python-tools-extension-template way: the extension prepends that folder to PYTHONPATH when
# numbaLens.importStrategy is "useBundled"). Numba, llvmlite and NumPy are NOT bundled: they are
# compiled, platform-specific, and must match the user's interpreter.
#   usage: scripts/bundle-python.sh [PYTHON]   (default .venv/bin/python; needs pip and PyPI access
#   the first time; later runs reuse dist/bundled/.requirements when pyproject.toml did not change)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
OUT=dist/bundled/libs
STAMP=dist/bundled/.requirements

# The runtime dependencies from pyproject.toml, minus the compiled ones that come from the user.
REQUIREMENTS=$("$PY" - <<'PYEOF'
import tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
skip = {"numba", "llvmlite", "numpy"}
keep = [d for d in deps if d.split(">")[0].split("<")[0].split("=")[0].strip().lower() not in skip]
# pip evaluates markers with the running Python: add the backport cattrs needs on Python 3.10 by hand.
print("\n".join([*keep, "exceptiongroup>=1.1.1"]))
PYEOF
)

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$REQUIREMENTS" ] || [ ! -d "$OUT/pygls" ]; then
  rm -rf "$OUT"
  mkdir -p "$OUT"
  # Pure-Python wheels for the oldest supported Python, so that the bundle (and the backports it
  # needs there, such as exceptiongroup) works on every supported interpreter.
  # shellcheck disable=SC2086
  "$PY" -m pip install -q --disable-pip-version-check --no-compile --target "$OUT" \
    --only-binary=:all: --implementation py --python-version 3.10 --platform any --abi none \
    $(echo "$REQUIREMENTS" | tr '\n' ' ')
  echo "$REQUIREMENTS" > "$STAMP"
fi

# pyserver itself, fresh on every run (a plain copy: it is pure Python and must match this tree).
rm -rf "$OUT/pyserver"
tar --exclude=__pycache__ --exclude='*.pyc' -cf - pyserver | tar -xf - -C "$OUT"
rm -rf "$OUT/bin"
echo "bundled: $(ls "$OUT" | grep -v dist-info | tr '\n' ' ')"
