"""Callee resolution, inside the worker: a caller's typing asks the resolver what a call to a workspace
jitted function returns for its argument types; the answer comes from the callee's (memoized)
inference or its declared signatures, and is logged for the caller's early cutoff."""

from __future__ import annotations

from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.infer.analysis_run import CalleeAnswer
from pyserver.analysis.worker.infer.memo import MAX_CALLEE_DEPTH, InferenceMemo, answer_pairs
from pyserver.analysis.worker.report import report

# Type texts that name a function, a class or an object: such a type compares by identity, which a
# reused inference would keep from an earlier run.
_IDENTITY_TYPE_MARKS = ("Dispatcher", "Function", "0x", "jitclass", "#")


def _names_functions(args: tuple[Any, ...], pairs: tuple[tuple[tuple[Any, ...], Any], ...]) -> bool:
    types = [*args, *(t for pair_args, r in pairs for t in (*pair_args, r))]
    return any(mark in str(t) for t in types for mark in _IDENTITY_TYPE_MARKS)


class CalleeResolution(InferenceMemo):
    """The callee resolver of the analysis (numba_api.callee_resolver(self.resolve_callee))."""

    def resolve_callee(self, dispatcher: Any, args: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
        logs = self._run.callee_logs
        try:
            pairs = self._callee_pairs(dispatcher, args)
        except BaseException:
            if logs:
                logs[-1] = None
            raise
        if logs and logs[-1] is not None:
            callee = numba_api.function_id(numba_api.dispatcher_py_func(dispatcher))
            answer = CalleeAnswer(callee, tuple(args), answer_pairs(pairs))
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
        if inference.unknown_reason and inference.literal_request:  # numba.literally in the callee
            raise numba_api.force_literal_arguments(dispatcher, inference.literal_request)
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
