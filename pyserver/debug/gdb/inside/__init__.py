"""Scripts that run inside gdb's own Python, not in the adapter: gdb loads each with `source PATH`.

They import nothing but gdb and the standard library. The adapter knows them only by these paths.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent

# Adds the MI command `-numba-lens-frame` (one jitted frame's variables, layouts and bytes).
VALUES_SCRIPT = _HERE / "values_gdb.py"
# Adds the CLI commands `numba-lens-pyframes` and `numba-lens-pylocals`: the debuggee's Python frames,
# read from CPython's own structures; it imports its sibling pyobjects_gdb.py, which reads the objects.
PYFRAMES_SCRIPT = _HERE / "pyframes_gdb.py"
# Sourced just before a launch runs the program: no demangling of libllvmlite's symbols.
LLVM_SYMBOLS_SCRIPT = _HERE / "llvm_symbols_gdb.py"
