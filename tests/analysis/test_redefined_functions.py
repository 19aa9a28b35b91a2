"""A jitted function's name defined twice at the top level (a notebook exported to `.py`: a cell defines
`foo` again): the module's own calls between the two definitions call the first, the later ones the
second. The second is typed from its own calls only, never from the first's; the first, which the name no
longer holds when the analysis types, says so; after `record`, each shows what Numba compiled for it, and
the first's compiles are never applied to the second (an error of arguments it does not take)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from analysis_helpers import check_json, run_probe

MODULE = """\
import numpy as np
from numba import njit


@njit
def foo(x):
    return x.sum()


a = np.arange(3)
foo(a)
first_foo = foo


@njit
def foo(x, k):
    return x * k


foo(np.ones(2), 2.5)
"""

TRUTH = """\
import json
import runpy

ns = runpy.run_path("cells.py")
print(json.dumps({
    "first": [[str(a) for a in s] for s in ns["first_foo"].signatures],
    "second": [[str(a) for a in s] for s in ns["foo"].signatures],
}))
"""


def _shown(report: dict) -> dict[int, list[list[str]]]:
    return {f["line"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}


def test_each_definition_gets_the_calls_that_reach_it(tmp_path: Path) -> None:
    (tmp_path / "cells.py").write_text(MODULE)
    truth = run_probe(tmp_path, TRUTH)
    assert truth == {"first": [["array(int64, 1d, C)"]], "second": [["array(float64, 1d, C)", "float64"]]}
    first_sight = check_json(tmp_path, "cells.py")
    assert _shown(first_sight) == {6: [], 16: truth["second"]}
    (note,) = [d for d in first_sight["diagnostics"] if d["code"] == "no-signature"]
    assert note["range"]["start"]["line"] == 5 and "defined again at line 15" in note["message"]

    recorded = subprocess.run(
        [sys.executable, "-m", "pyserver", "record", "--", sys.executable, "cells.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert recorded.returncode == 0, recorded.stderr
    stored = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())["functions"][
        "cells.py::foo"
    ]
    assert sorted(e["first_line"] for e in stored) == [5, 15]
    after = check_json(tmp_path, "cells.py")
    assert [d for d in after["diagnostics"] if d["severity"] == "error"] == []
    assert _shown(after) == {6: truth["first"], 16: truth["second"]}


SELF_JITTED = """\
import numpy as np
import numba


def kernel(x):
    return x * 2.0


kernel = numba.njit(kernel)


def run():
    return kernel(np.ones(3))


kernel(np.arange(4))
run()
"""


def test_a_name_rebound_to_its_own_jitted_form_is_one_function(tmp_path: Path) -> None:
    """`kernel = numba.njit(kernel)` jits the function under its own name, as a decorator would: not a
    second definition, and not a dispatcher apart from the name's calls."""
    (tmp_path / "selfjit.py").write_text(SELF_JITTED)
    truth = run_probe(
        tmp_path,
        "import json, selfjit\nprint(json.dumps(sorted([str(a) for a in s] for s in selfjit.kernel.signatures)))",
    )
    assert truth == [["array(float64, 1d, C)"], ["array(int64, 1d, C)"]]
    report = check_json(tmp_path, "selfjit.py")
    (function,) = report["functions"]
    assert sorted(s["args"] for s in function["signatures"]) == truth
    assert report["diagnostics"] == []


def test_the_note_of_a_function_jitted_under_its_own_name(tmp_path: Path) -> None:
    (tmp_path / "selfjit_alone.py").write_text(
        "import numba\n\n\ndef kernel(x):\n    return x * 2.0\n\n\nkernel = numba.njit(kernel)\n"
    )
    report = check_json(tmp_path, "selfjit_alone.py")
    (note,) = [d for d in report["diagnostics"] if d["code"] == "no-signature"]
    assert "jits it under its own name: the calls of 'kernel' after that line compile it" in note["message"]
    assert "itself runs Python" not in note["message"]
