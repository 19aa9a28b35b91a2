"""Every argument-type source: decorator, annotations, recorded runs, cache index files, callers; and no guess."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from analysis_helpers import by_code, text_at
from numba import types

from pyserver.record import store, types_codec


def _signatures(result, name):
    function = next(f for f in result.functions if f.name == name)
    return [(s.source, s.args, s.ok) for s in function.signatures]


def test_decorator_signatures_in_every_form(ws) -> None:
    result = ws.analyze(
        "src_decorator.py",
        """
        from numba import njit, jit, int64, float64
        import numba

        @njit("int64(int64)")
        def one(x):
            return x + 1

        @jit(["int64(int64)", "float64(float64)"], nopython=True)
        def many(x):
            return x * 2

        @njit(float64(float64[:]))
        def typed_signature(a):
            return a.sum()

        @numba.njit((int64, float64))
        def tuple_of_types(a, b):
            return a + b
        """,
    )
    assert result.status == "ok", result.diagnostics
    assert _signatures(result, "one") == [("decorator", ["int64"], True)]
    assert _signatures(result, "many") == [("decorator", ["int64"], True), ("decorator", ["float64"], True)]
    assert _signatures(result, "typed_signature") == [("decorator", ["array(float64, 1d, A)"], True)]
    assert _signatures(result, "tuple_of_types") == [("decorator", ["int64", "float64"], True)]
    assert result.diagnostics == []


def test_a_failing_signature_does_not_hide_the_rest(ws) -> None:
    source = """
        from numba import njit

        @njit("int64(int64)")
        def broken(x):
            return x + (1, 2)

        @njit("float64(int65)")
        def bad_signature(x):
            return x

        VALUE = broken  # module code after the failing function still runs

        @njit("float64(float64)")
        def later(x):
            return x * 0.5
        """
    result = ws.analyze("src_failing_sig.py", source)
    assert result.status == "ok"
    assert _signatures(result, "later") == [("decorator", ["float64"], True)]
    assert [d.function for d in by_code(result, "typing-error")] == ["broken", "bad_signature"]
    invalid = next(d for d in result.diagnostics if d.function == "bad_signature")
    assert "Invalid signature 'float64(int65)'" in invalid.message
    assert text_at(source, invalid) == '@njit("float64(int65)")'
    assert not by_code(result, "analysis-failed")


def test_annotations_of_every_kind(ws) -> None:
    result = ws.analyze(
        "src_annotations.py",
        """
        import numpy as np
        from numba import njit, types, float32
        from numba.core.types import int16

        @njit
        def numba_types(a: float32[:, ::1], b: types.int64, c: int16):
            return a[0, 0] + b + c

        @njit
        def strings(a: "float64[:]", n: "intp", name: "unicode_type"):
            return a[n], name

        @njit
        def python_types(i: int, f: float, c: complex, b: bool):
            return i + f + c.real + b

        @njit
        def numpy_scalars(x: np.float32, y: np.int8, z: np.uint64):
            return x, y, z

        @njit
        def vague(a: np.ndarray, b):
            return a

        @njit
        def half_read(values: np.ndarray, alpha: float, n: "int64"):
            return values * alpha
        """,
    )
    assert result.status == "ok", result.diagnostics
    assert _signatures(result, "numba_types") == [
        ("annotation", ["array(float32, 2d, C)", "int64", "int16"], True)
    ]
    assert _signatures(result, "strings") == [
        ("annotation", ["array(float64, 1d, A)", "int64", "unicode_type"], True)
    ]
    assert _signatures(result, "python_types") == [
        ("annotation", ["int64", "float64", "complex128", "bool"], True)
    ]
    assert _signatures(result, "numpy_scalars") == [("annotation", ["float32", "int8", "uint64"], True)]
    # np.ndarray says nothing about dtype and layout: no guess, a no-signature note instead.
    assert _signatures(result, "vague") == []
    note, half = by_code(result, "no-signature")
    assert note.function == "vague" and note.severity == "information"
    assert "record" in note.message and note.data == {
        "function": "vague",
        "recorded": [],
        "params": ["a", "b"],
    }
    assert "Its annotation `a: numpy.ndarray` names no exact Numba type (an `np.ndarray` says" in note.message
    assert "annotate its parameters (a: <type of a>, b: <type of b>)" in note.message
    # the note names what it could not read, what it read, and asks only for the rest
    assert half.function == "half_read"
    assert (
        "Its annotation `values: numpy.ndarray` names no exact Numba type (an `np.ndarray` says nothing of the"
        " array's dtype, dimensions or layout: `float64[:]` does); `alpha: float` reads as float64, `n:"
        " int64` reads as int64." in half.message
    ), half.message
    assert "annotate its parameters (values: <type of values>)" in half.message
    assert '@njit("(<type of values>, <type of alpha>, <type of n>)")' in half.message


def test_postponed_annotations(ws) -> None:
    result = ws.analyze(
        "src_future.py",
        """
        from __future__ import annotations
        from numba import njit, float64

        @njit
        def f(a: float64[:], n: int):
            return a[n]
        """,
    )
    assert _signatures(result, "f") == [("annotation", ["array(float64, 1d, A)", "int64"], True)]


def test_recorded_signatures_round_trip_exactly(ws) -> None:
    name = "src_recorded.py"
    args_list = [
        (types.Array(types.float64, 1, "C"), types.int64),
        (types.Array(types.float64, 2, "F", readonly=True), types.int64),
    ]
    with store.locked(ws.root / store.DEFAULT_RELATIVE) as data:
        for args in args_list:
            encoded = types_codec.encode_all(args)
            assert encoded is not None
            store.merge(
                data, store.function_key(name, "walk"), store.Entry([str(a) for a in args], encoded, True)
            )
    result = ws.analyze(
        name,
        """
        from numba import njit

        @njit
        def walk(a, i):
            return a[i] if a.ndim == 1 else a[i, 0]

        @njit
        def other(x):
            return x
        """,
    )
    assert _signatures(result, "walk") == [
        ("recorded", ["array(float64, 1d, C)", "int64"], True),
        ("recorded", ["readonly array(float64, 2d, F)", "int64"], True),
    ]
    walk = next(f for f in result.functions if f.name == "walk")
    assert json.loads(walk.signatures[1].exact or "null") == types_codec.encode_all(args_list[1])
    assert [d.function for d in by_code(result, "no-signature")] == ["other"]


def test_cache_index_files(ws) -> None:
    path = ws.write(
        "src_cached.py",
        """
        import numpy as np
        from numba import njit

        @njit(cache=True)
        def cached(a, k):
            return a * k

        if __name__ == "__main__":
            cached(np.ones(3, dtype=np.float32), 2)
        """,
    )
    subprocess.run([sys.executable, str(path)], check=True, cwd=path.parent, timeout=120)
    assert list((path.parent / "__pycache__").glob("src_cached.cached-*.nbi"))
    result = ws.engine.analyze(path)
    assert _signatures(result, "cached") == [("cache", ["array(float32, 1d, C)", "int64"], True)]


def test_caller_types_flow_down_a_call_chain(ws) -> None:
    source = """
        from numba import njit

        @njit
        def leaf(x):
            return x * 2

        @njit
        def middle(x, y):
            return leaf(x) + y

        @njit
        def top(n: int):
            return middle(n, 1.5)
        """
    result = ws.analyze("src_callers.py", source)
    assert _signatures(result, "top") == [("annotation", ["int64"], True)]
    assert _signatures(result, "middle") == [("caller", ["int64", "float64"], True)]
    assert _signatures(result, "leaf") == [("caller", ["int64"], True)]
    assert result.diagnostics == []


def test_kernels_of_vectorize_guvectorize_cfunc(ws) -> None:
    source = """
        import numpy as np
        from numba import vectorize, guvectorize, cfunc

        @vectorize(["float64(float64, float64)"])
        def vadd(x, y):
            return x + y

        @vectorize(["float64(float64)"])
        def vbad(x):
            return x + "a"

        @guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
        def gcopy(x, out):
            for i in range(x.shape[0]):
                out[i] = x[i]

        @cfunc("float64(float64)")
        def cb(x):
            return x.imag_part

        RESULT = vadd(np.ones(2), 1.0)  # module code may use a ufunc at import
        """
    result = ws.analyze("src_kernels.py", source)
    assert result.status == "ok", result.diagnostics
    assert _signatures(result, "vadd") == [("decorator", ["float64", "float64"], True)]
    assert _signatures(result, "gcopy") == [
        ("decorator", ["array(float64, 1d, A)", "array(float64, 1d, A)"], True)
    ]
    errors = {d.function: d for d in result.diagnostics if d.severity == "error"}
    assert set(errors) == {"vbad", "cb"}
    assert text_at(source, errors["vbad"]) == "+"
    assert text_at(source, errors["cb"]) == "imag_part"
    assert "Unknown attribute 'imag_part'" in errors["cb"].message


def test_jitclass_methods_use_the_instance_type(ws) -> None:
    result = ws.analyze(
        "src_jitclass.py",
        """
        from numba import float64
        from numba.experimental import jitclass

        @jitclass([("x", float64)])
        class Point:
            def __init__(self, x: float):
                self.x = x

            def scaled(self, k: float):
                return self.x * k

            def broken(self, k: int):
                return self.y + k
        """,
    )
    signatures = {f.name: f.signatures for f in result.functions}
    assert signatures["Point.scaled"][0].ok and signatures["Point.scaled"][0].return_type == "float64"
    assert signatures["Point.scaled"][0].args[0].startswith("instance.jitclass.Point")
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert error.function == "Point.broken" and "Unknown attribute 'y'" in error.message


def test_nopython_false_is_a_deprecation_on_the_keyword(ws) -> None:
    source = """
        from numba import jit

        @jit(nopython=False)
        def f(x: int):
            return x
        """
    result = ws.analyze("src_nopython_false.py", source)
    (deprecation,) = by_code(result, "deprecation")
    assert text_at(source, deprecation) == "nopython=False"
    assert deprecation.tags == ["unnecessary"] and deprecation.data == {"kind": "nopython-false"}


def test_reflected_list_argument_is_deprecated(ws) -> None:
    name = "src_reflected.py"
    args = (types.List(types.int64, reflected=True),)
    encoded = types_codec.encode_all(args)
    assert encoded is not None
    with store.locked(ws.root / store.DEFAULT_RELATIVE) as data:
        store.merge(data, store.function_key(name, "total"), store.Entry([str(args[0])], encoded, True))
    result = ws.analyze(
        name,
        textwrap.dedent(
            """
            from numba import njit

            @njit
            def total(values):
                return sum(values)
            """
        ),
    )
    (deprecation,) = by_code(result, "deprecation")
    assert "reflected list" in deprecation.message and deprecation.function == "total"
    assert deprecation.severity == "warning"
    assert Path(deprecation.path).name == name


def test_calls_to_declared_signatures_resolve_like_numba(ws) -> None:
    source = """
        import numpy as np
        from numba import njit

        @njit("float64(float64)")
        def half(x):
            return x / 2

        @njit
        def converts(n: int):
            return half(n)

        @njit
        def no_match(a: "float64[:]"):
            return half(a)
        """
    result = ws.analyze("src_declared_callee.py", source)
    assert _signatures(result, "converts") == [("annotation", ["int64"], True)]
    assert next(f for f in result.functions if f.name == "converts").signatures[0].return_type == "float64"
    # Numba compiles only the declared signature: an array argument matches nothing.
    (error,) = [d for d in result.diagnostics if d.severity == "error"]
    assert error.function == "no_match" and text_at(source, error) == "half(a)"
    # and `half` keeps its one declared signature: no caller-made specialisation.
    assert _signatures(result, "half") == [("decorator", ["float64"], True)]


def test_a_redefined_function_is_checked_at_the_definition_that_counts(ws) -> None:
    source = """
        from numba import njit

        @njit
        def twice(x: int):
            return x + (1, 2)

        @njit
        def twice(x: int):
            return x + 1
        """
    result = ws.analyze("src_redefined.py", source)
    first, second = result.functions
    assert first.signatures == [] and second.signatures[0].ok
    assert [d for d in result.diagnostics if d.severity == "error"] == []


def test_recorded_signatures_that_cannot_be_used_are_listed_in_no_signature(ws) -> None:
    # A function is "unknown" only when nothing usable was recorded for it: what the file holds but cannot
    # be used (an exact encoding this Numba cannot read back, a type `record` could not store) is
    # listed in data.recorded, for the quick fix and the message.
    name = "src_unusable.py"
    key = store.function_key(name, "scaled")
    with store.locked(ws.root / store.DEFAULT_RELATIVE) as data:
        store.merge(
            data,
            key,
            store.Entry(
                ["array(float64, 1d, C)", "float128"],
                [
                    {
                        "kind": "array",
                        "dtype": {"kind": "named", "name": "float64"},
                        "ndim": 1,
                        "layout": "C",
                    },
                    {"kind": "named", "name": "float128"},  # e.g. recorded with another Numba
                ],
                True,
            ),
        )
        store.add_note(data, f"{key}: skipped (Acc, int64): cannot store Acc exactly")
    result = ws.analyze(
        name,
        """
        from numba import njit

        @njit
        def scaled(a, k):
            return a * k
        """,
    )
    (diagnostic,) = by_code(result, "no-signature")
    assert diagnostic.data == {
        "function": "scaled",
        "recorded": ["(array(float64, 1d, C), float128)", "(Acc, int64)"],
        "params": ["a", "k"],
    }
    assert "2 recorded signatures" in diagnostic.message


def test_the_note_says_what_a_parameterized_ndarray_annotation_gives(ws) -> None:
    """NumPy's typed forms (`ndarray[tuple[int], dtype[float64]]`, `npt.NDArray[np.float64]`) give the
    dtype and maybe the dimensions, never the layout: the note says which, not that they say nothing."""
    result = ws.analyze(
        "src_shaped_ndarrays.py",
        """
        import numpy as np
        import numpy.typing as npt
        from numba import njit

        Float64Array1D = np.ndarray[tuple[int], np.dtype[np.float64]]


        @njit
        def clip(sigma2: float, bounds: Float64Array1D) -> float:
            return min(sigma2, bounds[1])


        @njit
        def total(x: npt.NDArray[np.float64]) -> float:
            return x.sum()
        """,
    )
    assert _signatures(result, "clip") == [] and _signatures(result, "total") == []
    clip, total = by_code(result, "no-signature")
    assert (
        "(it gives its dtype (float64) and its dimensions (1), not its layout (C, F or any), which a Numba array"
        " type has: `float64[:]` is any layout, `float64[::1]` C); `sigma2: float` reads as float64."
    ) in clip.message, clip.message
    assert "(it gives its dtype (float64), not its dimensions or its layout" in total.message, total.message
    assert "says nothing" not in clip.message + total.message


def test_an_unused_jitclass_member_gets_advice_for_a_member(ws) -> None:
    """A property nothing reads has no types, and the fix is to use it: not an `@njit` signature or an
    annotation of `self`, which a jitclass member cannot take."""
    result = ws.analyze(
        "src_jitclass_member.py",
        """
        import numpy as np
        from numba import float32, int32
        from numba.experimental import jitclass


        @jitclass([("value", int32), ("array", float32[:])])
        class Bag:
            def __init__(self, value):
                self.value = value
                self.array = np.zeros(value, dtype=np.float32)

            @property
            def size(self):
                return self.array.size


        bag = Bag(21)
        """,
    )
    (note,) = [d for d in by_code(result, "no-signature") if d.function == "Bag.size"]
    assert "call it from Python, or use it (call it, or read it: a property)" in note.message
    assert "@njit(" not in note.message and "<type of self>" not in note.message
