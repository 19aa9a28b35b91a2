"""A package whose modules test a feature flag at import (`if deps.gpu_enabled: import cupy as cp`), where
the flag comes from a function the analysis never runs (it writes a file, prints): the flag has no value,
so the `if` does not run either, and the names it would bind have none; the rest of the module runs, the
package imports, and its modules, reached through the package's own circular imports (the `__init__`
imports a module that imports names back from the package), check with no error. Nothing writes
`deps.ran`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from analysis_helpers import check_json

ROOT = Path(__file__).resolve().parents[2]

DEPS = """\
import os
from importlib import util


def gpu_import():
    open(os.path.join(os.path.dirname(__file__), "deps.ran"), "w").write("ran")
    if util.find_spec("not_a_real_gpu_library") is None:
        return "not installed"
    try:
        import not_a_real_gpu_library  # noqa: F401
    except ImportError as error:
        print(UserWarning(error))
        return str(error)
    return None


gpu_enabled = gpu_import() is None
scale_factor = 2.0
"""

BACKEND = """\
import numpy as np

from featpkg import deps


def zeros(n):
    return np.zeros(n)


gp = None
GPU_SCALE = 1.0
FAST = False
if deps.gpu_enabled:
    import not_a_real_gpu_library as gp
    GPU_SCALE = gp.scale

if GPU_SCALE > 1:
    FAST = True

SCALE = deps.scale_factor


def get_module(x):
    return np
"""

INIT = """\
from .backend import *
from .base import Base
from .ops import Op, kernel
"""

BASE = """\
from featpkg import get_module


class Base:
    def module(self, x):
        return get_module(x)
"""

OPS = """\
import numba
import numpy as np

from featpkg import Base, deps
from featpkg.backend import SCALE, gp

if deps.gpu_enabled:
    import not_a_real_gpu_library as gpu_library


@numba.njit
def kernel(x):
    return x * SCALE


@numba.njit
def on_gpu(x):
    return gp.asarray(x)


@numba.njit
def on_gpu_library(x):
    return gpu_library.asarray(x)


class Op(Base):
    def apply(self, x):
        return kernel(x)


def run():
    return kernel(np.ones(3))


def run_on_gpu():
    return on_gpu(np.ones(3)), on_gpu_library(np.ones(3))
"""


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "featpkg"
    package.mkdir()
    for name, text in (
        ("deps", DEPS),
        ("backend", BACKEND),
        ("__init__", INIT),
        ("base", BASE),
        ("ops", OPS),
    ):
        (package / f"{name}.py").write_text(text)
    return package


def test_a_flag_without_value_leaves_out_only_what_it_guards(tmp_path: Path) -> None:
    package = _package(tmp_path)
    report = check_json(tmp_path, *(f"featpkg/{name}.py" for name in ("ops", "base", "backend")))
    assert not (package / "deps.ran").exists()
    assert report["diagnostics"] == [], report["diagnostics"]
    functions = {f["name"]: f for f in report["functions"]}
    # typed from its Python caller at first sight, with the scale the package's import defined
    (signature,) = functions["kernel"]["signatures"]
    assert signature["args"] == ["array(float64, 1d, C)"]
    assert signature["return_type"] == "array(float64, 1d, C)"
    # they read names that only the guarded imports would bind: not checked (called from Python with
    # arrays, they would be typed for them, and fail on the stand-in `None`)
    assert not functions["on_gpu"]["signatures"]
    assert not functions["on_gpu_library"]["signatures"]
    (ops_file,) = report["files"]  # the only module with jitted code
    assert ops_file["status"] == "ok"
    ((skipped),) = ops_file["skipped"]
    assert (skipped["line"], skipped["end_line"]) == (7, 8), skipped
    assert skipped["reason"].startswith("it reads `gpu_enabled` from featpkg.deps, which has no value during")
    assert "calls `gpu_import`" in skipped["reason"]


def test_names_the_skipped_statement_binds_have_no_value_for_the_statements_after_it(tmp_path: Path) -> None:
    """In the imported module (backend.py): `gp` and `GPU_SCALE` from the skipped `if`, then `FAST` from the
    `if` that reads `GPU_SCALE`; `SCALE`, after them, has its value."""
    _package(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", WHAT_BACKEND_HOLDS, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    held = json.loads(done.stdout.splitlines()[-1])
    assert held["SCALE"] == "2.0"
    for name in ("gp", "GPU_SCALE", "FAST"):
        assert held[name].startswith(f"<unavailable featpkg.backend.{name}: line "), held
    assert "line 13 reads `gpu_enabled` from featpkg.deps" in held["GPU_SCALE"]
    assert "line 17 reads `GPU_SCALE` from featpkg.backend" in held["FAST"]
    # the module ran as Python compiles it whole, up to the statement left out
    assert held["zeros_as_python_compiles_it"] is True
    assert not (tmp_path / "featpkg" / "deps.ran").exists()


WHAT_BACKEND_HOLDS = """import json
import os
import sys

root = sys.argv[1]
os.chdir(root)
from pyserver import numba_api

numba_api.install()
from pyserver.analysis.worker.infer.analyzer import Analyzer

path = os.path.join(root, "featpkg", "ops.py")
Analyzer(root, []).analyze(path, open(path).read())
backend = sys.modules["featpkg.backend"]
held = {name: repr(vars(backend)[name]) for name in ("gp", "GPU_SCALE", "FAST", "SCALE")}
whole = compile(open(backend.__file__).read(), backend.__file__, "exec")
(zeros_code,) = [c for c in whole.co_consts if getattr(c, "co_name", None) == "zeros"]
held["zeros_as_python_compiles_it"] = backend.zeros.__code__.co_code == zeros_code.co_code
print(json.dumps(held))
"""


DECORATED = """\
import numba
import numpy as np

from featpkg import deps


def on_device(function):
    return function


@numba.njit
def total(x):
    return x.sum()


@(on_device if deps.gpu_enabled else numba.njit)
def scaled(x):
    return x * 2.0


@numba.njit
def mean(x):
    return x.sum() / x.size


def run():
    return total(np.ones(3)), mean(np.ones(3))
"""


def test_a_decorator_reading_a_flag_without_value_leaves_out_only_its_def(tmp_path: Path) -> None:
    """The traceback's line is the decorator's, above the `def`: the statement left out is the whole
    decorated `def`, and the module's other functions, before and after it, check."""
    package = _package(tmp_path)
    (package / "decorated.py").write_text(DECORATED)
    report = check_json(tmp_path, "featpkg/decorated.py")
    assert not (package / "deps.ran").exists()
    assert report["diagnostics"] == [], report["diagnostics"]
    (module,) = report["files"]
    assert module["status"] == "ok", module
    ((skipped),) = module["skipped"]
    assert (skipped["line"], skipped["end_line"]) == (17, 18), skipped
    assert skipped["reason"].startswith("it reads `gpu_enabled` from featpkg.deps, which has no value during")
    functions = {f["name"]: f for f in report["functions"]}
    for name in ("total", "mean"):
        (signature,) = functions[name]["signatures"]
        assert signature["args"] == ["array(float64, 1d, C)"], (name, signature)
        assert signature["return_type"] == "float64", (name, signature)
