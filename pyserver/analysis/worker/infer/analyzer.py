"""The analysis of one file, inside the worker: load, gather argument types, infer, report.

Results are cached per function and signature, keyed by the function's source, the fingerprints of
the globals it reads (workspace functions it calls included, recursively), its options and the
signature. A function's results are stored relative to its `def` line, so an edit that moves a
function without changing it reuses its results, shifted.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import sys
import time
import types as pytypes
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pyserver import numba_api
from pyserver.analysis import codes
from pyserver.analysis.model import (
    CallerSite,
    Diagnostic,
    FileResult,
    FunctionInfo,
    Range,
    RelatedInformation,
    SignatureResult,
)
from pyserver.analysis.worker.discover.discovery import JitFunction, find_jitted_functions, place_created
from pyserver.analysis.worker.infer import kernels, recompiles
from pyserver.analysis.worker.infer.analysis_run import AnalysisRun, CalleeAnswer, CutoffMemo, Memo, shifted
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser
from pyserver.analysis.worker.load.loader import Loader, LoadResult, created_functions
from pyserver.analysis.worker.report import insight, report
from pyserver.analysis.worker.report.shown_types import ShownTypes
from pyserver.analysis.worker.signatures.recorded_objects import RecordedObjects
from pyserver.analysis.worker.signatures.signature_sources import (
    CallerLink,
    Candidate,
    SignatureSources,
    recorded_stores,
)
from pyserver.record import store

MEMO_LIMIT = 4000
MAX_CALLEE_DEPTH = 30
ANALYSED_KINDS = {"njit", "jit", "vectorize", "guvectorize", "cfunc", "jitclass-method"}


def _global_names(py_func: Any) -> set[str]:
    """The global names the function's code (nested code included) reads."""
    return {name for code in numba_api.nested_codes(py_func.__code__) for name in code.co_names}


def _answer_pairs(pairs: list[tuple[tuple[Any, ...], Any]]) -> tuple[tuple[tuple[Any, ...], Any], ...]:
    return tuple((tuple(args), return_type) for args, return_type in pairs)


# Type texts that name a function, a class or an object: such a type compares by identity, which a
# reused inference would keep from an earlier run.
_IDENTITY_TYPE_MARKS = ("Dispatcher", "Function", "0x", "jitclass", "#")


def _names_functions(args: tuple[Any, ...], pairs: tuple[tuple[tuple[Any, ...], Any], ...]) -> bool:
    types = [*args, *(t for pair_args, r in pairs for t in (*pair_args, r))]
    return any(mark in str(t) for t in types for mark in _IDENTITY_TYPE_MARKS)


class Analyzer:
    def __init__(self, root: str | Path, signature_files: list[str] | None = None) -> None:
        self.root = os.path.realpath(str(root))
        self.signature_files = [str(p) for p in (signature_files or [])]
        numba_api.warm_up()
        self.loader = Loader(self.root)
        self.recorded_objects = RecordedObjects(  # for recorded types (a script's function passed in)
            self.root, self.loader.recorded, lambda: self.loader.loading == "definitions"
        )
        kernels.install_overload_capture()  # the types of calls that resolve to @overload implementations
        self.memo: OrderedDict[tuple[Any, ...], Memo] = OrderedDict()
        self.cutoff_memo: OrderedDict[tuple[Any, ...], CutoffMemo] = OrderedDict()  # see _infer
        self.object_memo: dict[tuple[Any, ...], tuple[numba_api.ObjectModeResult, int]] = {}
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

    # ---------------------------------------------------------------------------------------- keys

    def _function_source(self, py_func: Any) -> str:
        file = py_func.__code__.co_filename
        functions = self._run.discovered.get(file)
        index = self._run.sources.get(file)
        if functions is not None and index is not None:
            for function in functions:
                if function.name == py_func.__qualname__:
                    lines = index.lines[function.decorator_line - 1 : function.end_line]
                    return "\n".join(lines)
        try:
            return inspect.getsource(py_func)
        except (OSError, TypeError):
            return repr(py_func.__code__.co_code) + repr(py_func.__code__.co_consts)

    def _value_fingerprint(self, value: Any, depth: int) -> str:
        if numba_api.is_workspace_dispatcher(value):
            return "jit:" + self._fingerprint(numba_api.dispatcher_py_func(value), depth + 1)
        if isinstance(value, pytypes.ModuleType):
            return "module:" + value.__name__
        if value is None or isinstance(value, bool | int | float | complex | str | bytes):
            return "value:" + repr(value)
        if isinstance(value, tuple) and len(value) < 100:
            return "tuple:" + ",".join(self._value_fingerprint(v, depth) for v in value)
        if isinstance(value, np.ndarray):
            data = value.tobytes() if value.nbytes < 4_000_000 else str(id(value)).encode()
            return f"array:{value.dtype}:{value.shape}:{hashlib.sha256(data).hexdigest()}"
        if isinstance(value, np.generic | np.dtype):
            return f"numpy:{type(value).__name__}:{value!r}"
        if isinstance(value, numba_api.Type):
            return "type:" + str(value)
        if inspect.isfunction(value):
            code = value.__code__
            body = code.co_code + repr(code.co_consts).encode() + repr(code.co_names).encode()
            return f"function:{value.__module__}.{value.__qualname__}:{hashlib.sha256(body).hexdigest()}"
        if isinstance(value, type) or inspect.isbuiltin(value):
            module = sys.modules.get(getattr(value, "__module__", "") or "")
            file = getattr(module, "__file__", None)
            if isinstance(value, type) and file and self.loader.is_workspace_file(file):
                # A workspace class (e.g. a jitclass) may change with the module: no reuse across runs.
                return f"class:{value.__qualname__}:{id(value)}"
            return f"class:{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value)}"
        text = repr(value)
        if " at 0x" in text or len(text) > 2000:
            return f"object:{type(value).__qualname__}:{id(value)}"  # unknown: no reuse across runs
        return f"object:{type(value).__qualname__}:{text}"

    def _fingerprint(self, py_func: Any, depth: int = 0, callee_blind: bool = False) -> str:
        """The function's source and every global and closure value it reads. `callee_blind`: its jitted
        callees by name, options and parameters only, not by their code (see _infer)."""
        fingerprints = self._run.callee_blind_fingerprints if callee_blind else self._run.fingerprints
        cached = fingerprints.get(id(py_func))
        if cached is not None:
            return cached
        if depth > MAX_CALLEE_DEPTH:
            return "deep"
        fingerprints[id(py_func)] = "cycle:" + py_func.__qualname__  # a recursive call
        digest = hashlib.sha256()
        digest.update(numba_api.NUMBA_VERSION.encode())
        digest.update(py_func.__code__.co_filename.encode())
        digest.update(self._function_source(py_func).encode())
        module_globals = py_func.__globals__
        for name in sorted(_global_names(py_func)):
            if name in module_globals:
                text = self._read_value_fingerprint(module_globals[name], depth, callee_blind)
                digest.update(f"{name}={text};".encode())
        for cell in py_func.__closure__ or ():
            try:
                digest.update(self._read_value_fingerprint(cell.cell_contents, depth, callee_blind).encode())
            except ValueError:
                digest.update(b"empty-cell")
        defaults = py_func.__defaults__ or ()
        digest.update(self._value_fingerprint(tuple(defaults), depth).encode())
        value = digest.hexdigest()
        fingerprints[id(py_func)] = value
        return value

    def _read_value_fingerprint(self, value: Any, depth: int, callee_blind: bool) -> str:
        if callee_blind and numba_api.typed_only_by_resolver(value):
            defaults = tuple(numba_api.dispatcher_py_func(value).__defaults__ or ())
            return "callee:" + numba_api.resolver_token(value) + self._value_fingerprint(defaults, depth)
        return self._value_fingerprint(value, depth)

    # ----------------------------------------------------------------------------------- inference

    def _infer(
        self, record: numba_api.Recorded, args: tuple[Any, ...], return_type: Any
    ) -> numba_api.Inference:
        """Numba's inference of one function for one signature, or a reused one. Early cutoff, as in
        rust-analyzer's salsa: a caller's typing reads a jitted callee only through the resolver's
        answers (argument types -> return type), so after an edit of the callee that leaves those
        answers unchanged, the caller's inference is reused: its callee-blind key matches and asking
        the new callee the same questions gives the same answers (any error, recursion or function
        passed as a value, and the inference is not kept for that)."""
        py_func = numba_api.dispatcher_py_func(record.dispatcher)
        options = repr(sorted(numba_api.dispatcher_options(record.dispatcher).items(), key=lambda kv: kv[0]))
        key = (self._fingerprint(py_func), options, args, return_type)
        def_line = py_func.__code__.co_firstlineno
        memo = self.memo.get(key)
        if memo is not None:
            self.memo.move_to_end(key)
            return shifted(memo.inference, py_func.__code__.co_filename, def_line - memo.def_line)
        function = numba_api.function_id(py_func)
        blind_key = (self._fingerprint(py_func, callee_blind=True), options, args, return_type)
        reusable = self.cutoff_memo.get(blind_key)
        if reusable is not None and self._same_answers(py_func, function, reusable.answers):
            self.cutoff_memo.move_to_end(blind_key)
            self._keep(self.memo, key, reusable.memo)
            return shifted(
                reusable.memo.inference, py_func.__code__.co_filename, def_line - reusable.memo.def_line
            )
        self._run.callee_logs.append([])
        self._run.inferring.append(function)
        try:
            with numba_api.callee_resolver(self._resolve_callee):
                inference = numba_api.infer(record.dispatcher, args, return_type)
        finally:
            self._run.inferring.pop()
            answers = self._run.callee_logs.pop()
        memo = Memo(inference, def_line, function)
        self._keep(self.memo, key, memo)
        if answers is not None and not inference.errors:
            self._keep(self.cutoff_memo, blind_key, CutoffMemo(memo, answers))
        self._run.fresh.add(function)
        return inference

    @staticmethod
    def _keep(memo: OrderedDict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any) -> None:
        memo[key] = value
        memo.move_to_end(key)
        while len(memo) > MEMO_LIMIT:
            memo.popitem(last=False)

    def _same_answers(self, py_func: Any, function: tuple[str, str], answers: list[CalleeAnswer]) -> bool:
        """Whether the callees `py_func` reads now answer its earlier questions as before."""
        current: dict[tuple[str, str], Any] = {}
        values = [py_func.__globals__.get(name) for name in _global_names(py_func)]
        for cell in py_func.__closure__ or ():
            try:
                values.append(cell.cell_contents)
            except ValueError:
                pass
        for value in values:
            if numba_api.typed_only_by_resolver(value):
                current[numba_api.function_id(numba_api.dispatcher_py_func(value))] = value
        self._run.callee_logs.append([])  # the questions asked again are not the caller's own
        self._run.inferring.append(function)
        try:
            for answer in answers:
                dispatcher = current.get(answer.callee)
                if dispatcher is None:
                    return False
                try:
                    pairs = self._resolve_callee(dispatcher, answer.args)
                except Exception:  # a callee that no longer types: the caller is inferred afresh
                    return False
                if _answer_pairs(pairs) != answer.pairs:
                    return False
            return self._run.callee_logs[-1] is not None
        finally:
            self._run.inferring.pop()
            self._run.callee_logs.pop()

    def _resolve_callee(self, dispatcher: Any, args: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
        logs = self._run.callee_logs
        try:
            pairs = self._callee_pairs(dispatcher, args)
        except BaseException:
            if logs:
                logs[-1] = None
            raise
        if logs and logs[-1] is not None:
            callee = numba_api.function_id(numba_api.dispatcher_py_func(dispatcher))
            answer = CalleeAnswer(callee, tuple(args), _answer_pairs(pairs))
            if (
                callee in self._run.inferring
                or not numba_api.typed_only_by_resolver(dispatcher)
                or _names_functions(answer.args, answer.pairs)
            ):
                logs[-1] = None
            else:
                logs[-1].append(answer)
        return pairs

    def _callee_pairs(self, dispatcher: Any, args: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
        py_func = numba_api.dispatcher_py_func(dispatcher)
        record = self.loader.recorded.get(numba_api.function_id(py_func))
        if record is None or record.dispatcher is not dispatcher:
            record = numba_api.Recorded(py_func, dispatcher, "jit", [], {})
        if self._run.callee_depth > MAX_CALLEE_DEPTH:
            raise numba_api.CalleeTypingError("calls nested too deeply for analysis", dispatcher, args)
        name = py_func.__qualname__
        self._run.callee_depth += 1
        try:
            if record.signatures and record.kind == "jit":
                # Declared signatures: Numba compiles those only and matches calls against them.
                return self._declared_pairs(record, name, args)
            inference = self._infer(record, args, None)
        finally:
            self._run.callee_depth -= 1
        if inference.errors:
            first = report.short_message(inference.errors[0].text)
            arg_text = ", ".join(str(a) for a in args)
            raise numba_api.CalleeTypingError(
                f"In '{name}' called with ({arg_text}): {first}", dispatcher, args
            )
        if inference.return_type is None:
            raise numba_api.CalleeTypingError("the callee's return type is unknown", dispatcher, args)
        return [(args, inference.return_type)]

    def _declared_pairs(
        self, record: numba_api.Recorded, name: str, args: tuple[Any, ...]
    ) -> list[tuple[tuple[Any, ...], Any]]:
        pairs = []
        for sig in record.signatures:
            try:
                declared_args, return_type = numba_api.parse_signature(sig)
            except ValueError:
                continue
            if return_type is None:
                inference = self._infer(record, declared_args, None)
                if inference.errors or inference.return_type is None:
                    continue
                return_type = inference.return_type
            pairs.append((declared_args, return_type))
        if not pairs:
            raise numba_api.CalleeTypingError(
                f"'{name}' has no declared signature that compiles", record.dispatcher, args
            )
        return pairs

    # ------------------------------------------------------------------------------- type sources

    # ----------------------------------------------------------------------------------- reporting

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
            line, col, end = _syntax_error_span(source, exc)
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
        self.sources.cross_file.forget_from(path)
        self.sources.cross_file.start(run.real_path)
        load = self.loader.load(path, source, selective=selective, tree=index.tree)
        recovered = None
        if load.error is not None and load.error.kind == "exception" and not selective:
            # The module raised at import: load only its imports and definitions, and check those.
            retry = self.loader.load(path, source, selective=True, tree=index.tree)
            if retry.error is None:
                recovered = retry
        diagnostics = self._load_diagnostics(path, load, index, recovered)
        if recovered is not None:
            load = recovered
            result.status = "partial"
        result.skipped_statements = load.skipped
        result.diagnostics.extend(diagnostics)
        # Every function Numba created while the module loaded, not only those with a Numba decorator.
        kernels.add_recorded_only(load, path, self.root, recorded_stores(self.root, self.signature_files))
        functions = place_created(functions, source, created_functions(load.recorded), index.tree)
        run.discovered = {path: functions}
        run.load = load
        self.sources.prepare_python_callers(
            path,
            source,
            load.module,
            lambda value: self._value_fingerprint(value, 0),
            lambda: numba_api.callee_resolver(self._resolve_callee),
        )
        run.stores = stores = recorded_stores(self.root, self.signature_files)
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
                options={k: _jsonable(v) for k, v in function.options.items() if _json_safe(_jsonable(v))},
                params=function.params,
            )
            infos[function.name] = info
            result.functions.append(info)
            result.diagnostics.extend(self._nopython_false(path, function))
            record = load.recorded.get(function.name)
            if record is not None and record.py_func.__code__.co_firstlineno != function.first_line:
                record = None  # a redefinition of the same name: this `def` is not the one that was kept
            if record is None or function.kind not in ANALYSED_KINDS or function.nested:
                continue
            records[function.name] = record
            if function.options.get("forceobj"):
                self._object_mode(run, function, record)
                continue
            unusable[function.name] = []
            candidates[function.name] = self.sources.candidates(
                function,
                record,
                load.module,
                path,
                stores,
                self._invalid_signature_reporter(run, function),
                unusable[function.name],
            )
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
                    self._run_candidate(run, name, candidate)
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
                result.diagnostics.append(self._no_signature(path, function, unusable.get(name, [])))
        kernels.type_overloads(self, run)  # @overload implementations, from the calls that reached them
        for name, record in records.items():  # recorded compiles, each recompile explained (recompiles.py)
            key = store.function_key(os.path.relpath(path, self.root), name)
            cached = bool(record.options.get("cache"))
            infos[name].compiles = recompiles.function_compiles(
                stores, key, infos[name].params, record.py_func, cached
            )
        for name in records:
            identifier = numba_api.function_id(records[name].py_func)
            (result.inferred if identifier in self._run.fresh else result.reused).append(name)
        result.diagnostics.extend(insight.surprises(result, index))  # issue 16: compiles, but surprises
        result.diagnostics = _dedupe(result.diagnostics)
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

    def _run_candidate(self, run: AnalysisRun, name: str, candidate: Candidate) -> None:
        """Infer one signature of one function; what it passes to jitted callees becomes theirs."""
        path, index, result, candidates = run.path, run.index, run.result, run.candidates
        function, record, info = run.by_name[name], run.records[name], run.infos[name]
        inference = self._infer(record, candidate.args, candidate.return_type)
        args_text = [self.shown.readable(a) for a in candidate.args]
        signature_text = "(" + ", ".join(args_text) + ")"
        encoded = self.shown.exact_encoding(candidate.args)
        variables, call_types = self.shown.signature_details(inference, function.def_line, function.end_line)
        info.signatures.append(
            SignatureResult(
                args=args_text,
                source=candidate.source,  # type: ignore[arg-type]
                return_type=None if inference.return_type is None else str(inference.return_type),
                mode="nopython",
                ok=not inference.errors,
                error_count=len(inference.errors),
                variables=variables,
                inference_ms=round(inference.elapsed_ms, 3),
                exact=json.dumps(encoded, sort_keys=True) if encoded is not None else None,
                call_types=call_types,
            )
        )
        result.diagnostics.extend(
            self._report_inference(path, function, inference, signature_text, index, candidate)
        )
        if inference.parallel is not None:  # issue 16: the parallel report
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

    def _object_mode(self, run: AnalysisRun, function: JitFunction, record: numba_api.Recorded) -> None:
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
            self.object_memo[key] = (outcome, def_line)
            self._run.fresh.add(numba_api.function_id(record.py_func))
        info.signatures.append(
            SignatureResult(
                args=["pyobject"] * nargs,
                source="object-mode",
                mode="object",
                ok=outcome.error is None,
                error_count=0 if outcome.error is None else 1,
                lifted_loops=outcome.lifted_lines,
                compile_ms=round(outcome.elapsed_ms, 3),
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

    def _no_signature(self, path: str, function: JitFunction, unusable: list[str]) -> Diagnostic:
        """`recorded` in its data: signatures the signatures file holds for this function that could not
        be used (a recorded signature that can is a candidate, so the function would not be unknown)."""
        recorded = list(dict.fromkeys(unusable))
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
            f"No argument types are known for '{function.name}', so it was not type-checked.{seen}"
            f"{self.sources.python_caller_note(function)} "
            + kernels.no_signature_advice(function.kind, function.params, function.options),
            function.name,
            None,
            data={"function": function.name, "recorded": recorded, "params": function.params},
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
        message = f"The module could not be loaded: {error.exc_type}: {error.message}{where}. {outcome}"
        return [
            self._diagnostic(
                path,
                range_,
                "error",
                "analysis-failed",
                message,
                None,
                None,
                full=error.traceback_text or None,
            )
        ]


def _syntax_error_span(source: str, exc: SyntaxError) -> tuple[int, int, int]:
    """(0-based line, start, end) of a syntax error, inside its line: Python points one past the end of
    a line that ends too early (`from`, `x =`); the squiggle then covers the line's last character."""
    lines = re.split(r"\r\n|\r|\n", source)  # as LSP and the tokenizer count lines
    line = min(max((exc.lineno or 1) - 1, 0), len(lines) - 1)
    length = len(lines[line])
    col = min(max((exc.offset or 1) - 1, 0), length)
    if col == length and col > 0:
        col -= 1
    return line, col, min(col + 1, length)


def _jsonable(value: Any) -> Any:
    """Decorator options as JSON can hold them: sets (fastmath={"nnan"}) become sorted lists."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    return value


def _json_safe(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def _dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
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
