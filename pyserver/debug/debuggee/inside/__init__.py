"""What runs inside the debugged program (standard library and debugpy only; Numba only as the
program's own import, patched once the program has loaded it).

- boot.py: the script the debuggee's interpreter starts (`python boot.py ...`, see
  pyserver.debug.gdb.launcher.debuggee_argv) before the user's program;
- pydevd_ext/: put on the debuggee's sys.path by boot.py; debugpy loads its plugins from
  pydevd_plugins/extensions/ there, and numba_lens_return_stop.py is imported by the code of
  pyserver.debug.debuggee.snippets.

The adapter knows these files only by path: nothing here is imported by the adapter.
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent

BOOTSTRAP = _HERE / "boot.py"
PYDEVD_EXTENSIONS = _HERE / "pydevd_ext"
