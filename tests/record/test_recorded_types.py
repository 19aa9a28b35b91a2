"""A recorded compile is a full source of types: `record` keeps Numba's typemap of every compile, and
`check` shows it for functions it cannot type again by itself (a closure made by a factory, an @overload
implementation, a @stencil kernel, twin dispatchers), while the function's text is unchanged. The
truth is Numba's own: the program dumps the typemap of every dispatcher of its file after it ran."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from record_helpers import pyserver

from pyserver.analysis.engine import AnalysisEngine
from pyserver.lsp.hover import HoverContext, hover
from pyserver.lsp.inlay import inlay_hints
from pyserver.lsp.lenses import code_lenses
from pyserver.lsp.views import AnalysedDocument

PROGRAM = """
import gc
import json
import sys

import numpy as np
from numba import int64, njit, prange, stencil, types
from numba.core.dispatcher import Dispatcher
from numba.experimental import jitclass
from numba.extending import overload


def make_weighted_sum(weights):
    w = np.asarray(weights, dtype=np.float64)

    @njit
    def weighted(values):
        total = 0.0
        for i in range(w.size):
            total += w[i] * values[i]
        return total

    return weighted


def saturate(x, limit):
    return min(x / limit, 1.0)


@overload(saturate)
def ol_saturate(x, limit):
    def impl(x, limit):
        ratio = x / limit
        return min(ratio, 1.0)

    return impl


@njit
def saturate_all(values, limit):
    out = np.empty_like(values)
    for i in range(values.size):
        out[i] = saturate(values[i], limit)
    return out


def scale(x):
    return x


@overload(scale)
def ol_scale(x):
    if isinstance(x, types.Integer):
        def impl(x):
            doubled = x * 2
            return doubled

        return impl

    def impl(x):
        halved = x / 2.0
        return halved

    return impl


@njit
def scale_both(a, b):
    return scale(a), scale(b)


@stencil
def smooth(a):
    return (a[-1] + a[0] + a[1]) / 3.0


def total(v):
    s = 0.0
    for i in prange(v.shape[0]):
        s += v[i] * 2.0
    return s


total_parallel = njit(parallel=True)(total)
total_serial = njit(total)


def make_counter_class():
    @jitclass([("count", int64)])
    class Counter:
        def __init__(self):
            self.count = 0

    return Counter


@njit
def bump(counter, n):
    for _ in range(n):
        counter.count += 1
    return counter.count


if __name__ == "__main__":
    weighted = make_weighted_sum([1.0, 2.0, 3.0])
    weighted(np.ones(3))
    saturate_all(np.linspace(0.0, 4.0, 9), 2.0)
    scale_both(3, 4.0)
    smooth(np.arange(10.0))
    values = np.arange(100.0)
    total_parallel(values)
    total_serial(values)
    bump(make_counter_class()(), 3)
    truth = []
    dispatchers = []
    for obj in gc.get_objects():
        try:
            if isinstance(obj, Dispatcher) and obj.py_func.__code__.co_filename == __file__:
                dispatchers.append(obj)
        except ReferenceError:  # a dead weak proxy
            continue
    for obj in dispatchers:
        for sig, cres in obj.overloads.items():
            truth.append({
                "name": obj.py_func.__qualname__,
                "parallel": bool(obj.targetoptions.get("parallel")),
                "args": [str(a) for a in sig],
                "returns": str(cres.signature.return_type),
                "typemap": {k: str(t) for k, t in cres.type_annotation.typemap.items()},
            })
    json.dump(truth, sys.stdout)
"""


def plain(text: str) -> str:
    """A type's text without the jitclass's address (`instance.jitclass.Counter#7f...<count:int64>`), as
    `record` spells it: an address means nothing in another process."""
    return re.sub(r"#[0-9a-f]+(?=<)", "", text)


def check(cwd: Path) -> dict[str, Any]:
    proc = pyserver(cwd, "check", "prog.py", "--format", "json", "--variables")
    assert proc.stdout, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def functions(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [f for f in result["functions"] if f["name"] == name]


def signatures(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [s for f in functions(result, name) for s in f["signatures"]]


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The program recorded once: its folder (with .numba-lens/signatures.json) and Numba's truth."""
    folder = tmp_path_factory.mktemp("recorded")
    (folder / "prog.py").write_text(PROGRAM)
    proc = pyserver(folder, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    truth: list[dict[str, Any]] = json.loads(proc.stdout)
    return folder, truth


def copy_of(recorded_run: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> Path:
    shutil.copytree(recorded_run[0], tmp_path / "run")
    return tmp_path / "run"


def test_closures_overload_implementations_stencils_and_twins_show_numbas_types(
    recorded_run: tuple[Path, list[dict[str, Any]]],
) -> None:
    folder, truth = recorded_run
    names = {t["name"] for t in truth}
    assert {
        "make_weighted_sum.<locals>.weighted",
        "ol_saturate.<locals>.impl",
        "saturate_all",
        "total",
    } <= names
    assert sum(t["name"] == "total" for t in truth) == 2  # the parallel and the serial dispatcher
    # A jitclass made in a function: its instances' type cannot be stored exactly (no module-level name)
    assert "bump" in names and "make_counter_class.<locals>.Counter.__init__" in names
    result = check(folder)
    compared = 0
    for compiled in truth:
        args = [plain(a) for a in compiled["args"]]
        ours = [s for s in signatures(result, compiled["name"]) if s["args"] == args]
        twin = compiled["name"] == "total"
        if twin:  # two entries: each dispatcher's compile with its own types
            ours = [s for s in ours if s["options"]["parallel"] == compiled["parallel"]]
        assert ours, (compiled["name"], compiled["args"], signatures(result, compiled["name"]))
        signature = ours[0]
        assert signature["variables"], signature
        for variable in signature["variables"]:
            numba_type = compiled["typemap"].get(variable["ssa_name"])
            if numba_type is not None:
                assert variable["numba_type"] == plain(numba_type), (compiled["name"], variable)
                compared += 1
        assert signature["return_type"] == plain(compiled["returns"])
    assert compared >= 15
    # The closure and the overload's implementation are checked only from their recorded compiles.
    [closure] = signatures(result, "make_weighted_sum.<locals>.weighted")
    assert closure["source"] == "recorded"
    variables = {v["ssa_name"]: v for v in closure["variables"]}
    assert variables["total"]["line"] == PROGRAM.splitlines().index("        total = 0.0") + 1
    [implementation] = signatures(result, "ol_saturate.<locals>.impl")
    assert implementation["args"] == ["float64", "float64"]
    # Two implementations of one name, one per kind of argument: each shows only what it was typed for.
    integer_impl, float_impl = sorted(functions(result, "ol_scale.<locals>.impl"), key=lambda f: f["line"])
    assert [s["args"] for s in integer_impl["signatures"]] == [["int64"]]
    assert [s["args"] for s in float_impl["signatures"]] == [["float64"]]
    # A compile whose argument types cannot be stored exactly still shows what Numba typed.
    [bumped] = signatures(result, "bump")
    assert bumped["source"] == "recorded" and bumped["args"][0].startswith("instance.jitclass.Counter<")
    # Twin dispatchers stay two signatures, one per dispatcher.
    twins = [s for s in signatures(result, "total") if s["args"] == ["array(float64, 1d, C)"]]
    assert sorted(s["options"]["parallel"] for s in twins) == [False, True]
    # The stencil's kernel: typed when the program applied it (Numba's typing of the kernel).
    [kernel] = signatures(result, "smooth")
    assert kernel["args"] == ["array(float64, 1d, C)"]
    assert kernel["return_type"] == "array(float64, 1d, C)"
    assert {v["name"]: v["type"] for v in kernel["variables"]}["a"] == "array(float64, 1d, C)"


def test_an_edited_function_shows_unknown_and_a_moved_one_keeps_its_types(
    recorded_run: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    folder = copy_of(recorded_run, tmp_path)
    before = check(folder)
    [impl_before] = signatures(before, "ol_saturate.<locals>.impl")
    # A line above everything moves every function; the closure's body changes.
    edited = "# a comment above\n" + PROGRAM.replace(
        "total += w[i] * values[i]", "total += w[i] * values[i] * 1.0"
    )
    (folder / "prog.py").write_text(edited)
    after = check(folder)
    assert not any(s["variables"] for s in signatures(after, "make_weighted_sum.<locals>.weighted"))
    notes = [
        d
        for d in after["diagnostics"]
        if d["code"] == "no-signature" and d["function"] == "make_weighted_sum.<locals>.weighted"
    ]
    assert notes and "recorded for an older version of this function" in notes[0]["message"]
    [impl_after] = signatures(after, "ol_saturate.<locals>.impl")
    lines_before = {v["ssa_name"]: v["line"] for v in impl_before["variables"]}
    lines_after = {v["ssa_name"]: v["line"] for v in impl_after["variables"]}
    assert lines_after == {name: line + 1 for name, line in lines_before.items()}
    assert [v["numba_type"] for v in impl_after["variables"]] == [
        v["numba_type"] for v in impl_before["variables"]
    ]


def test_the_editor_shows_recorded_types_in_hovers_hints_and_lenses(
    recorded_run: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    folder = copy_of(recorded_run, tmp_path)
    path = folder / "prog.py"
    engine = AnalysisEngine(folder, timeout_s=300.0)
    try:
        result = engine.analyze(path, PROGRAM)
    finally:
        engine.close()
    document = AnalysedDocument(path.as_uri(), str(path), PROGRAM, 1, result)
    lines = PROGRAM.splitlines()
    total_line = lines.index("            total += w[i] * values[i]")  # 0-based, inside the closure
    answer = hover(PROGRAM, document, total_line, lines[total_line].index("total"), HoverContext())
    assert answer is not None and "float64" in answer.markdown
    low_line = lines.index("        ratio = x / limit")  # inside the overload's implementation
    hints = inlay_hints(
        PROGRAM, document, low_line, low_line, variable_types=True, return_types=True, max_length=60
    )
    assert [h.label for h in hints if h.kind == "type"] == [": float64"]
    lenses = code_lenses(path.as_uri(), PROGRAM, document, busy=False, trusted=True)
    closure_decorator = lines.index("    def weighted(values):") - 1  # a lens sits on the first decorator
    assert any(lens.line == closure_decorator and "float64" in lens.title for lens in lenses), [
        (lens.line, lens.title) for lens in lenses
    ]


BRANCHES = """
import json
import sys

import numpy as np
from numba import njit
from numba.extending import register_jitable


def make_source(kind):
    table = np.arange(3.0)
    if kind == "table":

        @njit
        def source():
            return table

    else:

        @njit
        def source():
            return 1.5

    return source


def make_step(kind):
    base = np.array(2)
    if kind == "a":

        @register_jitable(inline="always")
        def step():
            return base

    else:

        @register_jitable(inline="always")
        def step():
            return base

    @njit
    def run(x):
        return x + step()

    return run


if __name__ == "__main__":
    truth = []
    for kind in ("table", "one"):
        made = make_source(kind)
        made()
        for sig, cres in made.overloads.items():
            truth.append([made.py_func.__code__.co_firstlineno, str(cres.signature.return_type)])
    make_step("a")(1.0)
    make_step("b")(1.0)
    json.dump(truth, sys.stdout)
"""


def test_same_named_closures_of_a_factorys_branches_keep_their_own_types(tmp_path: Path) -> None:
    """A factory that defines a function of one name in each branch makes two functions: `record` keeps
    each compile under its own definition (the texts may even be the same), and `check` shows each its
    own types. A closure with no parameter and no local of its own (`return table`) has an empty typemap
    of named variables, and its recorded return type is still its type."""
    (tmp_path / "prog.py").write_text(BRANCHES)
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    truth = {line: returns for line, returns in json.loads(proc.stdout)}
    assert sorted(truth.values()) == ["float64", "readonly array(float64, 1d, C)"]
    result = check(tmp_path)
    shown = {
        f["line"] - 1: [(s["args"], s["return_type"], s["source"]) for s in f["signatures"]]  # its decorator
        for f in functions(result, "make_source.<locals>.source")
    }
    assert shown == {line: [([], returns, "recorded")] for line, returns in truth.items()}, shown
    steps = functions(result, "make_step.<locals>.step")
    assert len(steps) == 2 and all(
        [(s["args"], s["return_type"]) for s in f["signatures"]] == [([], "readonly array(int64, 0d, C)")]
        for f in steps
    ), steps


RENAMED = """
import numpy as np
from numba import njit


def build(name, scale):
    def kernel(values):
        step = scale
        total = 0.0
        for value in values:
            total += value * step
        return total

    # a name per operation, given before jitting (Numba's symbols and cache files read it)
    kernel.__qualname__ = kernel.__name__ = f"{name}_kernel"
    return njit(kernel)


if __name__ == "__main__":
    build("double", 2.0)(np.arange(3.0))
    build("twice", 2)(np.arange(3.0))
    build("count", 1)(np.arange(3))
"""


def test_a_function_renamed_before_jitting_gets_its_recorded_types_at_its_def(tmp_path: Path) -> None:
    """`record` keeps each compile under the function's runtime name (`double_kernel`, `count_kernel`);
    no `def` has those names, but their recorded text is the text of `build.<locals>.kernel`: they become
    that function's signatures, and the editor shows them there. Two closures compiled for the same
    argument types (`double`, `twice`) that type a variable differently (`step`) leave it unknown."""
    (tmp_path / "prog.py").write_text(RENAMED)
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    result = check(tmp_path)
    shown = {
        s["args"][0]: (s["return_type"], s["source"], {v["name"]: v["type"] for v in s["variables"]})
        for s in signatures(result, "build.<locals>.kernel")
    }
    assert shown == {
        "array(float64, 1d, C)": (
            "float64",
            "recorded",
            {"values": "array(float64, 1d, C)", "total": "float64", "value": "float64"},
        ),
        "array(int64, 1d, C)": (
            "float64",
            "recorded",
            {
                "values": "array(int64, 1d, C)",
                "step": "int64 (literal 1)",
                "total": "float64",
                "value": "int64",
            },
        ),
    }, result["functions"]
    assert not functions(result, "double_kernel") and not functions(result, "count_kernel")
    engine = AnalysisEngine(tmp_path, timeout_s=300.0)
    try:
        analysed = engine.analyze(tmp_path / "prog.py", RENAMED)
    finally:
        engine.close()
    path = tmp_path / "prog.py"
    document = AnalysedDocument(path.as_uri(), str(path), RENAMED, 1, analysed)
    lines = RENAMED.splitlines()
    value_line = lines.index("        for value in values:")
    hints = inlay_hints(
        RENAMED, document, value_line, value_line, variable_types=True, return_types=True, max_length=60
    )
    labels = [h.label for h in hints if h.kind == "type"]
    assert len(labels) == 1 and sorted(labels[0].removeprefix(": ").split(" | ")) == ["float64", "int64"], (
        labels
    )


SAME_NAME_CLOSURES = """
import numpy as np
from numba import njit


def make(offset):
    @njit
    def shift(values):
        step = offset
        return values[0] + step

    return shift


if __name__ == "__main__":
    make(1)(np.arange(3.0))
    make(2.5)(np.arange(3.0))
    make(1)(np.arange(3.0))
"""


def test_closures_of_one_name_typing_a_variable_differently_for_the_same_arguments_leave_it_unknown(
    tmp_path: Path,
) -> None:
    """Two closures of `make.<locals>.shift` (offset 1, then 2.5) compile for the same argument types:
    `record` keeps one entry for those types, with the variables both typed alike; `step` (an int, then a
    float) is unknown rather than the first closure's type. A third compile changes nothing."""
    (tmp_path / "prog.py").write_text(SAME_NAME_CLOSURES)
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    result = check(tmp_path)
    shown = [
        (s["args"], s["return_type"], {v["name"]: v["type"] for v in s["variables"]})
        for s in signatures(result, "make.<locals>.shift")
    ]
    assert shown == [(["array(float64, 1d, C)"], "float64", {"values": "array(float64, 1d, C)"})], shown


JITTED_ELSEWHERE = {
    "formulas.py": """
import math

open("FORMULAS_RAN", "a").write("ran")  # the analysis must never run this module


def rho(x, y):
    total = x * x + y * y
    return math.sqrt(total)
""",
    "backend.py": """
import numba

import formulas

for function in (formulas.rho,):
    numba.extending.register_jitable(function)


@numba.njit
def norm(x, y):
    return formulas.rho(x, y)
""",
    "prog.py": """
from backend import norm

norm(3.0, 4.0)
""",
}


def test_functions_another_module_jits_at_run_time_show_their_recorded_types(tmp_path: Path) -> None:
    """`formulas.py` has no Numba decorator or jit call: `backend.py` registers its functions in a loop.
    After `record`, `check` lists `rho` with Numba's types, and never runs `formulas.py` for it."""
    for name, text in JITTED_ELSEWHERE.items():
        (tmp_path / name).write_text(text)
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "FORMULAS_RAN").unlink()
    checked = pyserver(tmp_path, "check", "formulas.py", "--format", "json", "--variables")
    result = json.loads(checked.stdout)
    shown = [
        (s["args"], s["return_type"], {v["name"]: v["type"] for v in s["variables"]})
        for s in signatures(result, "rho")
    ]
    assert shown == [
        (["float64", "float64"], "float64", {"x": "float64", "y": "float64", "total": "float64"})
    ], result
    assert not (tmp_path / "FORMULAS_RAN").exists()
