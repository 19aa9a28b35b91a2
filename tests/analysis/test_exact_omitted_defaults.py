"""`check --format json` gives each signature its exact argument types (`arg_types`): a left-out default
that does not read back equal from its value, an array or a NaN (`fill_value=np.nan`, vectorbt's shift
kernels), is given as the function's own default, so the types decode to the very type Numba compiles."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json

MODULE = """\
import numpy as np
from numba import njit


@njit
def shift(a, n=1, fill_value=np.nan, mask=np.zeros(0, dtype=np.bool_)):
    out = np.full_like(a, fill_value)
    out[n:] = a[:-n]
    return out


def run():
    return shift(np.arange(5.0))
"""


def test_nan_and_array_defaults_have_exact_argument_types(tmp_path: Path) -> None:
    (tmp_path / "shifts.py").write_text(MODULE)
    report = check_json(tmp_path, "shifts.py")
    ((signature,),) = [f["signatures"] for f in report["functions"] if f["name"] == "shift"]
    assert signature["args"][1:3] == ["omitted(default=1)", "omitted(default=nan)"]
    where = {"module": "shifts", "path": "shifts.py", "qualname": "shift"}
    assert signature["arg_types"][1] == {"kind": "omitted", "value": 1}
    assert signature["arg_types"][2] == {
        "kind": "omitted_default",
        "function": where,
        "parameter": "fill_value",
    }
    assert signature["arg_types"][3] == {"kind": "omitted_default", "function": where, "parameter": "mask"}
