"""The parallel report: parfor fusion and hoisting after ParforPass, without lowering.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

from typing import Any

from numba.core import ir, typed_passes
from numba.core import types as nbtypes
from numba.core.compiler_machinery import FunctionPass, register_pass

from pyserver.numba_api.inference_model import Inference, ParforFact, source_name

# --------------------------------------------------------------------------------------------------
# The parallel report: after ParforPass, run parfor fusion and read Numba's own parfor
# diagnostics (the data behind `parallel_diagnostics(level=...)`), without lowering. Hoisting is decided
# during lowering, so it is not part of this report.


def _parfor_what(pattern: Any) -> str:
    if isinstance(pattern, tuple) and pattern and pattern[0] == "prange":
        if len(pattern) > 2 and pattern[1] == "internal" and isinstance(pattern[2], tuple):
            name, module = pattern[2][0] if isinstance(pattern[2][0], tuple) else (pattern[2][0], "")
            return f"np.{name}" if module == "numpy" else str(name)
        return "prange loop"
    if isinstance(pattern, tuple) and len(pattern) > 1 and pattern[1] == "NumPy mapping":
        return "np." + str(pattern[0]).removesuffix(" function")  # ('zeros function', 'NumPy mapping')
    return str(pattern)


def _allocation(stmt: Any, typemap: dict[str, Any]) -> str | None:
    """The variable an array-allocating call assigns, for the hoisting report; None for anything else."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "call"):
        return None
    if not isinstance(typemap.get(stmt.target.name), nbtypes.Array):
        return None
    name = stmt.target.name
    return "an array" if name.startswith("$") or name.startswith("_") else source_name(name)


def _hoisting(state: Any) -> dict[int, tuple[list[tuple[int, str]], list[tuple[int, str, str]]]]:
    """What parfor lowering would hoist out of each region, decided as lowering does (Numba's `hoist`)
    on the parfor bodies after ParforPreLoweringPass. The IR is thrown away after this pipeline."""
    from numba.parfors import parfor_lowering
    from numba.parfors.parfor import Parfor

    typed_passes.ParforPreLoweringPass().run_pass(state)
    filename = state.func_ir.loc.filename
    found: dict[int, tuple[list[tuple[int, str]], list[tuple[int, str, str]]]] = {}
    for block in state.func_ir.blocks.values():
        for stmt in block.body:
            if not isinstance(stmt, Parfor) or stmt.params is None:
                continue
            body = stmt.loop_body
            wrapped = parfor_lowering.wrap_loop_body(body)
            try:
                hoisted, not_hoisted = parfor_lowering.hoist(stmt.params, body, state.typemap, wrapped)
            finally:
                parfor_lowering.unwrap_loop_body(body)
            moved = []
            for inst in hoisted:
                name = _allocation(inst, state.typemap)
                if name is not None and inst.loc.filename == filename:
                    moved.append((int(inst.loc.line), name))
            kept = []
            for inst, reason in not_hoisted:
                name = _allocation(inst, state.typemap)
                if name is not None and inst.loc.filename == filename:
                    kept.append((int(inst.loc.line), name, str(reason)))
            found[stmt.id] = (moved, kept)
    return found


def _parfor_line(parfor: Any, filename: str) -> int:
    pattern = parfor.patterns[0] if parfor.patterns else None
    if isinstance(pattern, tuple) and len(pattern) > 2 and isinstance(pattern[2], tuple):
        loc = pattern[2][1] if len(pattern[2]) > 1 else None
        if loc is not None and getattr(loc, "filename", None) == filename and loc.line:
            return int(loc.line)
    return int(parfor.loc.line or 0)


def parfor_facts(diagnostics: Any, func_ir: Any) -> list[ParforFact]:
    from numba.parfors.parfor import Parfor

    filename = func_ir.loc.filename
    initial = {p.id: p for p in getattr(diagnostics, "initial_parfors", [])}
    described = {i: (_parfor_line(p, filename), _parfor_what(p.patterns[0])) for i, p in initial.items()}
    facts: list[ParforFact] = []
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if not isinstance(stmt, Parfor):
                continue
            line, what = described.get(
                stmt.id, (_parfor_line(stmt, filename), _parfor_what(stmt.patterns[0]))
            )
            fact = ParforFact(stmt.id, line, what)
            fact.fused = [described[i] for i in diagnostics.fusion_info.get(stmt.id, []) if i in described]
            fact.serial = [
                described[i] for i in diagnostics.nested_fusion_info.get(stmt.id, []) if i in described
            ]
            facts.append(fact)
    by_id = {fact.id: fact for fact in facts}
    for report in getattr(diagnostics, "fusion_reports", []):
        message = str(report.message).strip().lstrip("- ")
        if "fusion succeeded" in message or report.first not in by_id or report.second not in described:
            continue
        by_id[report.first].not_fused.append((described[report.second][0], message))
    return sorted(facts, key=lambda f: f.line)


@register_pass(mutates_CFG=True, analysis_only=False)
class LensParforReport(FunctionPass):
    """Parfor fusion as Numba's pipeline runs it, then the report; a failure leaves the report empty."""

    _name = "numba_lens_parfor_report"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        result: Inference = state.lens_result
        try:
            typed_passes.ParforFusionPass().run_pass(state)
            result.parallel = parfor_facts(state.parfor_diagnostics, state.func_ir)
        except Exception:  # a fusion failure on odd code must not hide the function's types
            result.parallel = None
            return True
        try:
            hoisting = _hoisting(state)
        except Exception:  # the report stays without hoisting rather than failing
            return True
        for fact in result.parallel:
            fact.hoisted, fact.not_hoisted = hoisting.get(fact.id, ([], []))
        return True
