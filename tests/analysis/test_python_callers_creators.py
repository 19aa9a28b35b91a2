"""Arrays and values made the ways scripts make them, passed straight to a kernel: the type found
statically, if any, must be numba.typeof of the value NumPy really makes (computed here by evaluating
the expression). Most are typed; the rest (what Numba cannot type, layouts that may differ at run time,
lists whose items differ in type) stay unknown."""

from __future__ import annotations

import numba
import numpy as np
from analysis_helpers import first_argument_by_caller

EXPRESSIONS = [
    "np.meshgrid(np.arange(3.0), np.arange(4.0))[0]",
    "np.tile(np.arange(3), 2)",
    "np.vstack((np.ones(3), np.zeros(3)))",
    "np.stack([np.ones(3), np.zeros(3)])",
    "np.concatenate((np.ones(3), np.zeros(3)))",
    "np.full((2, 2), 7.0)",
    "np.eye(3)",
    "np.diag(np.ones(3))",
    "np.outer(np.ones(3), np.ones(2))",
    "np.asarray([1.0, 2.0])",
    "np.array([[1, 2], [3, 4]])",
    "np.array([[1.5, 2.5], [3.5, 4.5]])",
    "np.array([[1, 2], [3.5, 4]])",
    "np.array([1, 2.5])",
    "[1, 2] + [2.5]",
    "[[1, 2], [3.5, 4]]",
    "np.random.normal(0, 1, size=(3, 3))",
    "np.random.uniform(0, 1, 10)",
    "np.random.randint(0, 10, 5)",
    "np.mgrid[0:3, 0:3][0]",
    "np.indices((2, 3))",
    "np.arange(12).reshape(3, 4).astype(np.float32)",
    "np.random.randn(3, 4)",
    "np.empty((3, 3), dtype=np.complex128)",
    "np.array([1, 2, 3], dtype=np.int32)",
    "np.zeros(5, dtype=np.bool_)",
    "np.linspace(0, 1, 11)[1:]",
    "np.ones((3, 3))[:, 0]",
    "np.ascontiguousarray(np.ones((3, 3))[:, 0])",
    "np.sort(np.random.rand(5))",
    "np.hstack([np.ones(2), np.ones(3)])",
    "np.array([1.5, 2.5]).reshape(-1, 1)",
    "np.ones(3, dtype='float32')",
    "np.zeros((4, 4), order='F')",
    "np.random.rand(4).astype(np.float32) * 2",
    "list(range(5))",
    "np.float32(1.5)",
    "3 + 4j",
]


def test_made_arrays_get_numpys_own_types_or_none(ws) -> None:
    found, truth = first_argument_by_caller(
        ws, "pc_creators.py", EXPRESSIONS, [], lambda e: str(numba.typeof(eval(e, {"np": np})))
    )
    wrong = {name: (args, truth[name]) for name, args in found.items() if args != truth[name]}
    assert wrong == {}
    assert found["case_10"] == "array(int64, 2d, C)"  # a nested list of ints, the commonest table
    assert "case_12" not in found and "case_14" not in found  # items of two types: Python keeps both
    assert len(found) >= 26, sorted(set(truth) - set(found))
