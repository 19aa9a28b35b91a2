"""Source "python-caller": slices that differ only in numeric constants share one typing, and only where
that typing proved the constants' values change no type (numba_api.value_free_constants).

In process (PythonCallerTypes on a CallIndex, no worker): the counts of slices typed and shared are
read directly. End to end (the worker): the signatures, which sharing must never change."""

from __future__ import annotations

import importlib.util
import os
import textwrap
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
from numba.core import types as nbtypes

from pyserver import numba_api
from pyserver.analysis.worker.signatures.call_index import CallIndex
from pyserver.analysis.worker.signatures.python_callers import PythonCallerTypes
from pyserver.numba_api import slices

numba_api.install()  # as the analysis worker does at start

HEADER = """
import numpy as np
from numba import njit


@njit
def pair(x, y):
    return 0

"""


def _callers(tmp_path: Path, name: str, body: str) -> tuple[PythonCallerTypes, Any, str]:
    slices.warm_up_python_callers()  # the operators' templates the proofs compare with
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    index = CallIndex(str(tmp_path))
    index.refresh()
    callers = PythonCallerTypes(index)
    real = os.path.realpath(path)
    callers.configure(lambda p: module if p == real else None, repr, nullcontext)
    return callers, module, real


def _types(callers: PythonCallerTypes, module: Any, path: str) -> list[tuple[str, ...]]:
    findings = callers.signatures(path, "pair", module.pair)
    return [tuple(str(t) for t in s.args) for s in findings.signatures]


def test_callers_that_differ_in_a_scale_share_one_typing(tmp_path: Path) -> None:
    callers, module, path = _callers(
        tmp_path,
        "share_scale",
        """
        def a():
            data = np.arange(5) * 2
            pair(data, 1.5)


        def b():
            data = np.arange(5) * 3
            pair(data, 1.5)


        def c():
            data = np.arange(5) * 4.5
            pair(data, 1.5)
        """,
    )
    assert _types(callers, module, path) == [
        ("array(int64, 1d, C)", "float64"),
        ("array(float64, 1d, C)", "float64"),
    ]
    # b shares a's typing; c's constant is a float (another shape): typed itself.
    assert (callers.slices_typed, callers.slices_shared) == (2, 1)


def test_a_constant_whose_value_decides_a_type_is_never_shared(tmp_path: Path) -> None:
    callers, module, path = _callers(
        tmp_path,
        "share_index",
        """
        def first():
            t = (1, 2.5)
            pair(t[0], 1.5)


        def second():
            t = (1, 2.5)
            pair(t[1], 1.5)


        def small():
            k = 3
            pair(np.arange(4) * k, 1.5)


        def other():
            k = 4
            pair(np.arange(4) * k, 1.5)
        """,
    )
    # The tuple index picks the item's type; `k` is a variable (a probe could read its literal type).
    assert _types(callers, module, path) == [
        ("int64", "float64"),
        ("float64", "float64"),
        ("array(int64, 1d, C)", "float64"),
    ]
    assert (callers.slices_typed, callers.slices_shared) == (4, 0)


def test_free_constants_are_the_operands_of_array_arithmetic_only() -> None:
    slices.warm_up_python_callers()
    namespace: dict[str, Any] = {"np": np}
    exec(
        textwrap.dedent(
            """
            def f(cond, n):
                a = np.linspace(0.0, 1.0, n) * 7
                b = np.ones(n, dtype=np.float32) + 3
                c = 2.5 * a
                d = a ** 2
                e = (1, 2.0)[1]
                k = 5
                f = a * k
                g = n * 11
                h = a * 13
                i = (a, 13)
                return None
            """
        ),
        namespace,
    )
    typing = slices.type_python_slice(namespace["f"], (nbtypes.boolean, nbtypes.int64))
    assert typing.error is None
    # 0.0 and 1.0 are call arguments, 5 a variable, 11 multiplies an int, 13 is also put in a tuple.
    assert typing.free_constants == {(int, 7), (int, 3), (float, 2.5), (int, 2)}


def test_no_constant_is_free_once_an_operator_has_another_overload(monkeypatch) -> None:
    slices.warm_up_python_callers()
    namespace: dict[str, Any] = {"np": np}
    exec("def f(cond, n):\n    a = np.ones(n) * 7\n    return None\n", namespace)
    arg_types = (nbtypes.boolean, nbtypes.int64)
    assert slices.type_python_slice(namespace["f"], arg_types).free_constants == {(int, 7)}
    changed = dict(slices.numba_operator_templates)
    first = next(iter(changed))
    changed[first] = changed[first][1:]  # as if the templates were not Numba's own any more
    monkeypatch.setattr(slices, "numba_operator_templates", changed)
    assert slices.type_python_slice(namespace["f"], arg_types).free_constants == frozenset()


def test_an_edit_that_changes_a_type_types_the_slice_again(tmp_path: Path) -> None:
    body = """
        def main():
            data = np.arange(5) * {scale}
            pair(data, 1.5)
        """
    callers, module, path = _callers(tmp_path, "share_edit", body.format(scale="2"))
    assert _types(callers, module, path) == [("array(int64, 1d, C)", "float64")]
    for scale, expected, shared in [
        ("3", [("array(int64, 1d, C)", "float64")], 1),  # the same shape, a free constant: shared
        ("3.5", [("array(float64, 1d, C)", "float64")], 1),  # a float: another shape, typed
        # uint64, another Numba type: typed (int64 times uint64 is float64 in Numba, maybe not in NumPy)
        ("9223372036854775808", [], 1),
        # the uint64 slice's typing is the shape's latest: -4 is typed, then 6 shares its typing
        ("-4", [("array(int64, 1d, C)", "float64")], 1),
        ("6", [("array(int64, 1d, C)", "float64")], 2),
    ]:
        (tmp_path / "share_edit.py").write_text(HEADER + textwrap.dedent(body.format(scale=scale)))
        callers.index.refresh()
        callers.configure(lambda p: module if p == path else None, repr, nullcontext)
        assert _types(callers, module, path) == expected, scale
        assert callers.slices_shared == shared, scale


def _lens_test_only(x):  # typed through the overload below, never called
    return x


def test_only_numbas_own_templates_are_trusted() -> None:
    import operator

    from numba.core.registry import cpu_target
    from numba.extending import overload, type_callable

    @overload(_lens_test_only)
    def _typed(x):
        return lambda x: x

    @type_callable(_lens_test_only)
    def _typer(context):
        return lambda x: x

    context = cpu_target.typing_context
    context.refresh()
    theirs = context.resolve_value_type(_lens_test_only).templates
    assert theirs and not any(slices.numbas_own_template(t) for t in theirs)
    assert all(slices.numbas_own_template(t) for t in context.resolve_value_type(operator.mul).templates)


def test_an_edit_of_the_kernel_the_callers_call_types_them_again(ws) -> None:
    template = """
import numpy as np
from numba import njit


@njit
def step(a):
    return a * {factor}


@njit
def pair(x, y):
    return 0


def one():
    data = np.arange(4) * 2
    data = step(data)
    pair(data, 1.5)


def two():
    data = np.arange(4) * 3
    data = step(data)
    pair(data, 1.5)


one()
two()
"""

    def pair_types(result: Any) -> list[tuple[str, ...]]:
        function = next(f for f in result.functions if f.name == "pair")
        return [tuple(s.args) for s in function.signatures if s.source == "python-caller"]

    first = ws.analyze("pc_share_kernel_edit.py", template.format(factor="2"))
    assert pair_types(first) == [("array(int64, 1d, C)", "float64")]
    edited = ws.analyze("pc_share_kernel_edit.py", template.format(factor="2.5"))
    assert pair_types(edited) == [("array(float64, 1d, C)", "float64")]
    back = ws.analyze("pc_share_kernel_edit.py", template.format(factor="3"))
    assert pair_types(back) == [("array(int64, 1d, C)", "float64")]
