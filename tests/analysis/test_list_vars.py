"""The analysis lists an IR statement's variables with its own walk (numba_api.patches, installed by
numba_api.install()): for every statement and expression of real Numba IR it must give the very
variables Numba's own walk gives, in the same order."""

from __future__ import annotations

import numba
import numpy as np
from numba.core import compiler, ir

from pyserver import numba_api
from pyserver.numba_api import patches

LIMITS = (1.0, 2.0)


def _closure_and_comprehensions(a, n):
    scale = 2.0

    def inner(x):
        return x * scale

    squares = [inner(v) ** 2 for v in a[:n]]
    table = {i: a[i] for i in range(n)}
    seen = {int(v) for v in a}
    return squares, table, seen, (n, scale, LIMITS)


def _calls_and_slices(a, b, *rest, **named):
    total = np.sum(a[1:-1:2], axis=0) + b[::2, 0].mean()
    del named
    out = np.empty_like(a, dtype=np.float64)
    out[:] = total
    return out, rest, max(a.shape[0], *LIMITS), print(total, sep=",")


def _branches_and_errors(x, flag):
    try:
        if (flag and x > 0) or not flag:
            y = -x
        else:
            raise ValueError("negative", x)
    except ValueError:
        y = 0
    while y < 10:
        y += 1
        if y == 5:
            break
    return y


def _parallel(a):
    s = 0.0
    for i in numba.prange(a.shape[0]):
        s += a[i]
    return s


def test_statement_variables_are_numbas() -> None:
    numba_api.install()
    ours_walk = ir.Inst.__dict__["_rec_list_vars"]
    with patches.list_vars_walk_disabled():
        assert ir.Inst.__dict__["_rec_list_vars"] is not ours_walk  # two walks compared, not one twice
    compared = with_vars = 0
    for function in (_closure_and_comprehensions, _calls_and_slices, _branches_and_errors, _parallel):
        func_ir = compiler.run_frontend(function)
        for block in func_ir.blocks.values():
            for stmt in block.body:
                insts = [stmt, *(v for v in vars(stmt).values() if isinstance(v, ir.Inst))]
                for inst in insts:
                    ours = inst.list_vars()
                    with patches.list_vars_walk_disabled():
                        theirs = inst.list_vars()
                    assert [id(v) for v in ours] == [id(v) for v in theirs], (function.__name__, str(inst))
                    compared += 1
                    with_vars += len(ours) > 1
    assert compared > 150 and with_vars > 40, (compared, with_vars)
