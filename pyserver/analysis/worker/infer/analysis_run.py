"""The state of one analysis run (one `Analyzer.analyze()` call), and the inference memo kept across runs.

A run holds what the analysis of one file needs while it lasts: the file, its source index, the
functions found, their candidates and results, and the per-run caches (fingerprints, functions
inferred afresh, callee depth). The analyzer starts a new one for each call, so nothing of a run
leaks into the next.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from pyserver import numba_api
from pyserver.analysis.model import FileResult, FunctionInfo
from pyserver.analysis.worker.discover.discovery import JitFunction
from pyserver.analysis.worker.load.loader import LoadResult
from pyserver.analysis.worker.report import report
from pyserver.analysis.worker.signatures.signature_sources import Candidate


@dataclass
class AnalysisRun:
    path: str  # absolute
    index: report.SourceIndex
    result: FileResult
    real_path: str = ""
    load: LoadResult | None = None
    sources: dict[str, report.SourceIndex] = field(default_factory=dict)  # path -> index, this run's files
    discovered: dict[str, list[JitFunction]] = field(default_factory=dict)  # path -> jitted functions
    fingerprints: dict[int, str] = field(default_factory=dict)  # id(py_func) -> fingerprint
    # id(py_func) -> fingerprint with its jitted callees by name only (see Analyzer._infer)
    callee_blind_fingerprints: dict[int, str] = field(default_factory=dict)
    # One entry per inference in progress: the callees' answers it used; None once it used one that
    # cannot be checked again (an error, a recursive call, a function passed as a value).
    callee_logs: list[list[CalleeAnswer] | None] = field(default_factory=list)
    inferring: list[tuple[str, str]] = field(
        default_factory=list
    )  # the functions being inferred, outermost first
    fresh: set[tuple[str, str]] = field(default_factory=set)  # functions inferred (not reused) in this run
    callee_depth: int = 0
    stores: list[dict[str, Any]] = field(default_factory=list)  # the signatures files
    by_name: dict[str, JitFunction] = field(default_factory=dict)
    infos: dict[str, FunctionInfo] = field(default_factory=dict)
    records: dict[str, numba_api.Recorded] = field(default_factory=dict)
    candidates: dict[str, list[Candidate]] = field(default_factory=dict)  # in FunctionInfo.signatures order
    unusable: dict[str, list[str]] = field(default_factory=dict)  # recorded signatures that cannot be used
    set_aside: dict[str, str] = field(default_factory=dict)  # function -> why its uncertain candidate went


@dataclass
class Memo:
    inference: numba_api.Inference
    def_line: int
    function: tuple[str, str]  # (file, qualname)


@dataclass(frozen=True)
class CalleeAnswer:
    """What typing a call to a jitted callee answered: for these argument types, these signatures."""

    callee: tuple[str, str]  # (file, qualname)
    args: tuple[Any, ...]
    pairs: tuple[tuple[tuple[Any, ...], Any], ...]  # (argument types, return type)


@dataclass
class CutoffMemo:
    """An inference reusable while its jitted callees give the same answers (early cutoff)."""

    memo: Memo
    answers: list[CalleeAnswer]


def shift_text(text: str, path: str, delta: int) -> str:
    if delta == 0:
        return text
    escaped = re.escape(os.path.basename(path))

    def bump(match: re.Match[str]) -> str:
        return f"{match.group(1)}{int(match.group(2)) + delta}"

    text = re.sub(r'(File "[^"]*' + escaped + r'", line )(\d+)', bump, text)
    return re.sub(r"(" + escaped + r" \()(\d+)(?=\))", bump, text)


def shifted(inference: numba_api.Inference, path: str, delta: int) -> numba_api.Inference:
    if delta == 0:
        return inference

    def move(line: int | None) -> int | None:
        return None if line is None else line + delta

    return numba_api.Inference(
        args=inference.args,
        return_type=inference.return_type,
        errors=[
            numba_api.ErrorInfo(
                e.kind,
                shift_text(e.text, path, delta),
                move(e.line) if e.filename == path else e.line,
                e.filename,
                e.callee,
                e.callee_args,
                e.element_type,
            )
            for e in inference.errors
        ],
        warnings=[
            numba_api.WarningInfo(w.category, w.text, move(w.line), w.filename) for w in inference.warnings
        ],
        variables=[
            numba_api.VariableInfo(
                v.name, v.ssa_name, v.type, v.line + delta, v.is_arg, [u + delta for u in v.used_lines], v.phi
            )
            for v in inference.variables
        ],
        calls=[numba_api.CallInfo(c.callee, c.args, c.line + delta) for c in inference.calls],
        returns=[numba_api.ReturnSite(r.line + delta, r.type) for r in inference.returns],
        call_types=[(line + delta, name, sig) for line, name, sig in inference.call_types],
        elapsed_ms=inference.elapsed_ms,
    )
