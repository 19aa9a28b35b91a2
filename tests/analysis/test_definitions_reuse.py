"""When the last load's module may start the next load (definitions_reuse.to_run_again): only for an edit
of `def`s that Numba's decorators make, and only when nothing else that ran could come out otherwise."""

from __future__ import annotations

import ast
import textwrap
import types

import numba

from pyserver.analysis.worker.load.definitions_reuse import LoadedDefinitions, to_run_again

PATH = "/workspace/module.py"
BEFORE = """
import numba
from numba import njit

SCALE = 2.0

@njit
def scaled(x):
    return x * SCALE

@numba.njit(cache=True)
def twice(x):
    return scaled(x) * 2
"""


def _statements(text: str) -> list[ast.stmt]:
    return ast.parse(textwrap.dedent(text)).body


def _last(text: str, module: types.ModuleType) -> tuple[LoadedDefinitions, list[types.CodeType]]:
    statements = _statements(text)
    codes = [compile(ast.Module(body=[s], type_ignores=[]), PATH, "exec") for s in statements]
    return LoadedDefinitions(PATH, module, tuple(statements), tuple(codes)), codes


def _module() -> types.ModuleType:
    module = types.ModuleType("module")
    module.__dict__.update(numba=numba, njit=numba.njit)
    return module


def _edited(text: str, old: str, new: str, changed: int) -> tuple[LoadedDefinitions, list[ast.stmt], list]:
    """The last load of `text`, then the statements and codes of `text` with `old` replaced, the code of
    statement `changed` compiled again (the others are the same code objects, as module_codes keeps)."""
    last, codes = _last(text, _module())
    statements = _statements(textwrap.dedent(text).replace(old, new))
    codes = list(codes)
    codes[changed] = compile(ast.Module(body=[statements[changed]], type_ignores=[]), PATH, "exec")
    return last, statements, codes


def test_an_edit_of_numba_made_defs_runs_only_them_again() -> None:
    last, statements, codes = _edited(BEFORE, "return scaled(x) * 2", "return scaled(x) * 3", 4)
    assert to_run_again(last, PATH, statements, codes) == [4]
    last, statements, codes = _edited(BEFORE, "return x * SCALE", "return x * SCALE + 1", 3)
    assert to_run_again(last, PATH, statements, codes) == [3]


def test_the_same_statements_run_nothing_again_and_another_file_loads_afresh() -> None:
    last, codes = _last(BEFORE, _module())
    assert to_run_again(last, PATH, list(last.statements), codes) == []
    assert to_run_again(last, "/workspace/other.py", list(last.statements), codes) is None
    assert to_run_again(None, PATH, list(last.statements), codes) is None


def test_anything_else_loads_afresh() -> None:
    cases = {
        "an edited global": (BEFORE, "SCALE = 2.0", "SCALE = 2.5", 2),
        "a def that another decorator makes": (
            BEFORE.replace("@njit\ndef scaled", "@register\ndef scaled"),
            "return x * SCALE",
            "return x * SCALE + 1",
            3,
        ),
        "a default that calls": (
            BEFORE.replace("def scaled(x)", "def scaled(x, y=make())"),
            "return x * SCALE",
            "return x * SCALE + 1",
            3,
        ),
        "a statement that calls, which kept its value": (
            BEFORE.replace("SCALE = 2.0", "SCALE = compute()"),
            "return x * SCALE",
            "return x * SCALE + 1",
            3,
        ),
        "a statement that reads the edited function when it runs": (
            BEFORE + "\nalias = scaled\n",
            "return x * SCALE",
            "return x * SCALE + 1",
            3,
        ),
        "a name bound twice": (
            BEFORE + "\n@njit\ndef scaled(x):\n    return x\n",
            "return x * SCALE",
            "return x * SCALE + 1",
            3,
        ),
    }
    for what, (text, old, new, changed) in cases.items():
        last, statements, codes = _edited(text, old, new, changed)
        assert to_run_again(last, PATH, statements, codes) is None, what
