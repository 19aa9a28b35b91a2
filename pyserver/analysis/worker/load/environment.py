"""Top-level statements that set up the process rather than the module: definitions-only loading runs them
whatever is needed, as the program would before any of its jitted code (toplevel_slice).

- `sys.path` edits and `site.addsitedir(...)`: where the module's own imports come from;
- `os.environ[...] = ...`, `os.putenv(...)`, `numba.config.X = ...`: how Numba compiles;
- `warnings` filters;
- names put in `builtins` (`builtins._SETUP_ = False`, `setattr(builtins, "name", value)`): names that
  every module then reads as a builtin (`if not _SETUP_:` in a package's `__init__`).
"""

from __future__ import annotations

import ast

from pyserver.analysis.worker.discover.discovery import ImportNames

_SYS_PATH_METHODS = frozenset({"append", "insert", "extend", "remove"})
_ENVIRON_METHODS = frozenset({"update", "setdefault", "pop", "clear", "__setitem__"})
_WARNINGS_FUNCTIONS = frozenset({"filterwarnings", "simplefilter", "resetwarnings"})
_SET_UP_CALLS = frozenset({"os.putenv", "site.addsitedir", "numba.config.reload_config"})


def _targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign | ast.Delete):
        return list(node.targets)
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    return []


def _qualified(aliases: ImportNames, node: ast.expr) -> str | None:
    if isinstance(node, ast.Name | ast.Attribute):
        return aliases.resolve(node, keep_unknown=True)
    return None


def sets_up_environment(node: ast.stmt, aliases: ImportNames) -> bool:
    """Whether the statement sets up the process (the list above); `aliases`: the module's imports."""
    for target in _targets(node):
        base = target.value if isinstance(target, ast.Subscript) else target
        written = _qualified(aliases, base) or ""
        if written in ("sys.path", "os.environ") or written.startswith(("numba.config.", "builtins.")):
            return True
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    call = node.value
    qualified = _qualified(aliases, call.func)
    if qualified is None:
        return False
    owner, _, method = qualified.rpartition(".")
    if qualified in ("setattr", "builtins.setattr") and call.args:
        return _qualified(aliases, call.args[0]) == "builtins"
    return (
        (owner == "sys.path" and method in _SYS_PATH_METHODS)
        or (owner == "os.environ" and method in _ENVIRON_METHODS)
        or qualified in _SET_UP_CALLS
        or (owner == "warnings" and method in _WARNINGS_FUNCTIONS)
    )
