"""Ufunc and gufunc kernels and functions passed as arguments, on a small package of our own that uses each
pattern: recorded by `record`, typed by the analysis per loop signature, and described in the words of
their kind (loop signatures, never an @njit signature) when their types are unknown."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult
from pyserver.analysis.worker.infer import kernels
from pyserver.lsp.hover import HoverContext, function_markdown, hover
from pyserver.lsp.lenses import code_lenses
from pyserver.lsp.views import AnalysedDocument, function_views

ROOT = Path(__file__).resolve().parents[2]

FUNCS = """
from numba import njit


@njit
def shifted_square(x):
    return x * x - 2.0
"""

CORE = """
from collections import namedtuple

import numpy as np
from numba import float64, guvectorize, njit, types, vectorize
from numba.extending import overload

Options = namedtuple("Options", ["tol", "max_iter"])


def clipped_total(a, low):
    return np.maximum(a, low).sum()


@overload(clipped_total)
def ol_clipped_total(a, low):
    if isinstance(a, types.Array) and a.ndim == 1:

        def impl(a, low):
            total = 0.0
            for value in a:
                total += max(value, low)
            return total

        return impl


@njit
def use_clip(a: "float64[:]"):
    return clipped_total(a, 0.5)


@njit
def bisect(g, a, b, options=Options(1e-10, 200)):
    for _ in range(options.max_iter):
        middle = 0.5 * (a + b)
        if g(a) * g(middle) <= 0.0:
            b = middle
        else:
            a = middle
        if b - a < options.tol:
            break
    return 0.5 * (a + b)


@vectorize
def lazy_add(a, b):
    return a + b


@vectorize
def lazy_scale(a, s):
    return a * s


@vectorize([float64(float64, float64)])
def eager_mul(a, b):
    return a * b


@guvectorize("(n),()->(n)")
def shift(x, k, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + k
"""

RUN = """
import numpy as np

from kpkg.core import bisect, eager_mul, lazy_add, shift, use_clip
from kpkg.funcs import shifted_square

print(bisect(shifted_square, 0.0, 2.0))
print(use_clip(np.arange(4.0)))
print(lazy_add(np.arange(3), np.arange(3)))
print(eager_mul(np.ones(2), np.ones(2)))
out = np.zeros((2, 3))
shift(np.ones((2, 3)), 2.0, out)
print(out)
"""


def write_package(root: Path) -> None:
    package = root / "kpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "funcs.py").write_text(textwrap.dedent(FUNCS))
    (package / "core.py").write_text(textwrap.dedent(CORE))
    (package / "run.py").write_text(textwrap.dedent(RUN))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, AnalysisEngine]]:
    root = tmp_path_factory.mktemp("kernels")
    write_package(root)
    proc = subprocess.run(
        [sys.executable, "-m", "pyserver", "record", "--", sys.executable, "-m", "kpkg.run"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    engine = AnalysisEngine(root, timeout_s=120.0)
    engine.start()
    try:
        yield root, engine
    finally:
        engine.close()


def analyse(root: Path, engine: AnalysisEngine, name: str) -> tuple[FileResult, str]:
    path = root / "kpkg" / name
    source = path.read_text()
    return engine.analyze(path, source), source


def hover_of(result: FileResult, source: str, path: Path, function: str) -> str:
    document = AnalysedDocument(path.as_uri(), str(path), source, 1, result)
    view = next(v for v in function_views(source, document) if v.current.name == function)
    return function_markdown(view, view.info, HoverContext())


def test_recorded_kernels_and_function_arguments_are_typed(recorded: tuple[Path, AnalysisEngine]) -> None:
    root, engine = recorded
    data = json.loads((root / ".numba-lens" / "signatures.json").read_text())
    assert data["notes"] == []
    [bisect] = data["functions"]["kpkg/core.py::bisect"]
    # A jitted function of another module, stored by its module and file.
    assert bisect["types"][0] == {
        "kind": "dispatcher",
        "module": "kpkg.funcs",
        "qualname": "shifted_square",
        "path": "kpkg/funcs.py",
    }
    result, source = analyse(root, engine, "core.py")
    signatures = {f.name: f.signatures for f in result.functions}
    assert [(s.args, s.source, s.ok, s.return_type) for s in signatures["bisect"]] == [
        (
            [
                "dispatcher(shifted_square)",
                "float64",
                "float64",
                "omitted(default=Options(tol=1e-10, max_iter=200))",
            ],
            "recorded",
            True,
            "float64",
        )
    ]
    # A ufunc loop per recorded signature: the lazy one typed from the run (int64 inputs).
    assert [(s.args, s.source, s.return_type) for s in signatures["lazy_add"]] == [
        (["int64", "int64"], "recorded", "int64")
    ]
    assert [(s.args, s.source) for s in signatures["shift"]] == [
        (["array(float64, 1d, A)", "float64", "array(float64, 1d, A)"], "recorded")
    ]
    assert not [d for d in result.diagnostics if d.severity == "error"]
    # Variables inside the gufunc kernel are typed.
    shift_vars = {v.name: v.type for v in signatures["shift"][0].variables}
    assert shift_vars["k"] == "float64" and shift_vars["out"] == "array(float64, 1d, A)"
    # The hover shows each loop as its decorator would declare it.
    path = root / "kpkg" / "core.py"
    text = hover_of(result, source, path, "shift")
    assert "loop `void(float64[:], float64, float64[:])` with layout `(n),()->(n)`" in text
    assert "loop `int64(int64, int64)`" in hover_of(result, source, path, "lazy_add")

    # The @overload implementation: typed from the run (its C-contiguous array) and from the jitted
    # caller the analysis typed (its annotation gives an A-layout array).
    overload_signatures = {tuple(s.args): s for s in signatures["ol_clipped_total"]}
    assert {k: (s.source, s.ok, s.return_type) for k, s in overload_signatures.items()} == {
        ("array(float64, 1d, C)", "float64"): ("recorded", True, "float64"),
        ("array(float64, 1d, A)", "float64"): ("caller", True, "float64"),
    }
    variables = {v.name: v.type for v in overload_signatures[("array(float64, 1d, C)", "float64")].variables}
    assert variables["total"] == "float64" and variables["value"] == "float64"
    text = hover_of(result, source, path, "ol_clipped_total")
    assert "`@overload(implements='clipped_total')`" in text
    # A variable of the implementation (a def nested in the typing function) has its hover.
    line = next(i for i, text in enumerate(source.splitlines()) if "total += max(value, low)" in text)
    document = AnalysedDocument(path.as_uri(), str(path), source, 1, result)
    answer = hover(source, document, line, source.splitlines()[line].index("total"), HoverContext())
    assert (
        answer is not None
        and "total: float64  # (array(float64, 1d, C), float64) -> float64" in answer.markdown
    )
    assert "(array(float64, 1d, C), float64) -> float64" in text


def test_kernels_without_types_are_advised_loop_signatures(tmp_path: Path) -> None:
    write_package(tmp_path)
    engine = AnalysisEngine(tmp_path, timeout_s=120.0)
    engine.start()
    try:
        result, source = analyse(tmp_path, engine, "core.py")
    finally:
        engine.close()
    notes = {d.function: d.message for d in result.diagnostics if d.code == "no-signature"}
    # a bare @vectorize that nothing calls gets its note; no type is made up where nothing shows one
    # ("no example"); the one run.py calls gets the loop of its inputs' dtypes (the loop the recorded
    # run compiled, see above)
    assert '@vectorize(["<result type>(<type of a>, <type of s>)"]); no example' in notes["lazy_scale"]
    assert "lazy_add" not in notes
    lazy_add = next(f for f in result.functions if f.name == "lazy_add")
    assert [(s.args, s.source, s.return_type) for s in lazy_add.signatures] == [
        (["int64", "int64"], "python-caller", "int64")
    ]
    # the dynamic gufunc run.py calls with its output gets the kernel Numba compiles for those arguments
    assert "shift" not in notes
    shift = next(f for f in result.functions if f.name == "shift")
    assert [(s.args, s.source) for s in shift.signatures] == [
        (["array(float64, 1d, A)", "float64", "array(float64, 1d, A)"], "python-caller")
    ]
    assert "@njit(" not in notes["lazy_scale"]
    assert (
        "annotate its parameters (g: <type of g>, a: <type of a>, b: <type of b>, options: <type of options>)"
        ": no example" in notes["bisect"]
    )
    assert not any("float64" in note for note in notes.values())
    path = tmp_path / "kpkg" / "core.py"
    hover = hover_of(result, source, path, "shift")
    assert "(array(float64, 1d, A), float64, array(float64, 1d, A))" in hover and "@njit" not in hover
    assert "every loop the run compiles is recorded" in hover_of(result, source, path, "lazy_scale")
    # Without a run, the @overload implementation still gets the types its checked jitted caller passes:
    # from its annotation (A layout) and from the Python call in run.py (np.arange: C layout).
    overload = next(f for f in result.functions if f.name == "ol_clipped_total")
    assert sorted((tuple(s.args), s.source, s.ok) for s in overload.signatures) == [
        (("array(float64, 1d, A)", "float64"), "caller", True),
        (("array(float64, 1d, C)", "float64"), "caller", True),
    ]
    document = AnalysedDocument(path.as_uri(), str(path), source, 1, result)
    def_line = source.splitlines().index("def ol_clipped_total(a, low):")
    titles = [lens.title for lens in code_lenses(path.as_uri(), source, document, busy=False, trusted=True)]
    overload_titles = [
        lens.title
        for lens in code_lenses(path.as_uri(), source, document, busy=False, trusted=True)
        if lens.line == def_line - 1
    ]
    assert len(overload_titles) == 1 and overload_titles[0].endswith(" · nopython ✓"), titles  # no Debug lens


def test_loop_signatures_in_words() -> None:
    assert kernels.loop_signature(
        "guvectorize", ["array(float64, 1d, A)", "array(int32, 2d, C)"], "none"
    ) == ("void(float64[:], int32[:, ::1])")
    assert (
        kernels.loop_signature("vectorize", ["float32", "float32"], "float32") == "float32(float32, float32)"
    )
    assert kernels.loop_signature("njit", ["float64"], "float64") is None
    assert kernels.loop_signature("guvectorize", ["readonly array(float64, 1d, C)"], None) is None
    assert kernels.layout_dimensions("(m,n),(n)->(m)") == ([2, 1], [1])
    assert kernels.example_loop_signature("guvectorize", ["a", "out"], {"layout": "(n)->()"}) == (
        '@guvectorize(["void(<type of a>[:], <type of out>[:])"], "(n)->()")'
    )
    assert kernels.annotation_example(["a", "out"]) == "a: <type of a>, out: <type of out>"
    # no return type (a function may return nothing), no `self` (a jitclass method's instance)
    assert kernels.njit_signature_example(["a", "out"]) == "(<type of a>, <type of out>)"
    assert kernels.njit_signature_example(["self", "n"]) == "(<type of n>,)"
