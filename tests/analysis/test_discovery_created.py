"""Discovery from what Numba creates: every jitted function of a workspace file is found,
however it was made: a decorator, a call (`_step = numba.njit(_step_py, fastmath=True)`), a library's own
decorator wrapping nb.njit, a gufunc builder kept on an object. The source only places each one.

The fixture package tests/analysis/created_pkg uses each pattern (created_pkg/models.py)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.worker.discover.created import Created, place_created
from pyserver.analysis.worker.discover.discovery import find_jitted_functions
from pyserver.analysis.worker.discover.makes_jitted import may_make_jitted

PACKAGE = Path(__file__).resolve().parent / "created_pkg"
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests" / "lsp") not in sys.path:
    sys.path.append(str(ROOT / "tests" / "lsp"))  # the real pygls client harness

from lsp_session import start_session  # noqa: E402

# name -> (kind, [(args, return type, source)]) as the analysis must report them
DEFINITIONS = {
    "plain": ("njit", [(["float64"], "float64", "annotation")]),  # @numba.njit
    "_step_py": ("njit", [(["array(float64, 1d, A)", "float64"], "float64", "annotation")]),  # a call
    "_pdf": ("njit", [(["float64"], "float64", "annotation")]),  # the package's own @fast
    "nansum_kernel": (  # @ndreduce: a gufunc builder kept on the decorator object
        "guvectorize",
        [(["array(float64, 1d, A)", "array(float64, 1d, A)"], "none", "decorator")],
    ),
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(PACKAGE, tmp_path / "ws")
    return tmp_path / "ws"


def _typed(root: Path, loading: str) -> dict[str, tuple[str, list[tuple[list[str], str | None, str]]]]:
    engine = AnalysisEngine(root, timeout_s=120.0, loading=loading)
    try:
        result = engine.analyze(root / "created_pkg" / "models.py")
    finally:
        engine.close()
    assert result.status == "ok" and result.diagnostics == [], result.diagnostics
    return {
        f.name: (f.kind, [(s.args, s.return_type, s.source) for s in f.signatures]) for f in result.functions
    }


def test_the_source_alone_finds_only_the_decorated_function() -> None:
    source = (PACKAGE / "created_pkg" / "models.py").read_text()
    assert [f.name for f in find_jitted_functions(source)] == ["plain"]


def test_every_function_numba_created_is_found_and_typed_under_definitions_only_loading(
    workspace: Path,
) -> None:
    found = _typed(workspace, "definitions")
    # LAYOUT = Layout() (which builds a gufunc of _mean_kernel) is not a definition: it does not run;
    # the builder call in Layout.__init__ has literal signatures, so the loader makes that kernel again
    # (kernels_built_later), as the full load below makes it by running the module.
    assert found == {
        **DEFINITIONS,
        "_mean_kernel": (
            "guvectorize",
            [(["array(float64, 1d, A)", "array(float64, 1d, A)"], "none", "decorator")],
        ),
    }


def test_a_builder_made_by_an_object_created_at_import_is_found_when_the_module_loads_fully(
    workspace: Path,
) -> None:
    found = _typed(workspace, "full")
    assert found == {
        **DEFINITIONS,
        "_mean_kernel": (
            "guvectorize",
            [(["array(float64, 1d, A)", "array(float64, 1d, A)"], "none", "decorator")],
        ),
    }


def test_created_functions_are_placed_at_their_def_by_name_and_line() -> None:
    source = (PACKAGE / "created_pkg" / "models.py").read_text()
    lines = source.splitlines()
    step_def = lines.index("def _step_py(values: numba.float64[:], k: float):") + 1
    pdf_decorator = lines.index("@fast") + 1
    created = [
        Created("_step_py", step_def, "jit", {"fastmath": True, "nopython": True}),
        Created("_pdf", pdf_decorator, "jit", {"nopython": True}),
        Created("_pdf", pdf_decorator + 50, "jit", {}),  # another definition's line: not this text
        Created("nowhere", 3, "jit", {}),  # not defined here: nothing is invented
    ]
    placed = {f.name: f for f in place_created(find_jitted_functions(source), source, created)}
    assert sorted(placed) == ["_pdf", "_step_py", "plain"]
    step = placed["_step_py"]
    assert (step.def_line, step.decorator_line, step.origin, step.kind) == (
        step_def,
        step_def,
        "created",
        "njit",
    )
    assert step.options["fastmath"] is True and step.params == ["values", "k"]
    assert (
        step.created_line
        == lines.index("_step = numba.njit(_step_py, fastmath=True)  # made by a call (umap-learn style)") + 1
    )
    assert (placed["_pdf"].decorator_line, placed["_pdf"].def_line) == (pdf_decorator, pdf_decorator + 1)
    assert placed["plain"].origin == "decorator"


def test_which_modules_may_make_jitted_functions() -> None:
    assert may_make_jitted("from created_pkg._util import fast\n\n@fast\ndef f(x):\n    return x\n")
    assert may_make_jitted("from lib import wrap\n\ndef f(x):\n    return x\n\ng = wrap(f)\n")
    assert not may_make_jitted("import pathlib\n\nprint(pathlib.Path('.'))\n")
    assert not may_make_jitted("class A:\n    @property\n    def x(self):\n        return 1\n")
    # a parameter named like a method is the value passed in (pandapower's graph-tool adapter)
    adapter = (
        "from graph_tool import Graph\n\nclass Adapter(Graph):\n    def add_nodes_from(self, nodes):\n"
        "        self.add_vertex(nodes)\n\n    def nodes(self):\n        return set()\n"
    )
    assert not may_make_jitted(adapter)
    assert may_make_jitted(
        "from lib import wrap\n\ndef f(x):\n    return x\n\ndef g(f):\n    return wrap(f)\n\nh = wrap(f)\n"
    )


async def test_the_editor_shows_lenses_and_hovers_for_created_functions(workspace: Path) -> None:
    session = await start_session(workspace)
    try:
        name = "created_pkg/models.py"
        await session.open(name)
        lenses = await session.code_lenses(name)
        source = (workspace / name).read_text().splitlines()
        lens_lines = {lens.range.start.line + 1 for lens in lenses}
        for marker in ("def _step_py(", "@fast", "@ndreduce"):
            line = next(i for i, text in enumerate(source, 1) if text.startswith(marker))
            assert line in lens_lines, (marker, sorted(lens_lines))
        step_line = next(i for i, text in enumerate(source) if text.startswith("def _step_py("))
        hover = await session.hover_word(name, step_line + 2, "total")  # `total = 0.0` (1-based line)
        assert hover is not None and "float64" in hover
    finally:
        await session.shutdown()


CREATED_VS_SOURCE = """
import json, os, sys
root = sys.argv[1]
os.chdir(root)
from pyserver.analysis.worker.discover.discovery import find_jitted_functions
from pyserver.analysis.worker.load.loader import Loader, created_functions
loader = Loader(root)  # definitions-only loading, as the analysis worker does
report = {}
for name in sorted(os.listdir(os.path.join(root, "pynndescent"))):
    if name.endswith(".py"):
        path = os.path.join(root, "pynndescent", name)
        source = open(path).read()
        load = loader.load(path, source)
        decorated = [f.name for f in find_jitted_functions(source, path) if not f.nested]
        report[name] = {
            "decorated": decorated,
            "created": [c.qualname for c in created_functions(load.recorded)],
            "error": None if load.error is None else load.error.message,
        }
print(json.dumps(report))
"""


def test_on_pynndescent_what_numba_creates_under_definitions_loading_covers_every_decorated_function(
    tmp_path: Path,
) -> None:
    import json
    import subprocess

    spec = pytest.importorskip("pynndescent")
    shutil.copytree(
        Path(spec.__file__).parent, tmp_path / "pynndescent", ignore=shutil.ignore_patterns("__pycache__")
    )
    done = subprocess.run(
        [sys.executable, "-c", CREATED_VS_SOURCE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": f"{ROOT}:{tmp_path}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    total = 0
    for name, found in report.items():
        assert found["error"] is None, (name, found["error"])
        assert set(found["decorated"]) <= set(found["created"]), (
            name,
            set(found["decorated"]) - set(found["created"]),
        )
        total += len(found["created"])
    print(f"pynndescent: {total} jitted functions created while its modules loaded (definitions only)")
    assert total >= 300  # 325 in pynndescent 0.5.x; each module's own, none from another module
