"""`numba.literally`: Numba's dispatcher catches `ForceLiteralArg` and compiles again with the requested
arguments as the literals of the values it was called with. Argument types carry no values, so the
analysis says such a signature's types are unknown, with the reason: never an error of the code, never
the non-literal types' variables; a jitted caller that passes its own argument is asked for it as a
literal in turn (unknown too). A jitted caller passes a constant as a literal type: that types."""

from __future__ import annotations

from analysis_helpers import Workspace, function_named

SOURCE = """
import numba
from numba import njit


@njit
def scaled(x, k):
    kk = numba.literally(k)
    return x * kk


@njit
def outer(x: "float64"):
    return scaled(x, 3)


@njit
def passes_its_own(x: "float64", k: "int64"):
    return scaled(x, k)  # Numba asks for this function's own k as a literal in turn


def main():
    print(scaled(2.0, 3))


def with_count(values):
    print(scaled(2.0, len(values)))  # a value known only when it runs


main()
with_count("abc")
"""

CONSTANTS_ONLY = SOURCE.replace('with_count("abc")\n', "")


def test_literally_is_unknown_without_values_and_typed_from_a_jitted_caller(ws: Workspace) -> None:
    # Numba itself: the dispatcher compiles scaled(2.0, 3) for a literal k, not for int64
    namespace: dict[str, object] = {}
    defines_only = SOURCE.replace("main()\n", "").replace('with_count("abc")\n', "")
    exec(compile(defines_only, "<literally>", "exec"), namespace)
    dispatcher = namespace["scaled"]
    dispatcher(2.0, 3)  # type: ignore[operator]
    (signature,) = dispatcher.signatures  # type: ignore[attr-defined]
    assert tuple(str(a) for a in signature) == ("float64", "Literal[int](3)")
    numba_types = {
        name: str(ty)
        for name, ty in dispatcher.overloads[signature].type_annotation.typemap.items()  # type: ignore[attr-defined]
    }

    result = ws.analyze("literally_use.py", SOURCE)
    assert [d.message for d in result.diagnostics if d.severity == "error"] == []
    by_args = {tuple(s.args): s for s in function_named(result, "scaled").signatures}
    plain = by_args[("float64", "int64")]  # the Python caller's types: the value 3 is not in them
    assert plain.mode == "unknown" and not plain.ok and plain.error_count == 0 and not plain.variables
    assert plain.unknown_reason is not None and "`k`" in plain.unknown_reason
    # the jitted caller passes the constant as Literal[int](3), as Numba's typing does
    literal = by_args[("float64", "Literal[int](3)")]
    ours = {v.name: v.literal or v.type for v in literal.variables}  # a literal is shown with its value
    assert literal.ok and "kk" in ours and "k" in ours
    assert {name: numba_types[name] for name in ours} == ours
    (outer,) = function_named(result, "outer").signatures
    assert outer.ok and outer.return_type == "float64"
    (passes,) = function_named(result, "passes_its_own").signatures
    assert passes.mode == "unknown" and passes.error_count == 0 and not passes.variables
    assert passes.unknown_reason is not None and "`k`" in passes.unknown_reason


def test_python_calls_with_constants_type_the_literal_form(ws: Workspace) -> None:
    result = ws.analyze("literally_constants.py", CONSTANTS_ONLY)
    assert [d.message for d in result.diagnostics if d.severity == "error"] == []
    shown = {tuple(s.args): (s.ok, s.source) for s in function_named(result, "scaled").signatures}
    # the top-level call's constant and the jitted caller's give the one literal form Numba compiles
    assert shown == {("float64", "Literal[int](3)"): (True, "python-caller")}
