"""A kernel that a package re-exports (`pkg/__init__.py`: `from ._impl import scale`) is called through
the re-export: a test's `from pkg import scale`, `import pkg` then `pkg.scale(...)`, a sibling's
`from . import scale`, a sub-package re-exporting it again. Each is a Python caller of the kernel, as it
is at run time, and gives the types Numba compiles for it; a cycle of re-exports that never reaches a
definition gives nothing, and ends."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

FILES = {
    "pkg/__init__.py": "from ._impl import scale\nfrom .inner import offset\n",
    "pkg/_impl.py": "from numba import njit\n\n\n@njit\ndef scale(x, k):\n    return x * k\n",
    "pkg/inner/__init__.py": "from ._kernels import offset\n",
    "pkg/inner/_kernels.py": "import numba\n\n\n@numba.njit\ndef offset(x, d):\n    return x + d\n",
    # a cycle that defines nothing (it cannot import at run time): its `scale` is not the kernel
    "pkg/_loop_a.py": "from ._loop_b import scale\n",
    "pkg/_loop_b.py": "from ._loop_a import scale\n",
    "pkg/cyclic_user.py": (
        "import numpy as np\n\nfrom ._loop_a import scale\n\n\ndef use():\n    return scale(np.ones(2, dtype=np.int32), 1)\n"
    ),
    "pkg/api.py": (
        "import numpy as np\n\nfrom . import scale\n\n\ndef halves():\n    return scale(np.ones((3, 2)), 0.5)\n"
    ),
    "tests/test_pkg.py": (
        "import numpy as np\n\nimport pkg\nfrom pkg import offset, scale\n\n\n"
        "def test_scale():\n    assert scale(np.ones(3), 2.0)[0] == 2.0\n\n\n"
        "def test_offset():\n    assert pkg.offset(np.arange(3), 1)[0] == 1\n"
        "    assert offset(np.float32(1.5), 2.5) == 4.0\n"
    ),
}

NUMBA_RAN = """\
import json
import sys

sys.path.insert(0, "tests")
import test_pkg
from pkg import api
from pkg._impl import scale
from pkg.inner._kernels import offset

test_pkg.test_scale()
test_pkg.test_offset()
api.halves()
print(json.dumps({
    "scale": sorted([str(a) for a in sig] for sig in scale.signatures),
    "offset": sorted([str(a) for a in sig] for sig in offset.signatures),
}))
"""


def test_calls_through_a_package_re_export_type_the_kernel(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    report = check_json(tmp_path, "pkg/_impl.py", "pkg/inner/_kernels.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    shown = {f["name"]: f["signatures"] for f in report["functions"]}
    numba_compiled = run_probe(tmp_path, NUMBA_RAN)
    assert numba_compiled == {
        "scale": [["array(float64, 1d, C)", "float64"], ["array(float64, 2d, C)", "float64"]],
        "offset": [["array(int64, 1d, C)", "int64"], ["float32", "float64"]],
    }
    for name, compiled in numba_compiled.items():
        assert sorted(s["args"] for s in shown[name]) == compiled, (name, shown[name])
        assert {s["source"] for s in shown[name]} == {"python-caller"}
    callers = {c["path"] for s in shown["scale"] for c in s["callers"]}
    assert callers == {"tests/test_pkg.py", "pkg/api.py"}
