"""Two `def`s of one name in a factory's branches (PyMPDATA's `make_domain`: `def _impl(_): return grid`
when the grid is static, `def _impl(meta): return meta[...]` else), compiled for the same argument types:
each of our signatures is compared with the compile of its own `def`, never with the other's."""

from __future__ import annotations

from typing import Any


def _signature(args: list[str], returns: str, variable: str) -> dict[str, Any]:
    return {
        "args": args,
        "return_type": returns,
        "source": "recorded",
        "variables": [
            {"name": variable, "line": 0, "type": args[0], "ssa_name": variable, "numba_type": args[0]}
        ],
    }


STATIC = "Tuple(Literal[int](12), Literal[int](0), Literal[int](10))"
DYNAMIC = "UniTuple(int64 x 3)"
ARRAY = "array(int64, 1d, C)"


def test_each_def_is_compared_with_its_own_compile(ecosystem_compare: Any) -> None:
    truth = [  # Numba's line: the first decorator's
        {
            "path": "grid.py",
            "qualname": "make_domain.<locals>._impl",
            "line": line,
            "signatures": [{"args": [ARRAY], "return_type": returns, "typemap": {variable: ARRAY}}],
        }
        for line, returns, variable in ((41, STATIC, "_"), (47, DYNAMIC, "meta"))
    ]
    ours = {
        "functions": [  # ours: the `def`'s line, the dynamic one listed first
            {"path": "grid.py", "name": "make_domain.<locals>._impl", "line": 48,
             "signatures": [_signature([ARRAY], DYNAMIC, "meta")]},
            {"path": "grid.py", "name": "make_domain.<locals>._impl", "line": 42,
             "signatures": [_signature([ARRAY], STATIC, "_")]},
        ]
    }  # fmt: skip
    figures = ecosystem_compare.compare(truth, ours, ours)
    assert (figures.compiled, figures.typed_after, figures.wrong_types) == (2, 2, 0), figures.differences
