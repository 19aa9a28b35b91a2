"""SSA reconstruction while analysing (numba_api/ssa_blocks.py: each variable's rewrites only over the
blocks that name it) gives the IR Numba's own reconstruction gives, printed statement by statement: phi
nodes, their order and incoming values, fresh names, and the warnings. Every jitted function of the
bundled examples, the first-sight corpus and the debugger's test programs is reconstructed both ways from
the same front-end IR; the inference of each is compared too. So are the scopes' variables after the
defining of used variables in every scope (patches.py: once per scope shared by blocks), closures inlined,
with the blocks in one scope and in two."""

from __future__ import annotations

import copy
import io
import warnings
from pathlib import Path
from typing import Any

from inference_comparison import analysed_inferences, outcome
from numba.core import compiler, ir, untyped_passes

from pyserver import numba_api
from pyserver.numba_api import patches, ssa_blocks


def printed(blocks: dict[int, Any]) -> str:
    out = io.StringIO()
    for label, block in blocks.items():
        print(f"label {label}:", file=out)
        block.dump(file=out)
    return out.getvalue()


def reconstructed(blocks: dict[int, Any], ours: bool) -> tuple[str, list[str]]:
    blocks = copy.deepcopy(blocks)  # its own scope: fresh names are counted per scope
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if ours:
            result = ssa_blocks.run_ssa(blocks)
        else:
            with ssa_blocks.block_skipping_disabled():
                result = ssa_blocks.run_ssa(blocks)
    return printed(result), [str(w.message) for w in caught]


def test_ssa_reconstruction_is_numbas_own(tmp_path: Path) -> None:
    assert ssa_blocks.AVAILABLE
    functions = with_phis = inferences = 0
    seen = set()
    for analyzer, path, memo, record in analysed_inferences(tmp_path, "ssa"):
        with numba_api.callee_resolver(analyzer.resolve_callee):
            if memo.function not in seen:
                seen.add(memo.function)
                front = compiler.run_frontend(record.py_func).blocks
                ours = reconstructed(front, ours=True)
                assert ours == reconstructed(front, ours=False), (path.name, memo.function[1])
                functions += 1
                with_phis += "phi(" in ours[0]
            with ssa_blocks.block_skipping_disabled():
                numba_own = numba_api.infer(record.dispatcher, memo.inference.args, None)
        assert outcome(memo.inference) == outcome(numba_own), (path.name, memo.function[1])
        inferences += 1
    print(f"\n{functions} functions reconstructed ({with_phis} with phi nodes), {inferences} inferences")
    assert functions >= 60 and with_phis >= 20 and inferences >= 60


def scopes_after_fixup(blocks: dict[int, Any], ours: bool, split: bool) -> list[list[tuple[str, str]]]:
    blocks = copy.deepcopy(blocks)
    if split:  # every other block in a scope of its own, as passes that copy IR in can leave them
        other = ir.Scope(parent=None, loc=next(iter(blocks.values())).loc)
        for block in list(blocks.values())[1::2]:
            block.scope = other
    if ours:
        untyped_passes.fixup_var_define_in_scope(blocks)
    else:
        with patches.per_scope_fixup_disabled():
            untyped_passes.fixup_var_define_in_scope(blocks)
    scopes: dict[int, Any] = {}
    for block in blocks.values():
        scopes.setdefault(id(block.scope), block.scope)
    return [[(name, repr(var)) for name, var in scope.localvars._con.items()] for scope in scopes.values()]


def test_used_variables_are_defined_in_every_scope_as_numba_does(tmp_path: Path) -> None:
    functions = several_scopes = 0
    seen = set()
    for analyzer, path, memo, record in analysed_inferences(tmp_path, "scopes"):
        if memo.function in seen:
            continue
        seen.add(memo.function)
        with numba_api.callee_resolver(analyzer.resolve_callee):
            front = compiler.run_frontend(record.py_func, inline_closures=True).blocks
            for split in (False, True):
                ours = scopes_after_fixup(front, ours=True, split=split)
                assert ours == scopes_after_fixup(front, ours=False, split=split), (
                    path.name,
                    memo.function[1],
                )
                several_scopes += len(ours) > 1
        functions += 1
    print(f"\n{functions} functions ({several_scopes} with blocks of several scopes)")
    assert functions >= 60 and several_scopes >= 60
