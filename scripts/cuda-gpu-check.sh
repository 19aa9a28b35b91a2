#!/usr/bin/env bash
# The CUDA corpus (tests/cuda/corpus) run on a real GPU; the types Numba compiled for the real launches are
# compared with the analysis's, and the result appended to docs/benchmarks.md ("CUDA on a GPU").
# Without a GPU it says so and exits 0.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$ROOT/.venv/bin/python}
cd "$ROOT"
PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" "$PY" tests/cuda/gpu_check.py --record docs/benchmarks.md
