"""The examples of Numba's troubleshooting guide give the right codes at the right ranges; correct code is clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_helpers import by_code, text_at

from pyserver.analysis.engine import AnalysisEngine

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def examples_engine():
    engine = AnalysisEngine(EXAMPLES, timeout_s=60.0)
    yield engine
    engine.close()


def _analyze(engine: AnalysisEngine, path: Path):
    result = engine.analyze(path)
    assert result.status == "ok", result.diagnostics
    return result, path.read_text()


def test_int_plus_tuple_points_at_the_operator(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "typing_errors.py")
    errors = [d for d in by_code(result, "typing-error") if d.function == "add_tuple"]
    assert len(errors) == 1
    (error,) = errors
    assert error.severity == "error"
    assert text_at(source, error) == "+"
    assert error.range.start.line + 1 == 10
    assert "add(int64, Tuple(Literal[int](1), Literal[int](2)))" in error.message
    assert "Failed in" not in error.message and "During:" not in error.message
    assert error.fullMessage and "No implementation of function" in error.fullMessage
    assert error.codeDescription and error.codeDescription.startswith(
        "https://numba.readthedocs.io/en/stable/user/troubleshoot.html#"
    )
    signature = next(f for f in result.functions if f.name == "add_tuple").signatures
    assert [(s.args, s.source, s.ok) for s in signature] == [(["int64"], "decorator", False)]


def test_float_of_a_string_is_unsupported_at_the_call(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "typing_errors.py")
    (error,) = [d for d in result.diagnostics if d.function == "parse_number"]
    assert error.code == "unsupported"
    assert text_at(source, error) == "float(text)"
    assert "float(unicode_type)" in error.message


def test_callee_error_at_callee_with_links_both_ways(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "typing_errors.py")
    (in_callee,) = [d for d in result.diagnostics if d.function == "scale"]
    assert in_callee.code == "typing-error"
    assert text_at(source, in_callee) == "*"  # `a * factor` inside scale
    assert in_callee.relatedInformation, "the callee error links to the caller's call site"
    call_site = in_callee.relatedInformation[0]
    assert call_site.range.start.line + 1 == 27 and "calls_scale" in call_site.message
    (at_caller,) = [d for d in result.diagnostics if d.function == "calls_scale"]
    assert text_at(source, at_caller) == "scale(a, (1, 2))"
    assert any(r.range.start.line + 1 == 22 for r in at_caller.relatedInformation)
    scale = next(f for f in result.functions if f.name == "scale")
    assert [s.source for s in scale.signatures] == ["caller"]
    assert scale.signatures[0].args == ["array(float64, 1d, A)", "Tuple(Literal[int](1), Literal[int](2))"]


def test_unify_return_relates_every_return_site(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "unify_return.py")
    (error,) = by_code(result, "unify-return")
    assert text_at(source, error) == "return (x, x)"
    related = {r.range.start.line + 1: r.message for r in error.relatedInformation}
    assert related == {10: "returns UniTuple(int64 x 2)", 11: "returns Literal[int](1)"}


def test_untyped_empty_list_points_at_the_name(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "untyped_list.py")
    (error,) = by_code(result, "untyped-variable")
    assert error.function == "collect_untyped"
    assert text_at(source, error) == "values"
    assert error.range.start.line + 1 == 9
    assert error.data == {"variable": "values", "elementType": None}
    typed = next(f for f in result.functions if f.name == "collect_typed")
    assert typed.signatures[0].ok and typed.signatures[0].return_type == "list(float64)<iv=None>"


def test_object_mode_and_lifted_loop(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "object_mode.py")
    (object_mode,) = by_code(result, "object-mode")
    assert text_at(source, object_mode) == "summarise"
    (lifted,) = by_code(result, "loop-lifted")
    assert text_at(source, lifted) == "for i in range(len(values)):"
    (function,) = result.functions
    assert function.signatures[0].mode == "object"
    assert function.signatures[0].lifted_loops == [11]


def test_parallel_with_nothing_to_parallelise(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "parallel_nothing.py")
    (warning,) = by_code(result, "performance")
    assert warning.severity == "warning"
    assert text_at(source, warning) == "parallel=True"
    assert "no transformation for parallel execution was possible" in warning.message


def test_kernels_are_clean_with_types_for_hover(examples_engine, examples_dir: Path) -> None:
    result, _source = _analyze(examples_engine, examples_dir / "kernels.py")
    assert result.diagnostics == []
    functions = {f.name: f for f in result.functions}
    assert set(functions) == {"walk", "normalise", "stats"}
    walk = functions["walk"].signatures[0]
    assert walk.ok and walk.source == "annotation" and walk.return_type == "float64"
    assert walk.args == ["array(float64, 1d, A)", "int64"]
    variables = {(v.ssa_name, v.line): v for v in walk.variables}
    assert variables[("total", 13)].type == "float64"
    assert variables[("x", 15)].type == "float64"
    assert variables[("a", 12)].is_arg and variables[("n", 12)].type == "int64"
    # SSA versions of `total` are kept apart, each with the line it is defined on.
    assert {v.ssa_name for v in walk.variables if v.name == "total"} >= {"total", "total.1"}
    normalise = functions["normalise"].signatures[0]
    assert {v.name: v.type for v in normalise.variables}["out"] == "array(float64, 1d, C)"
    stats = functions["stats"].signatures[0]
    assert stats.return_type == "Tuple(UniTuple(float64 x 2), float64)"
    # call types: operators, builtins, methods and jitted callees, by line
    calls = {(c.line, c.name): c.signature for c in walk.call_types}
    assert calls[(16, "mul")] == "(float64, float64) -> float64"
    assert calls[(14, "range")] == "(int64) -> range_state_int64"
    assert {(c.line, c.name) for c in stats.call_types} == {(31, "min"), (32, "max"), (33, "walk")}
    assert functions["walk"].options == {"debug": True}


def test_no_false_errors_on_correct_code(ws) -> None:
    source = """
        import numpy as np
        from numba import njit, prange, literal_unroll
        from numba.typed import List, Dict
        from numba import types

        @njit
        def helper(x: float) -> float:
            return x * 2.0

        @njit(parallel=True)
        def par(a: "float64[:]"):
            out = np.empty_like(a)
            for i in prange(a.shape[0]):
                out[i] = helper(a[i])
            return out

        @njit
        def closures(n: int):
            def inner(k):
                return k + n
            return inner(3)

        @njit
        def unroll(t: "Tuple((int64, float64))"):
            total = 0.0
            for v in literal_unroll(t):
                total += v
            return total

        @njit
        def typed_containers(n: int):
            l = List.empty_list(types.float64)
            d = Dict.empty(types.int64, types.float64)
            for i in range(n):
                l.append(i * 1.0)
                d[i] = i * 2.0
            return len(l) + len(d)

        @njit
        def recursive(n: int) -> int:
            if n <= 1:
                return 1
            return n * recursive(n - 1)

        @njit
        def with_strings(s: str):
            return s.upper() + "!"

        @njit
        def matrices(a: "float64[:, :]", b: "float64[:, ::1]"):
            return a.T.copy() + b, a.shape, np.sum(a, axis=0)
        """
    result = ws.analyze("correct_code.py", source)
    assert result.status == "ok"
    assert [d for d in result.diagnostics if d.severity in ("error", "warning")] == []
    assert all(s.ok for f in result.functions for s in f.signatures)
    assert {f.name for f in result.functions if f.signatures} == {
        "helper",
        "par",
        "closures",
        "unroll",
        "typed_containers",
        "recursive",
        "with_strings",
        "matrices",
    }


def test_cuda_kernels_typed_with_the_mistake_at_the_operator(examples_engine, examples_dir: Path) -> None:
    result, source = _analyze(examples_engine, examples_dir / "cuda_kernels.py")
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert error.code == "typing-error" and error.function == "add_one"
    assert text_at(source, error) == "+"  # the operator, as for CPU functions
    assert "add(float64, UniTuple(int64 x 2))" in error.message or "add(float64, Tuple(" in error.message
    functions = {f.name: f for f in result.functions}
    assert {f.kind for f in functions.values()} == {"cuda"}
    scale = functions["scale"].signatures[0]
    assert scale.ok and scale.source == "python-caller" and scale.return_type == "none"
    assert scale.args == ["array(float64, 1d, C)", "float64", "array(float64, 1d, C)"]
    assert {v.name: v.type for v in scale.variables}["i"] == "int64"
    scaled = functions["scaled"].signatures[0]  # the device function: typed from the kernel's call
    assert (
        scaled.source == "caller"
        and scaled.args == ["float64", "float64"]
        and scaled.return_type == "float64"
    )
