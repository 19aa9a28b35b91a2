"""Source "python-caller": the slice front end (numba_api.slices) builds the IR Numba's own front end
builds, so a slice is typed exactly as before; the warm-up types a caller slice once per process."""

from __future__ import annotations

import contextlib
import io
import textwrap
from typing import Any

import numpy as np
from numba import njit
from numba.core import compiler
from numba.core import types as nbtypes

from pyserver import numba_api
from pyserver.numba_api import slices

numba_api.install()  # as the analysis worker does at start


@njit
def _kernel(a, scale):
    return a * scale


SLICES = {
    "plain": """
        def f(cond, n):
            data = np.linspace(0.0, 1.0, n) * 3
            steps = 3
            while cond:
                data = _kernel(data, 2.0)
            out = np.ones(n, dtype=np.float32)
            return None
        """,
    "branches": """
        def f(cond, n):
            x = 1
            if cond:
                x = 2.5
            else:
                for i in range(n):
                    x += i
            return None
        """,
    "dict display": """
        def f(cond, n):
            d = {"a": n, "b": 2}
            e = {**d}
            return None
        """,
    "big dict": """
        def f(cond, n):
            d = {"k0": 0, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5, "k6": 6, "k7": 7, "k8": 8,
                 "k9": 9, "k10": 10, "k11": 11, "k12": 12, "k13": 13, "k14": 14, "k15": 15, "k16": n}
            return None
        """,
    "with": """
        def f(cond, n):
            with objmode():
                x = n
            return None
        """,
    "generator": """
        def f(cond, n):
            yield n
        """,
    "comprehension": """
        def f(cond, n):
            values = [i * 2 for i in range(n)]
            pairs = (n, 2.5, "x")
            return None
        """,
}


def _function(text: str) -> Any:
    from numba import objmode

    namespace: dict[str, Any] = {"np": np, "_kernel": _kernel, "objmode": objmode}
    exec(compile(textwrap.dedent(text), "<slice>", "exec"), namespace)
    return namespace["f"]


def _dump(func_ir: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        func_ir.dump()
    return out.getvalue()


def test_the_slice_front_end_builds_numbas_ir() -> None:
    for name, text in SLICES.items():
        function = _function(text)
        ours = slices.slice_frontend(function)
        numbas = compiler.run_frontend(function)
        assert _dump(ours) == _dump(numbas), name
        assert list(ours.blocks) == list(numbas.blocks), name


def test_a_slice_is_typed_as_numbas_front_end_types_it() -> None:
    for name, text in SLICES.items():
        if name == "with":
            continue  # objmode needs the full pipeline; the IR comparison above covers it
        function = _function(text)
        ours = slices.type_python_slice(function, (nbtypes.boolean, nbtypes.int64))
        original = slices.slice_frontend
        slices.slice_frontend = compiler.run_frontend  # type: ignore[assignment]
        try:
            numbas = slices.type_python_slice(function, (nbtypes.boolean, nbtypes.int64))
        finally:
            slices.slice_frontend = original  # type: ignore[assignment]
        assert {k: str(v) for k, v in ours.types.items()} == {k: str(v) for k, v in numbas.types.items()}, (
            name
        )
        assert (ours.conflicts, ours.mixed_narrow, ours.error) == (
            numbas.conflicts,
            numbas.mixed_narrow,
            numbas.error,
        ), name


def test_the_warm_up_types_its_caller_once() -> None:
    typing = slices.warm_up_python_callers()
    made = slices.warm_kernel_jit
    assert made is not None
    if typing is not None:  # this process had not warmed up yet
        assert typing.error is None
        assert str(typing.types["data.1"]) == "array(float64, 1d, C)"  # the kernel's return, inferred
        assert str(typing.types["narrow"]).startswith("Tuple(array(float32, 1d, C)")
    assert slices.warm_up_python_callers() is None  # once per process
    assert slices.warm_kernel_jit is made
