"""Argument types from kernel launches, read from the source (signatures/cuda_launches)."""

from __future__ import annotations

import ast
import textwrap

from pyserver.analysis.worker.signatures.cuda_launches import find_launches


def launches(source: str, kernels: set[str]) -> list[tuple[str, str, list[tuple[str, ...] | None]]]:
    tree = ast.parse(textwrap.dedent(source))
    return [(launch.kernel, launch.scope, launch.args) for launch in find_launches(tree, kernels)]


def test_every_launch_form_and_device_array() -> None:
    found = launches(
        """
        import numpy as np
        from numba import cuda

        n = 64

        def main(stream):
            a = np.arange(16.0)
            b = cuda.to_device(a)
            c = cuda.device_array((4, 4), dtype=np.float32)
            d = cuda.device_array_like(np.zeros(8, dtype=np.int32))
            e = cuda.pinned_array(n, dtype=np.int64)
            f = cuda.mapped_array(n * 2, np.uint8)
            k[1, 16](a, b, 2, 2.5)
            k[1, 16, stream, 0](c, d, np.float32(1.0), True)
            k.forall(16)(e, f, n, a.astype(np.float32))
            configured = k[2, 32]
            configured(a, b, n, 1)
        """,
        {"k"},
    )
    f64 = ("array", "float64", "1")
    assert found == [
        ("k", "main", [f64, f64, ("scalar", "int64"), ("scalar", "float64")]),
        (
            "k",
            "main",
            [("array", "float32", "2"), ("array", "int32", "1"), ("scalar", "float32"), ("scalar", "bool_")],
        ),
        (
            "k",
            "main",
            [
                ("array", "int64", "1"),
                ("array", "uint8", "1"),
                ("scalar", "int64"),
                ("array", "float32", "1"),
            ],
        ),
        ("k", "main", [f64, f64, ("scalar", "int64"), ("scalar", "int64")]),
    ]


def test_never_a_guess() -> None:
    found = launches(
        """
        import numpy as np

        def main(values):
            a = np.zeros(4)
            if values:
                a = np.zeros(4, dtype=np.int32)
            b = helper()
            k[1, 4](a, b, values, np.full(3, 1.0))
            k[1, 4](*values)
        """,
        {"k"},
    )
    assert found == [("k", "main", [None, None, None, None]), ("k", "main", [])]
