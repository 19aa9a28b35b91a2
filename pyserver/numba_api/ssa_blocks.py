"""Numba's SSA reconstruction (numba.core.ssa._run_ssa), each variable's two rewrites made only over the
blocks that name it.

Numba fixes one SSA-violating variable at a time, and each time walks every statement of every block
twice (fresh names for its assignments, then each use given its reaching definition, phi nodes added),
rebuilding every block: a function with many blocks and reassigned variables spends more time there than
in the rest of its untyped passes. A block that never names the variable comes out of both walks with the
same statements (Numba's handlers return a statement unchanged unless it assigns or reads that name), and
no walk reads a block before the one it rewrites. So such a block is rebuilt with its statements as they
are, and the handlers run, in Numba's order, over the others: the same blocks, names, phi nodes and
warnings. Which blocks name a variable stays true through the rewrites of the others (they only rename
their own variable, to fresh names). Tests compare the IR with Numba's own reconstruction.
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import AbstractContextManager
from typing import Any

from numba.core import errors, ir, ssa
from numba.core.analysis import compute_cfg_from_blocks

from pyserver.numba_api.callees import current_callee_resolver
from pyserver.numba_api.core import switched_off

_original_run_ssa: Any = getattr(ssa, "_run_ssa", None)
_enabled = [True]  # off only to compare with Numba's own reconstruction (tests)

# what is used of numba.core.ssa (the same file from Numba 0.61 to 0.68); without any of it, Numba's own runs
_NUMBA_PARTS = (
    "_run_ssa",
    "_iterated_domfronts",
    "_find_defs_violators",
    "_CacheListVars",
    "_make_states",
    "_compute_phi_locations",
    "_run_ssa_block_pass",
    "_FreshVarHandler",
    "_FixSSAVars",
)
AVAILABLE = all(hasattr(ssa, name) for name in _NUMBA_PARTS)


def block_skipping_disabled() -> AbstractContextManager[None]:
    """Numba's own SSA reconstruction inside (to compare the two)."""
    return switched_off(_enabled)


def run_ssa(blocks: dict[int, Any]) -> dict[int, Any]:
    """numba.core.ssa._run_ssa while analysing; Numba's own otherwise."""
    if not blocks or not _enabled[0] or current_callee_resolver() is None:
        return _original_run_ssa(blocks)  # type: ignore[no-any-return]
    cfg = compute_cfg_from_blocks(blocks)
    df_plus = ssa._iterated_domfronts(cfg)
    violators = ssa._find_defs_violators(blocks, cfg)
    naming = _blocks_naming(blocks) if violators else {}
    cache_list_vars = ssa._CacheListVars()
    for varname in violators:
        labels: set[int] | frozenset[int] = naming.get(varname, frozenset())
        states = ssa._make_states(blocks)
        states["varname"] = varname
        states["defmap"] = defmap = defaultdict[int, list[Any]](list)
        blocks = _rewrite(blocks, labels, states, ssa._FreshVarHandler())
        states = ssa._make_states(blocks)
        states["varname"] = varname
        states["defmap"] = defmap
        states["phimap"] = phimap = defaultdict[int, list[Any]](list)
        states["cfg"] = cfg
        states["phi_locations"] = ssa._compute_phi_locations(df_plus, defmap)
        blocks = _rewrite(blocks, labels, states, ssa._FixSSAVars(cache_list_vars))
        for label, philist in phimap.items():
            block = blocks[label]
            block.body = philist + block.body
    if compute_cfg_from_blocks(blocks) != cfg:
        raise errors.CompilerError("CFG mutated in SSA pass")
    return blocks


def _blocks_naming(blocks: dict[int, Any]) -> dict[str, set[int]]:
    """Each variable name: the labels of the blocks whose statements name it."""
    naming: dict[str, set[int]] = defaultdict(set)
    for label, block in blocks.items():
        for statement in block.body:
            for var in statement.list_vars():
                naming[var.name].add(label)
    return naming


def _rewrite(
    blocks: dict[int, Any], labels: set[int] | frozenset[int], states: dict[str, Any], handler: Any
) -> dict[int, Any]:
    """numba.core.ssa._run_block_rewrite, the handler run only over the blocks of `labels`."""
    rewritten = {}
    for label, block in blocks.items():
        new_block = ir.Block(scope=block.scope, loc=block.loc)
        if label in labels:
            states["label"] = label
            states["block"] = block
            new_block.body = list(ssa._run_ssa_block_pass(states, block, handler))
        else:
            new_block.body = list(block.body)
        rewritten[label] = new_block
    return rewritten
