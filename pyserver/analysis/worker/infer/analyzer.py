"""The analysis of one file, inside the worker: load, gather argument types, infer, report.

Analyzer orchestrates the stages; what it inherits owns the rest: InferenceMemo (memo.py) the
inferences kept across analyses, CalleeResolution (callee_resolution.py) the typing of calls to
workspace functions, DiagnosticReporting (diagnostics.py) turning inferences into diagnostics.
"""

from __future__ import annotations

import inspect
import json
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyserver import numba_api
from pyserver.analysis.model import (
    CallerSite,
    FileResult,
    FunctionInfo,
    Range,
    SignatureResult,
)
from pyserver.analysis.worker.discover.created import place_created
from pyserver.analysis.worker.discover.discovery import JitFunction, find_jitted_functions
from pyserver.analysis.worker.discover.makes_jitted import may_make_jitted
from pyserver.analysis.worker.infer import cuda_kernels, kernels, overloads, recompiles, recorded_types
from pyserver.analysis.worker.infer.analysis_run import AnalysisRun, CutoffMemo, Memo
from pyserver.analysis.worker.infer.callee_resolution import CalleeResolution
from pyserver.analysis.worker.infer.diagnostics import (
    DiagnosticReporting,
    dedupe,
    json_safe,
    jsonable,
    syntax_error_span,
)
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser
from pyserver.analysis.worker.load.loader import Loader, created_functions
from pyserver.analysis.worker.report import insight, report
from pyserver.analysis.worker.report.shown_types import ShownTypes
from pyserver.analysis.worker.signatures.recorded_objects import RecordedObjects
from pyserver.analysis.worker.signatures.signature_sources import (
    CallerLink,
    Candidate,
    SignatureSources,
    recorded_stores,
)
from pyserver.caches import BoundedCache, bounded_cache
from pyserver.record import store

ANALYSED_KINDS = {"njit", "jit", "vectorize", "guvectorize", "cfunc", "jitclass-method", "cuda"}


class Analyzer(CalleeResolution, DiagnosticReporting):
    """The analysis of one file at a time: load, gather argument types, infer (memoized, callees through
    the resolver), report."""

    def __init__(self, root: str | Path, signature_files: list[str] | None = None) -> None:
        self.root = os.path.realpath(str(root))
        self.signature_files = [str(p) for p in (signature_files or [])]
        numba_api.install()  # Numba's methods the analysis replaces (once per process)
        numba_api.warm_up()
        self.loader = Loader(self.root)
        self.recorded_objects = RecordedObjects(  # for recorded types (a script's function passed in)
            self.root, self.loader.recorded, lambda: self.loader.loading == "definitions"
        )
        numba_api.install_overload_capture()  # the types of calls that resolve to @overload implementations
        self.memo: OrderedDict[tuple[Any, ...], Memo] = OrderedDict()
        self.cutoff_memo: OrderedDict[tuple[Any, ...], CutoffMemo] = OrderedDict()  # see _infer
        self.object_memo: BoundedCache[tuple[Any, ...], tuple[numba_api.ObjectModeResult, int]] = (
            bounded_cache("analyzer.object_memo", 1024)
        )
        self.parser = IncrementalParser()
        self.shown = ShownTypes(self.root, self.recorded_objects.resolve)  # texts of types, kept across runs
        # The state of the analyze() call in progress (a new one per call; read by inference callbacks).
        self._run = AnalysisRun("", report.SourceIndex.parse(""), FileResult(path=""))
        # (path, function) -> argument-type candidates, in the order of FunctionInfo.signatures.
        self.last_candidates: dict[tuple[str, str], list[Candidate]] = {}
        # The six sources of argument types; cross-file callers and the Python call index live on.
        self.sources = SignatureSources(
            self.root, self.recorded_objects, self.loader.is_workspace_file, self.parser
        )
        # Told what the analysis does now ("loaded", then "typing f(int64)"): the engine's time-out says
        # where it stopped, and whether the module's top level or its typing was slow.
        self.on_progress: Callable[[str], None] = lambda _what: None

    # ------------------------------------------------------------------------------------- analyse

    def analyze(self, path: str, source: str, selective: bool = False) -> FileResult:
        started = time.perf_counter()
        path = os.path.abspath(path)
        try:  # after an edit only the statements it touched are parsed again (incremental_parse)
            index = report.SourceIndex(source, self.parser.parse(source, path))
        except (SyntaxError, ValueError):
            index = report.SourceIndex(source, None)
        run = self._run = AnalysisRun(path, index, FileResult(path=path), real_path=os.path.realpath(path))
        run.sources = {path: index}
        result = run.result
        try:
            # One parse of the buffer for every step (discovery, loading, ranges): index.tree; None
            # when it does not parse, and discovery's own parse then raises the error reported here.
            functions = find_jitted_functions(source, path, index.tree)
        except SyntaxError as exc:
            line, col, end = syntax_error_span(source, exc)
            result.diagnostics.append(
                self._diagnostic(
                    path,
                    Range.of(line, col, line, end),
                    "error",
                    "analysis-failed",
                    f"The module could not be analysed: syntax error: {exc.msg}",
                    None,
                    None,
                )
            )
            result.elapsed_ms = (time.perf_counter() - started) * 1000.0
            return result
        run.discovered = {path: functions}
        if (
            not functions
            and run.real_path in store.files_with_typed_compiles(self.root, self.signature_files)
            and not may_make_jitted(source, index.tree)
        ):
            # Nothing here jits anything, yet a recorded run saw Numba compile its functions (another
            # module jitted them at run time: a registration loop, a factory): what Numba typed is shown,
            # and the module is not run.
            recorded_types.add_recorded_types(
                result, self.root, source, index, recorded_stores(self.root, self.signature_files)
            )
            result.elapsed_ms = (time.perf_counter() - started) * 1000.0
            return result
        if any(f.kind == "cuda" for f in functions) or ("cuda" in source and "numba" in source):
            numba_api.install_cuda_hooks()  # cuda.jit recorded like njit (numba.cuda imported only now)
        self.sources.cross_file.forget_from(path)
        self.sources.cross_file.start(run.real_path)
        load = self.loader.load(path, source, selective=selective, tree=index.tree)
        recovered = None
        if load.error is not None and load.error.kind == "exception" and not selective:
            # The module raised at import: load only its imports and definitions, and check those.
            retry = self.loader.load(path, source, selective=True, tree=index.tree)
            if retry.error is None:
                recovered = retry
                # What the failed load spent importing third-party modules was spent all the same.
                retry.third_party_import_ms += load.third_party_import_ms
                retry.third_party_import_cpu_ms += load.third_party_import_cpu_ms
        self.on_progress("loaded")
        diagnostics = self._load_diagnostics(path, load, index, recovered)
        if recovered is not None:
            load = recovered
            result.status = "partial"
        result.skipped_statements = load.skipped
        result.diagnostics.extend(diagnostics)
        run.stores = stores = recorded_stores(self.root, self.signature_files)  # read once per analysis
        # Every function Numba created while the module loaded, not only those with a Numba decorator.
        kernels.add_recorded_only(load, path, self.root, stores)
        functions = place_created(functions, source, created_functions(load.recorded), index.tree)
        run.discovered = {path: functions}
        run.load = load
        self.sources.prepare_python_callers(
            path,
            source,
            load.module,
            lambda value: self._value_fingerprint(value, 0),
            lambda: numba_api.callee_resolver(self.resolve_callee),
        )
        infos, candidates, records, unusable = run.infos, run.candidates, run.records, run.unusable
        run.by_name = {f.name: f for f in functions}
        for function in functions:
            info = FunctionInfo(
                path=path,
                name=function.name,
                line=function.def_line,
                end_line=function.end_line,
                decorator_line=function.decorator_line,
                kind=function.kind,
                options={k: jsonable(v) for k, v in function.options.items() if json_safe(jsonable(v))},
                params=function.params,
            )
            infos[function.name] = info
            result.functions.append(info)
            result.diagnostics.extend(self._nopython_false(path, function))
            record = load.recorded.get(function.name)
            if record is not None and record.py_func.__code__.co_firstlineno != function.first_line:
                # a redefinition of the same name: this `def` is not the one that was kept
                kept_line = record.py_func.__code__.co_firstlineno
                record = None
                if function.first_line < kept_line and not function.nested:
                    result.diagnostics.append(self.redefined_note(path, function, kept_line))
            if record is None or function.kind not in ANALYSED_KINDS or function.nested:
                continue
            records[function.name] = record
            unusable[function.name] = []
            sourced = self.sources.candidates(
                function,
                record,
                load.module,
                path,
                stores,
                self._invalid_signature_reporter(run, function),
                unusable[function.name],
            )
            if function.options.get("forceobj"):
                # Numba's dispatcher compiles an object-mode function per argument types too: those the
                # sources give are its signatures, Python objects throughout.
                self._object_mode(run, function, record, [c for c in sourced if not c.uncertain])
                continue
            candidates[function.name] = sourced
        cuda_kernels.launch_candidates(run)  # CUDA kernels: types from their launches
        first_inference_diagnostic = len(result.diagnostics)
        # Infer every known signature; then the signatures callers pass to same-file callees.
        done: dict[str, set[tuple[Any, ...]]] = {name: set() for name in candidates}
        for _round in range(8):
            progressed = False
            for name, cands in candidates.items():
                for candidate in list(cands):
                    if candidate.args in done[name]:
                        continue
                    done[name].add(candidate.args)
                    progressed = True
                    self.run_candidate(run, name, candidate)
            if not progressed:
                break
        for name, cands in candidates.items():
            self.last_candidates[(path, name)] = list(cands)
            by_args = {"(" + ", ".join(self.shown.readable(a) for a in c.args) + ")": c for c in cands}
            for signature_result in infos[name].signatures:
                found = by_args.get("(" + ", ".join(signature_result.args) + ")")
                if found is not None and found.callers:
                    signature_result.callers = [
                        CallerSite(link.path, link.function, link.line) for link in found.callers
                    ]
            if not cands:
                function = run.by_name[name]
                result.diagnostics.append(
                    self._no_signature(path, function, unusable.get(name, []), run.set_aside.get(name, ""))
                )
        cuda_kernels.refine(run, first_inference_diagnostic)  # CUDA's own mistakes
        overloads.type_overloads(self, run)  # @overload implementations, from the calls that reached them
        # What the recorded compiles typed, for the functions and argument types not typed above.
        recorded_types.add_recorded_types(result, self.root, source, index, stores)
        relative = os.path.relpath(path, self.root)
        recording = [data for data in stores if data.get("functions")]  # most stores hold nothing
        for name, record in records.items() if recording else ():  # recorded compiles, each explained
            key = store.function_key(relative, name)
            cached = bool(record.options.get("cache"))
            infos[name].compiles = recompiles.function_compiles(
                recording, key, infos[name].params, record.py_func, cached
            )
        for name in records:
            identifier = numba_api.function_id(records[name].py_func)
            (result.inferred if identifier in self._run.fresh else result.reused).append(name)
        result.diagnostics.extend(insight.surprises(result, index))  # compiles, but surprises
        result.diagnostics = dedupe(result.diagnostics)
        result.callers_changed = self.sources.cross_file.changed_since(run.real_path)
        result.elapsed_ms = (time.perf_counter() - started) * 1000.0
        return result

    def _invalid_signature_reporter(
        self, run: AnalysisRun, function: JitFunction
    ) -> Callable[[Any, ValueError], None]:
        def report_invalid(sig: Any, exc: ValueError) -> None:
            run.result.diagnostics.append(
                self._diagnostic(
                    run.path,
                    self._decorator_range(function),
                    "error",
                    "typing-error",
                    f"Invalid signature {sig!r}: {exc}",
                    function.name,
                    None,
                )
            )

        return report_invalid

    def run_candidate(self, run: AnalysisRun, name: str, candidate: Candidate) -> None:
        """Infer one signature of one function; what it passes to jitted callees becomes theirs."""
        path, index, result, candidates = run.path, run.index, run.result, run.candidates
        function, record, info = run.by_name[name], run.records[name], run.infos[name]
        args_text = [self.shown.readable(a) for a in candidate.args]
        signature_text = "(" + ", ".join(args_text) + ")"
        self.on_progress(f"typing {name}{signature_text}")
        inference = self._infer(record, candidate.args, candidate.return_type)
        literal = _literal_candidates(candidate, inference.literal_request)
        if literal:
            # numba.literally: the dispatcher compiles again for the literals of the values it was called
            # with, and the calls' values are literals here (`power(x, 2)`): those are its signatures
            run.candidates[name].remove(candidate)
            known = {c.args for c in run.candidates[name]}
            run.candidates[name] += [c for c in literal if c.args not in known]
            return
        if candidate.uncertain and (inference.errors or inference.unknown_reason):
            # No call is known to pass these types, and they may not be what the calls pass: not an error
            # of the code's, but a reason it has no signature (the no-signature note says it).
            failure = inference.errors[0].text if inference.errors else str(inference.unknown_reason)
            run.candidates[name].remove(candidate)
            run.set_aside[name] = (
                f" {candidate.uncertain}: with them it does not type ({report.short_message(failure)}), so they"
                " were not taken as its argument types."
            )
            return
        encoded = self.shown.exact_encoding(candidate.args, record.py_func)
        variables, call_types = self.shown.signature_details(inference, function.def_line, function.end_line)
        info.signatures.append(
            SignatureResult(
                args=args_text,
                source=candidate.source,  # type: ignore[arg-type]
                return_type=None if inference.return_type is None else str(inference.return_type),
                mode="unknown" if inference.unknown_reason else "nopython",
                ok=not inference.errors and not inference.unknown_reason,
                error_count=len(inference.errors),
                variables=variables,
                inference_ms=round(inference.elapsed_ms, 3),
                exact=json.dumps(encoded, sort_keys=True) if encoded is not None else None,
                call_types=call_types,
                unknown_reason=inference.unknown_reason,
            )
        )
        result.diagnostics.extend(
            self._report_inference(path, function, inference, signature_text, index, candidate)
        )
        if inference.parallel is not None:  # the parallel report
            info.signatures[-1].parallel_loops = insight.parallel_loops(
                inference.parallel, function.def_line, index
            )
        # Argument types this function passes to jitted functions of the same file.
        calls = [(c.callee, c.args, c.line) for c in inference.calls]
        calls += [
            (e.callee, e.callee_args or (), e.line or 0) for e in inference.errors if e.callee is not None
        ]
        for callee, args, line in calls:
            if callee[0] != path:
                self.sources.remember_cross_file_call(
                    self.loader.recorded.get(callee), path, function.name, callee, tuple(args), line, index
                )
                continue
            if callee[1] not in candidates:
                continue
            existing = next((c for c in candidates[callee[1]] if c.args == args), None)
            if existing is None:
                existing = Candidate(tuple(args), None, "caller")
                candidates[callee[1]].append(existing)
            link = CallerLink(path, function.name, line)
            if existing.source == "caller" and link not in existing.callers:
                existing.callers.append(link)

    def _object_mode(
        self,
        run: AnalysisRun,
        function: JitFunction,
        record: numba_api.Recorded,
        argument_types: list[Candidate],
    ) -> None:
        path, index, result, info = run.path, run.index, run.result, run.infos[function.name]
        nargs = len(inspect.signature(record.py_func).parameters)
        def_line = record.py_func.__code__.co_firstlineno
        key = ("object-mode", self._fingerprint(record.py_func), nargs)
        cached = self.object_memo.get(key)
        if cached is not None:
            previous, previous_line = cached
            delta = def_line - previous_line
            outcome = numba_api.ObjectModeResult(
                [line + delta for line in previous.lifted_lines], previous.error, previous.elapsed_ms
            )
        else:
            outcome = numba_api.compile_object_mode(record.dispatcher, nargs)
            self.loader.last_definitions = None  # it compiled its jitted callees: the next load is fresh
            self.object_memo[key] = (outcome, def_line)
            self._run.fresh.add(numba_api.function_id(record.py_func))
        generic: list[Candidate | None] = [None]  # no source gives types: the object-mode compile's own
        for candidate in argument_types or generic:
            if candidate is None:
                args, source, exact, returned = ["pyobject"] * nargs, "object-mode", None, None
            else:
                encoded = self.shown.exact_encoding(candidate.args, record.py_func)
                args = [self.shown.readable(a) for a in candidate.args]
                source, returned = candidate.source, "pyobject"
                exact = json.dumps(encoded, sort_keys=True) if encoded is not None else None
            info.signatures.append(
                SignatureResult(
                    args=args,
                    source=source,  # type: ignore[arg-type]
                    return_type=returned,
                    mode="object",
                    ok=outcome.error is None,
                    error_count=0 if outcome.error is None else 1,
                    lifted_loops=outcome.lifted_lines,
                    compile_ms=round(outcome.elapsed_ms, 3),
                    exact=exact,
                )
            )
        if outcome.error is not None:
            line = outcome.error.line or function.def_line
            # The same codes as in nopython mode: an unsupported bytecode is `unsupported` on every Numba.
            kind = outcome.error.kind
            code = {"unsupported": "unsupported", "other": "analysis-failed"}.get(kind, "typing-error")
            message = report.short_message(outcome.error.text)
            if code == "analysis-failed":
                message = f"Numba's compiler failed on object-mode '{function.name}' (Numba's internal error): {message}"
            result.diagnostics.append(
                self._diagnostic(
                    path,
                    index.line_range(line),
                    "error",
                    code,
                    message,
                    function.name,
                    None,
                    report.strip_preamble(outcome.error.text),
                )
            )
            return
        loops = len(outcome.lifted_lines)
        result.diagnostics.append(
            self._diagnostic(
                path,
                self._name_range(function),
                "warning",
                "object-mode",
                f"'{function.name}' runs in object mode (forceobj=True): Python objects throughout"
                + (
                    f", except {loops} lifted loop{'s' if loops != 1 else ''} compiled in nopython mode."
                    if loops
                    else "."
                ),
                function.name,
                None,
            )
        )
        for line in outcome.lifted_lines:
            result.diagnostics.append(
                self._diagnostic(
                    path,
                    index.loop_range(line),
                    "information",
                    "loop-lifted",
                    f"This loop is lifted out of object-mode '{function.name}' and compiled in nopython mode.",
                    function.name,
                    None,
                )
            )


def _literal_candidates(candidate: Candidate, requested: frozenset[int]) -> list[Candidate]:
    """The candidates a `numba.literally` request makes of one: each call's form whose requested
    arguments are all literals, those arguments replaced by them; [] where a call's value is no literal
    (the argument types alone then give no signature)."""
    if not requested or not candidate.literal_forms:
        return []
    made: list[Candidate] = []
    for form in candidate.literal_forms:
        if len(form) != len(candidate.args) or any(i >= len(form) or form[i] is None for i in requested):
            return []
        args = tuple(form[i] if i in requested else a for i, a in enumerate(candidate.args))
        if all(c.args != args for c in made):
            # the forms go on: typed with these literals, it may ask for another argument's
            made.append(
                Candidate(
                    args,
                    None,
                    candidate.source,
                    list(candidate.callers),
                    literal_forms=candidate.literal_forms,
                )
            )
    return made
