"""The memo of inferences, inside the worker: keyed by the function's source, the fingerprints of the
globals it reads (workspace functions it calls included, recursively), its options and the signature.
A function's results are stored relative to its `def` line, so an edit that moves a function without
changing it reuses its results, shifted. A caller whose callees answer its typing questions as before
reuses its inference (early cutoff: see InferenceMemo._infer).
"""

from __future__ import annotations

import hashlib
import inspect
import sys
import types as pytypes
from collections import OrderedDict
from typing import Any

import numpy as np

from pyserver import numba_api
from pyserver.analysis.worker.infer.analysis_run import AnalysisRun, CalleeAnswer, CutoffMemo, Memo, shifted
from pyserver.analysis.worker.load.loader import Loader

MEMO_LIMIT = 4000
MAX_CALLEE_DEPTH = 30


def global_names(py_func: Any) -> set[str]:
    """The global names the function's code (nested code included) reads."""
    return {name for code in numba_api.nested_codes(py_func.__code__) for name in code.co_names}


def answer_pairs(pairs: list[tuple[tuple[Any, ...], Any]]) -> tuple[tuple[tuple[Any, ...], Any], ...]:
    return tuple((tuple(args), return_type) for args, return_type in pairs)


class InferenceMemo:
    """The inferences of this worker, reused across analyses (the Analyzer is one)."""

    root: str
    loader: Loader
    memo: OrderedDict[tuple[Any, ...], Memo]
    cutoff_memo: OrderedDict[tuple[Any, ...], CutoffMemo]
    _run: AnalysisRun

    def resolve_callee(self, dispatcher: Any, args: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
        """The (argument types, return type) pairs a call to this workspace callee resolves to."""
        raise NotImplementedError

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
            # The same text as above for a function of a file analysed before (its lines, joined, with
            # no line break after the last), so that its inferences are reused across the files of a run.
            return inspect.getsource(py_func).removesuffix("\n")
        except (OSError, TypeError):
            return repr(py_func.__code__.co_code) + repr(py_func.__code__.co_consts)

    def _value_fingerprint(self, value: Any, depth: int) -> str:
        if numba_api.is_workspace_dispatcher(value):
            return "jit:" + self._fingerprint(numba_api.dispatcher_py_func(value), depth + 1)
        helper = numba_api.python_helper_of(value)
        if helper is not None:  # a slice's stand-in for a Python function: typed from its source
            return "python:" + self._fingerprint(helper, depth + 1)
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
        for name in sorted(global_names(py_func)):
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
            with numba_api.callee_resolver(self.resolve_callee):
                if numba_api.is_cuda_dispatcher(record.dispatcher):
                    inference = numba_api.infer_cuda(record.dispatcher, args, return_type)
                else:
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
        values = [py_func.__globals__.get(name) for name in global_names(py_func)]
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
                    pairs = self.resolve_callee(dispatcher, answer.args)
                except Exception:  # a callee that no longer types: the caller is inferred afresh
                    return False
                if answer_pairs(pairs) != answer.pairs:
                    return False
            return self._run.callee_logs[-1] is not None
        finally:
            self._run.inferring.pop()
            self._run.callee_logs.pop()
