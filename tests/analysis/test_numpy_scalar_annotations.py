"""Annotations naming NumPy scalar classes (`x: np.float64`) are often written for arrays of that type (the
SPH kernels of a simulation toolkit annotate every particle array so). Where the function types with the
scalars, they are its signature, as Numba compiles it for such scalars; where it does not, they are set
aside, not reported as the code's errors: the no-signature note says which annotations and why, and the
calls' types, once known, are checked as usual. Python's own `float` means a float: the function is
checked with it and its errors are reported; and a call that really passes the scalars is checked too."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
from analysis_helpers import check_json

MODULE = """\
import numba
import numpy as np


@numba.njit
def scatter(x: np.float64, m: np.float32, res: int):
    image = np.zeros((res, res), dtype=np.float32)
    for x_pos, mass in zip(x, m):
        image[int(x_pos * res), 0] += mass
    return image, x.size


@numba.njit
def deposit(x: np.float64, m: np.float32, res: int):
    total = 0.0
    for x_pos, mass in zip(x, m):
        total += x_pos * mass
    return total / res


@numba.njit
def scale(x: np.float64, k: np.int64):
    return x * k + 0.5


@numba.njit
def exact(x: float):
    return x.size


@numba.njit
def called_with_scalars(x: np.float64):
    return x.size


def run():
    deposit(np.linspace(0.0, 1.0, 8), np.ones(8, dtype=np.float32), 4)


def run_scalar():
    called_with_scalars(np.float64(2.0))
"""


def test_numpy_scalar_annotations_that_do_not_type_are_set_aside(tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text(MODULE)
    report = check_json(tmp_path, "kernels.py")
    functions = {f["name"]: f for f in report["functions"]}
    by_function: dict[str, list[dict]] = {}
    for diagnostic in report["diagnostics"]:
        by_function.setdefault(diagnostic["function"], []).append(diagnostic)

    # no calls known: nothing typed, an information that names the annotations and what failed
    assert functions["scatter"]["signatures"] == []
    (note,) = by_function["scatter"]
    assert (note["severity"], note["code"]) == ("information", "no-signature")
    assert "`x: np.float64`, `m: np.float32` name NumPy scalar types" in note["message"]
    assert "zip(float64, float32)" in note["message"]

    # a Python call passes arrays: their signature only, as Numba compiles it, and no error
    (signature,) = functions["deposit"]["signatures"]
    assert signature["source"] == "python-caller" and signature["ok"]
    module = _import(tmp_path)
    module.run()
    (compiled,) = module.deposit.signatures
    assert signature["args"] == [str(t) for t in compiled]
    assert "deposit" not in by_function

    # where the scalars type, they are the signature, as Numba compiles it for them
    (signature,) = functions["scale"]["signatures"]
    assert signature["source"] == "annotation" and signature["ok"]
    module.scale(np.float64(2.0), np.int64(3))
    (compiled,) = module.scale.signatures
    assert signature["args"] == [str(t) for t in compiled]
    assert signature["return_type"] == str(module.scale.overloads[compiled].signature.return_type)

    # Python's float means a float: checked, and its error reported
    assert [d["severity"] for d in by_function["exact"]].count("error") >= 1
    # a call that passes the scalars makes them the arguments' types: checked, and its error reported
    (signature,) = functions["called_with_scalars"]["signatures"]
    assert not signature["ok"]
    assert any(d["severity"] == "error" for d in by_function["called_with_scalars"])


def _import(tmp_path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("numpy_scalar_kernels", tmp_path / "kernels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert isinstance(module.deposit, numba.core.registry.CPUDispatcher)
    return module
