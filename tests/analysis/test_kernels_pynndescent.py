"""On code nobody here wrote: pynndescent (a test dependency) hands jitted distance functions to its jitted
graph code and has lazy @vectorize kernels. A small workload of its own functions runs under `record` on a
copy of the package (so its functions are workspace code); the analysis then types `init_random`, which
takes a distance function as an argument, and the lazy ufunc `correct_alternative_cosine`, from the file."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.lsp.hover import HoverContext, function_markdown
from pyserver.lsp.views import AnalysedDocument, function_views

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(1800)

WORKLOAD = """
import os

import numpy as np
import pynndescent
from pynndescent.distances import correct_alternative_cosine, euclidean
from pynndescent.pynndescent_ import init_random
from pynndescent.utils import make_heap

assert os.path.dirname(os.path.dirname(os.path.realpath(pynndescent.__file__))) == os.getcwd()
data = np.random.RandomState(0).rand(20, 3).astype(np.float32)
heap = make_heap(20, 5)
init_random(5, data, heap, euclidean, np.array([12345, 67890, 13579], dtype=np.int64))
print(correct_alternative_cosine(np.array([0.5, 1.0])))
"""


def test_a_distance_function_argument_and_a_lazy_ufunc(tmp_path: Path) -> None:
    spec = importlib.util.find_spec("pynndescent")
    assert spec is not None and spec.origin, "pynndescent is a test dependency: pip install -e '.[dev]'"
    shutil.copytree(
        Path(spec.origin).parent, tmp_path / "pynndescent", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "workload.py").write_text(WORKLOAD)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_CACHE_DIR", None)
    recorded = subprocess.run(
        [sys.executable, "-m", "pyserver", "record", "--", sys.executable, "workload.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert recorded.returncode == 0, recorded.stderr[-3000:]
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    assert data["notes"] == []  # nothing skipped
    [init_random] = data["functions"]["pynndescent/pynndescent_.py::init_random"]
    assert init_random["args"][3] == "dispatcher(euclidean)"
    assert init_random["types"][3] == {
        "kind": "dispatcher",
        "module": "pynndescent.distances",
        "qualname": "euclidean",
        "path": "pynndescent/distances.py",
    }
    [loop] = data["functions"]["pynndescent/distances.py::correct_alternative_cosine"]
    assert (loop["args"], loop["kernel"], loop["returns"]) == (["float64"], "vectorize", "float64")

    engine = AnalysisEngine(tmp_path, timeout_s=600.0)
    engine.start()
    try:
        graph = engine.analyze(tmp_path / "pynndescent" / "pynndescent_.py")
        distances_path = tmp_path / "pynndescent" / "distances.py"
        distances_source = distances_path.read_text()
        distances = engine.analyze(distances_path, distances_source)
    finally:
        engine.close()
    [signature] = next(f for f in graph.functions if f.name == "init_random").signatures
    assert (signature.source, signature.ok, signature.args[3]) == ("recorded", True, "dispatcher(euclidean)")
    d = [v for v in signature.variables if v.name == "d"]
    assert d and all(v.type == "float32" for v in d)  # what the distance function returns, as `locals` says
    assert not [x for x in graph.diagnostics if x.function == "init_random" and x.severity == "error"]
    info = next(f for f in graph.functions if f.name == "init_random")
    assert len(info.compiles) == 1 and info.compiles[0].seconds > 0

    [kernel] = next(f for f in distances.functions if f.name == "correct_alternative_cosine").signatures
    assert (kernel.args, kernel.source, kernel.return_type) == (["float64"], "recorded", "float64")
    document = AnalysedDocument(distances_path.as_uri(), str(distances_path), distances_source, 1, distances)
    view = next(
        v
        for v in function_views(distances_source, document)
        if v.current.name == "correct_alternative_cosine"
    )
    assert "loop `float64(float64)`" in function_markdown(view, view.info, HoverContext())
