"""Small reproductions of what the pynndescent corpus exercises, each checked against Python or Numba
themselves in the same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine

PACKAGE = {
    "pkg/__init__.py": """
        from pkg.core import scale

        __all__ = ["scale"]
        """,
    "pkg/helpers.py": """
        from numba import njit


        @njit
        def twice(x: float):
            return 2.0 * x
        """,
    "pkg/core.py": """
        from numba import njit

        from pkg.helpers import twice


        @njit
        def scale(x: float):
            y = twice(x)
            return y
        """,
}


@pytest.fixture
def package(tmp_path: Path) -> Path:
    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


@pytest.fixture
def engine(package: Path) -> Iterator[AnalysisEngine]:
    engine = AnalysisEngine(package, timeout_s=120.0)
    yield engine
    engine.close()


def _errors(result: object) -> list[str]:
    return [f"{d.code}: {d.message}" for d in result.diagnostics if d.severity == "error"]  # type: ignore[attr-defined]


def test_a_package_module_loads_after_its_package_as_python_imports_it(
    package: Path, engine: AnalysisEngine
) -> None:
    # Python imports pkg (its __init__ imports pkg.core) before pkg.core: this works.
    plain = subprocess.run(
        [sys.executable, "-c", "import pkg.core; print(pkg.core.scale(2.0))"],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert plain.returncode == 0 and plain.stdout.strip() == "4.0", plain.stderr[-2000:]
    # pynndescent/distances.py and eight more of its modules failed like this ("cannot import name
    # 'kantorovich' from 'pynndescent.distances'"): the loader runs pkg/core.py as `pkg.core` before
    # `pkg` is imported, so pkg/__init__.py finds a half-run pkg.core.
    result = engine.analyze(package / "pkg" / "core.py")
    assert _errors(result) == []
    scale = next(f for f in result.functions if f.name == "scale")
    assert scale.signatures and scale.signatures[0].return_type == "float64"


def test_analysing_a_package_init_keeps_the_package_a_package(package: Path, engine: AnalysisEngine) -> None:
    # The editor opens __init__.py: after that, the package's other modules must still import.
    engine.analyze(package / "pkg" / "__init__.py")
    result = engine.analyze(package / "pkg" / "core.py")
    assert _errors(result) == []  # was: "No module named 'pkg.helpers'; 'pkg' is not a package"


DECLARED_HELPER = """
from numba import njit


@njit("f4(f8)")
def half(x):
    return x / 2
"""

DECLARED = """
from numba import njit

from declared_helper import half


@njit
def caller(x: float):
    y = half(x)
    return y
"""


def test_a_call_to_a_function_with_a_declared_signature_has_its_declared_return_type(tmp_path: Path) -> None:
    """pynndescent's `norm` (pynndescent/utils.py) is declared `f4(f4[::1])`: Numba types
    `norm1 = norm(data1)` in pynndescent/sparse.py as float32 although the body computes a float64."""
    import numba

    (tmp_path / "declared_helper.py").write_text(DECLARED_HELPER, encoding="utf-8")
    (tmp_path / "declared.py").write_text(DECLARED, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        namespace: dict[str, object] = {}
        exec(compile(DECLARED, "<declared>", "exec"), namespace)
        caller = namespace["caller"]
        caller(3.0)  # type: ignore[operator]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("declared_helper", None)
    overload = caller.overloads[(numba.float64,)]  # type: ignore[attr-defined]
    numba_y = str(overload.type_annotation.typemap["y"])
    assert numba_y == "float32"

    engine = AnalysisEngine(tmp_path, timeout_s=120.0)
    try:
        result = engine.analyze(tmp_path / "declared.py")
    finally:
        engine.close()
    function = next(f for f in result.functions if f.name == "caller")
    (y,) = [v for v in function.signatures[0].variables if v.name == "y"]
    assert y.type == numba_y
    assert function.signatures[0].return_type == str(overload.signature.return_type)


EXEC_STRING = """
from numba import njit

namespace = {"njit": njit}
exec("@njit\\ndef made_at_run_time(x):\\n    return x + 1\\n", namespace)
print(namespace["made_at_run_time"](1))
"""


def test_record_skips_functions_compiled_from_strings(tmp_path: Path) -> None:
    """Seen recording pynndescent's NNDescent: `<string>::ctor.<locals>.impl` (a function Numba builds
    with exec) was recorded as if it were a file of the workspace."""
    (tmp_path / "script.py").write_text(EXEC_STRING, encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "pyserver", "record", "--", sys.executable, "script.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])),
    )
    assert completed.returncode == 0 and completed.stdout.strip() == "2", completed.stderr[-2000:]
    signatures = tmp_path / ".numba-lens" / "signatures.json"
    recorded = json.loads(signatures.read_text())["functions"] if signatures.exists() else {}
    assert [key for key in recorded if key.startswith("<string>")] == []
