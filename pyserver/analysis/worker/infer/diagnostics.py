"""The diagnostics of an analysis, inside the worker: from each inference, each missing signature,
each load problem, placed in the file's text."""

from __future__ import annotations

import json
import os
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

from pyserver import numba_api
from pyserver.analysis import codes
from pyserver.analysis.model import (
    Diagnostic,
    Range,
    RelatedInformation,
)
from pyserver.analysis.worker.discover.discovery import JitFunction
from pyserver.analysis.worker.infer import kernels
from pyserver.analysis.worker.infer.analysis_run import AnalysisRun, Memo, shifted
from pyserver.analysis.worker.load.load_errors import LoadError
from pyserver.analysis.worker.load.loader import Loader, LoadResult
from pyserver.analysis.worker.report import report
from pyserver.analysis.worker.report.shown_types import ShownTypes
from pyserver.analysis.worker.signatures.signature_sources import (
    Candidate,
    SignatureSources,
)


class DiagnosticReporting:
    """Turns inferences and load problems into Diagnostics for the analysis in progress."""

    root: str
    loader: Loader
    memo: OrderedDict[tuple[Any, ...], Memo]
    shown: ShownTypes
    sources: SignatureSources
    _run: AnalysisRun

    def _diagnostic(
        self,
        path: str,
        range_: Range,
        severity: str,
        code: str,
        message: str,
        function: str | None,
        signature: str | None,
        full: str | None = None,
        related: list[RelatedInformation] | None = None,
        data: dict[str, Any] | None = None,
        tags: list[Any] | None = None,
    ) -> Diagnostic:
        return Diagnostic(
            path=path,
            range=range_,
            severity=severity,  # type: ignore[arg-type]
            code=code,
            message=message,
            function=function,
            signature=signature,
            relatedInformation=related or [],
            fullMessage=full,
            tags=tags or [],
            codeDescription=codes.doc_link(code),
            data=data,
        )

    def _index_for(self, path: str) -> report.SourceIndex | None:
        if path in self._run.sources:
            return self._run.sources[path]
        try:
            source = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        index = report.SourceIndex.parse(source)
        self._run.sources[path] = index
        return index

    def _name_range(self, function: JitFunction) -> Range:
        line = function.def_line - 1
        return Range.of(line, function.name_col, line, function.name_col + len(function.name.split(".")[-1]))

    def _decorator_range(self, function: JitFunction) -> Range:
        index = self._run.sources.get(self._run.path)
        if index is None:
            return self._name_range(function)
        return index.line_range(function.decorator_line)

    def _callee_related(self, callee: tuple[str, str], args: tuple[Any, ...]) -> list[RelatedInformation]:
        """Where the callee fails for these argument types (the link from a call site to the callee)."""
        related: list[RelatedInformation] = []
        record = self.loader.recorded.get(callee)
        if record is None:
            return related
        for memo in reversed(self.memo.values()):
            inference = memo.inference
            if memo.function != callee or inference.args != args or not inference.errors:
                continue
            if memo.def_line != record.py_func.__code__.co_firstlineno:
                inference = shifted(
                    inference, callee[0], record.py_func.__code__.co_firstlineno - memo.def_line
                )
            index = self._index_for(callee[0])
            for error in inference.errors:
                line = error.line or record.py_func.__code__.co_firstlineno
                range_ = index.error_range(error.text, line) if index else Range.of(line - 1, 0, line - 1, 0)
                related.append(RelatedInformation(callee[0], range_, report.short_message(error.text)))
            break
        return related

    def _report_inference(
        self,
        path: str,
        function: JitFunction,
        inference: numba_api.Inference,
        signature: str,
        index: report.SourceIndex,
        candidate: Candidate,
    ) -> list[Diagnostic]:
        diagnostics: list[Diagnostic] = []
        caller_related = [
            RelatedInformation(
                link.path,
                link.range or index.error_range("Invalid use of", link.line),
                f"called from '{link.function}' with {signature}",
            )
            for link in candidate.callers
        ]
        for error in inference.errors:
            text = error.text
            full = report.strip_preamble(text)
            message = report.short_message(text)
            line = error.line
            if line is None:
                in_file = [
                    n for n in report.file_lines(text, path) if function.def_line <= n <= function.end_line
                ]
                line = in_file[0] if in_file else None
            related = list(caller_related)
            data = None
            if error.callee is not None:
                code = "typing-error"
                call_line = line or function.def_line
                callee_name = error.callee[1].split(".")[-1]
                range_ = index._call_on_line(call_line, callee_name) or index.line_range(call_line)
                related += self._callee_related(error.callee, error.callee_args or ())
            elif error.kind == "unify":
                code = "unify-return"
                returns = index.return_ranges(function.def_line)
                types_by_line = {r.line: r.type for r in inference.returns}
                for return_line, return_range in returns:
                    ty = types_by_line.get(return_line)
                    shown = "unknown" if ty is None else str(ty)
                    related.append(RelatedInformation(path, return_range, f"returns {shown}"))
                range_ = returns[0][1] if returns else self._name_range(function)
            elif error.kind == "untyped":
                code = "untyped-variable"
                match = re.search(r"variable '([^']+)'", text)
                ssa = match.group(1) if match else ""
                variable = numba_api.source_name(ssa)
                range_ = (
                    index.variable_range(variable, line, index.function_node(function.def_line))
                    if not variable.startswith("$")
                    else None
                ) or (index.line_range(line) if line else self._name_range(function))
                data = {"variable": variable, "elementType": error.element_type}
            elif error.kind == "unsupported":
                code = "unsupported"
                range_ = index.error_range(text, line) if line else self._name_range(function)
            elif error.kind == "typing":
                code = "unsupported" if report.is_builtin_call_failure(text) else "typing-error"
                range_ = index.error_range(text, line) if line else self._name_range(function)
            else:
                code = "analysis-failed"
                message = f"Numba failed while analysing '{function.name}': {message}"
                range_ = index.line_range(line) if line else self._name_range(function)
            diagnostics.append(
                self._diagnostic(
                    path, range_, "error", code, message, function.name, signature, full, related, data
                )
            )
        for warning in inference.warnings:
            if warning.category == "performance":
                span = function.option_spans.get("parallel")
                range_ = (
                    Range.of(span.line - 1, span.col, span.end_line - 1, span.end_col)
                    if span
                    else self._decorator_range(function)
                )
                code = "performance"
            elif warning.category == "deprecation":
                code = "deprecation"
                line = warning.line or function.def_line
                range_ = (
                    index.line_range(line) if line != function.decorator_line else self._name_range(function)
                )
            else:
                continue
            diagnostics.append(
                self._diagnostic(
                    path,
                    range_,
                    "warning",
                    code,
                    report.short_message(warning.text),
                    function.name,
                    signature,
                    report.strip_preamble(warning.text),
                    tags=["deprecated"] if code == "deprecation" else None,
                )
            )
        return diagnostics

    # ------------------------------------------------------------------------------------- analyse

    def _no_signature(
        self, path: str, function: JitFunction, unusable: list[str], set_aside: str = ""
    ) -> Diagnostic:
        """`recorded` in its data: signatures the signatures file holds for this function that could not
        be used (a recorded signature that can is a candidate, so the function would not be unknown).
        `set_aside`: why the types its annotations gave were not taken (Analyzer.run_candidate)."""
        recorded = list(dict.fromkeys(unusable))
        annotations, to_annotate = self.sources.annotation_note(function)
        made, made_by_call = "", None
        if function.origin == "created" and function.created_line and not function.nested:
            # `fast = njit(slow)`: its calls are those of the dispatcher; a call of `slow` runs Python
            own = function.name.split(".")[-1]
            made_by_call = (own, function.created_line, function.created_call)
            made = (
                f" A call at line {function.created_line} jits it, not a decorator: the calls of the dispatcher"
                f" that call makes compile it (a call of '{own}' itself runs Python and compiles nothing)."
            )
            if own in self.sources.call_index.jit_made_names(path, own):  # `f = njit(f)`
                made = (
                    f" A call at line {function.created_line} jits it under its own name: the calls of '{own}'"
                    " after that line compile it."
                )
        seen = ""
        if recorded:
            seen = (
                f" The signatures file has {len(recorded)} recorded signature{'s' if len(recorded) != 1 else ''}"
                f" for it that could not be used here ({'; '.join(recorded)}): its exact types do not read back"
                " in this Numba, or could not be stored."
            )
        return self._diagnostic(
            path,
            self._name_range(function),
            "information",
            "no-signature",
            f"No argument types are known for '{function.name}', so it was not type-checked.{made}{seen}"
            f"{set_aside}{annotations}{self.sources.python_caller_note(path, function)} "
            + kernels.no_signature_advice(
                function.kind, function.params, function.options, to_annotate, made_by_call
            ),
            function.name,
            None,
            data={"function": function.name, "recorded": recorded, "params": function.params},
        )

    def redefined_note(self, path: str, function: JitFunction, kept_line: int) -> Diagnostic:
        return self._diagnostic(
            path,
            self._name_range(function),
            "information",
            "no-signature",
            f"'{function.name}' is defined again at line {kept_line}, which replaces this definition when the "
            "module runs: the analysis types the one the name holds in the end, and not this one. Give the "
            "two definitions different names to check both.",
            function.name,
            None,
            data={"function": function.name, "recorded": [], "params": function.params},
        )

    def _nopython_false(self, path: str, function: JitFunction) -> list[Diagnostic]:
        span = function.option_spans.get("nopython")
        if (
            span is None
            or function.options.get("nopython") is not False
            or numba_api.NUMBA_VERSION_TUPLE < (0, 59)
        ):
            return []
        return [
            self._diagnostic(
                path,
                Range.of(span.line - 1, span.col, span.end_line - 1, span.end_col),
                "warning",
                "deprecation",
                "nopython=False has no effect since Numba 0.59: functions always compile in nopython mode "
                "(use forceobj=True for object mode).",
                function.name,
                None,
                data={"kind": "nopython-false"},
                tags=["unnecessary"],
            )
        ]

    def _load_diagnostics(
        self, path: str, load: LoadResult, index: report.SourceIndex, recovered: LoadResult | None = None
    ) -> list[Diagnostic]:
        if load.error is None:
            return []
        error = load.error
        line = error.line
        range_ = index.line_range(line) if line else Range.of(0, 0, 0, 0)
        where = f" (line {line})" if line else ""
        if recovered is not None:
            skipped = len(recovered.skipped)
            outcome = (
                f"Numba Lens then loaded only the module's imports and definitions ({skipped} top-level "
                f"statement{'s' if skipped != 1 else ''} skipped) and checked its functions."
            )
        else:
            outcome = "Functions defined after this point were not analysed."
        if error.needs_skipped:
            return [self._needs_skipped(path, range_, error, where, outcome)]
        message = f"The module could not be loaded: {error.exc_type}: {error.message}{where}. {outcome}"
        severity = "error"
        if recovered is not None and not recovered.recorded and "numba" not in index.source:
            # a module that names nothing of Numba's, loaded only because it may make jitted functions
            # (it passes its functions to another module's call): it has none, so nothing went unchecked
            severity = "information"
            message += (
                " It names nothing of Numba's and makes no jitted function, so nothing here goes unchecked."
            )
        return [
            self._diagnostic(
                path,
                range_,
                severity,
                "analysis-failed",
                message,
                None,
                None,
                full=error.traceback_text or None,
            )
        ]

    def _needs_skipped(
        self, path: str, range_: Range, error: LoadError, where: str, outcome: str
    ) -> Diagnostic:
        """A load that failed reading what top-level statements the analysis never runs would have done:
        information, with those statements as related locations."""
        first = error.needs_skipped[0]
        more = len(error.needs_skipped) - 1
        others = f" and {more} more" if more else ""
        message = (
            f"The module loaded without top-level statements the analysis never runs (it runs none for "
            f"its effects): {error.exc_type}: {error.message}{where} reads what `{_call_text(first.text)}` "
            f"({os.path.basename(first.path)}:{first.line}){others} would set up. {outcome}"
        )
        related = [
            RelatedInformation(
                skipped.path,
                Range.of(skipped.line - 1, 0, skipped.end_line - 1, skipped.end_col),
                "not run by the analysis (it runs no statement for its effects); the load above needs it",
            )
            for skipped in error.needs_skipped
        ]
        return self._diagnostic(
            path,
            range_,
            "information",
            "load-needs-effects",
            message,
            None,
            None,
            full=error.traceback_text or None,
            related=related,
        )


def _call_text(text: str, limit: int = 80) -> str:
    """A statement's first line as the message names it: a call as `callee(...)`."""
    callee, paren, _rest = text.partition("(")
    shown = f"{callee}(...)" if paren and callee.strip() else text
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def syntax_error_span(source: str, exc: SyntaxError) -> tuple[int, int, int]:
    """(0-based line, start, end) of a syntax error, inside its line: Python points one past the end of
    a line that ends too early (`from`, `x =`); the squiggle then covers the line's last character."""
    lines = re.split(r"\r\n|\r|\n", source)  # as LSP and the tokenizer count lines
    line = min(max((exc.lineno or 1) - 1, 0), len(lines) - 1)
    length = len(lines[line])
    col = min(max((exc.offset or 1) - 1, 0), length)
    if col == length and col > 0:
        col -= 1
    return line, col, min(col + 1, length)


def jsonable(value: Any) -> Any:
    """Decorator options as JSON can hold them: sets (fastmath={"nnan"}) become sorted lists."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    return value


def json_safe(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    unique = []
    for diagnostic in diagnostics:
        r = diagnostic.range
        key = (
            r.start.line,
            r.start.character,
            r.end.line,
            r.end.character,
            diagnostic.code,
            diagnostic.message,
        )
        if key in seen:
            continue
        seen.add(key)
        unique.append(diagnostic)
    unique.sort(key=lambda d: (d.range.start.line, d.range.start.character, d.code))
    return unique
