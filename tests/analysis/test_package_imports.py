"""Modules of a package, loaded as users' packages are imported:
- a name other modules import counts as needed wherever it is defined: a constant read from a data file
  inside a top-level `with open(...)` is defined (reading is no effect); a name only a loop run for its
  effects defines imports as unavailable, and the importing module's other functions are still typed;
- a module is imported as `pkg.sub.mod` from above its package: adapter modules named like real packages
  (`colorsys.py`, `pandas.py`) in a sub-package never hide the real ones, and relative imports work;
- a module that makes no jitted function (a pytest module) is not executed, and gets no error;
- a module's globals are another library's objects: a lazy module proxy (as `lazy_loader.load` makes
  for an optional dependency that is not installed) raises on any attribute, and the module still checks;
- a compatibility module patches an imported module (`numba.jitclass = numba.experimental.jitclass`):
  the patch is part of that name's definition for the modules importing it;
- a package whose `__init__` fills a registry by a call the analysis never runs, read as a module
  loads: information naming the call, not an error (while a failure of a module's own stays an error)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pyserver.analysis.worker.discover.makes_jitted import may_make_jitted

ROOT = Path(__file__).resolve().parents[2]

TABLES = """\
import json
import os

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "data.json")) as handle:
    CONSTANTS = json.load(handle)["scale"]
    print("loaded")
for i in range(2):
    open(os.path.join(HERE, "tables_loop.ran"), "a").write("ran")
    LOOPED = float(i)
"""

USER = """\
from numba import njit

from .tables import CONSTANTS{extra}


@njit
def scaled_{n}(x: float):
    return x * CONSTANTS
"""

USES_LOOPED = """\


@njit
def looped(x: float):
    return x + LOOPED
"""

ADAPTER_USER = """\
import colorsys

from numba import njit

from . import colorsys as colorsys_adapter
from .pandas import ADAPTS

THIRD = colorsys.ONE_THIRD


@njit
def third(x: float):
    return x * THIRD
"""

OPTIONAL = """\
import types


class MissingModule(types.ModuleType):
    def __getattr__(self, name):
        raise ModuleNotFoundError(f"No module named {self.__name__!r}")


def load(name):
    return MissingModule(name)
"""

SOUND = """\
from numba import njit

from . import optional

samplerate = optional.load("not_installed_samplerate")
GAIN = 3.0


@njit
def louder(x: float):
    return x * GAIN
"""

BEATS = """\
from numba import njit

from .sound import GAIN


@njit
def beat_gain(x: float):
    return x + GAIN
"""

PYTEST_FILE = """\
import numba
import pytest

from not_installed_anywhere import helper


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2])
def test_helper(n):
    open("pytest_file.ran", "w").write(str(helper(n)))
"""


def _package(root: Path) -> list[Path]:
    pkg = root / "pkg"
    (pkg / "adapters").mkdir(parents=True)
    (root / "tests").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "data.json").write_text(json.dumps({"scale": 2.5}))
    (pkg / "tables.py").write_text(TABLES)
    users = []
    for n in range(3):
        extra = ", LOOPED" if n == 2 else ""
        text = USER.format(n=n, extra=extra) + (USES_LOOPED if n == 2 else "")
        users.append(pkg / f"user{n}.py")
        users[-1].write_text(text)
    adapters = pkg / "adapters"
    (adapters / "__init__.py").write_text("")
    (adapters / "colorsys.py").write_text("ADAPTS = 'colorsys'\n")
    (adapters / "pandas.py").write_text("ADAPTS = 'pandas'\n")
    (adapters / "use.py").write_text(ADAPTER_USER)
    (root / "tests" / "test_nothing_jitted.py").write_text(PYTEST_FILE)
    (pkg / "optional.py").write_text(OPTIONAL)
    (pkg / "sound.py").write_text(SOUND)
    (pkg / "beats.py").write_text(BEATS)
    return users


def _check(root: Path, *paths: Path, errors: bool = False) -> dict:
    """`check --format json` of the paths; `errors`: some are expected (check then exits with 1)."""
    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", *map(str, paths)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == (1 if errors else 0), done.stderr + done.stdout
    return json.loads(done.stdout)


def test_a_package_checks_without_a_false_error(tmp_path: Path) -> None:
    _package(tmp_path)
    report = _check(tmp_path, tmp_path / "pkg", tmp_path / "tests")
    assert report["diagnostics"] == [], report["diagnostics"]
    assert not list(tmp_path.rglob("*.ran"))
    typed = {f["name"]: [s["return_type"] for s in f["signatures"]] for f in report["functions"]}
    assert typed["scaled_0"] == typed["scaled_1"] == typed["scaled_2"] == ["float64"]
    assert typed["third"] == ["float64"]  # the real colorsys, not the adapter next to it
    assert typed["louder"] == typed["beat_gain"] == ["float64"]  # beside a lazy module proxy
    assert typed["looped"] == []  # LOOPED has no value: listed, not checked
    files = {Path(f["path"]).name for f in report["files"]}
    assert "test_nothing_jitted.py" not in files  # never executed
    assert all(f["status"] == "ok" for f in report["files"]), report["files"]


def test_a_pytest_module_without_jitted_code_is_not_loaded() -> None:
    assert not may_make_jitted(PYTEST_FILE)
    marked = "import numba\nimport pytest\n\nslow = pytest.mark.skipif(True, reason='slow')\n\n@slow\ndef test_x():\n    pass\n"
    assert not may_make_jitted(marked)  # the module's own name for a pytest mark
    assert may_make_jitted("import numba\n\nfast = numba.njit\n")
    assert may_make_jitted("import numba as nb\n\n@nb.jit(nopython=True)\ndef f(x):\n    return x\n")
    assert may_make_jitted("from numba.experimental import jitclass\n\n@jitclass([])\nclass A:\n    pass\n")
    assert may_make_jitted("import numba\n\nexec(TEMPLATE.format(name='k'))\n")
    assert not may_make_jitted("import typing\n\n@typing.overload\ndef f(x: int) -> int: ...\n")
    # libraries that take a function to run it (tigramite's `Parallel(...)(delayed(step)(...))`, an
    # optimiser's objective), never to jit it: a module that only does that is not loaded
    runs_functions = (
        "from joblib import Parallel, delayed\nfrom scipy.optimize import minimize\nimport numpy as np\n\n"
        "def step(x):\n    return x\n\n"
        "def run():\n    Parallel(n_jobs=2)(delayed(step)(i) for i in range(3))\n"
        "    minimize(step, 0.0)\n    np.vectorize(step)\n"
    )
    assert not may_make_jitted(runs_functions)
    assert may_make_jitted(runs_functions + "\nfast = my_wrapper(step)\n")


CRLF_INIT = "from . import first, second\n"

CRLF_FIRST = """\
from numba import njit


@njit
def double(x: float):
    return x * 2.0
"""

CRLF_SECOND = """\
from numba import njit

from .first import double


@njit
def quadruple(x: float):
    return double(double(x))


BY_NAME = {"quadruple": quadruple}
"""


def _crlf_package(root: Path, newline: str) -> Path:
    pkg = root / "crlfpkg"
    pkg.mkdir(parents=True)
    for name, text in (("__init__", CRLF_INIT), ("first", CRLF_FIRST), ("second", CRLF_SECOND)):
        (pkg / f"{name}.py").write_bytes(text.replace("\n", newline).encode())
    return pkg


def test_a_package_written_with_crlf_line_ends_loads_as_with_lf(tmp_path: Path) -> None:
    """Python imports a module with universal newlines; the analysed file's text keeps its CRLF. The
    module the package imported is still the one analysed (not a second copy from the module's own
    slice), as with LF line ends."""
    reports = {}
    for newline in ("\n", "\r\n"):
        root = tmp_path / repr(newline).strip("'\\")
        report = _check(root, _crlf_package(root, newline))
        assert report["diagnostics"] == [], report["diagnostics"]
        reports[newline] = (
            {f["name"]: [s["return_type"] for s in f["signatures"]] for f in report["functions"]},
            {Path(f["path"]).name: f["skipped"] for f in report["files"]},
        )
    assert reports["\n"] == reports["\r\n"]
    assert reports["\n"][1]["second.py"] == []  # BY_NAME may be imported: the package's copy ran it


DYNAMIC_INIT = """\
import os

from numba import njit

try:
    PARALLEL_OFF = os.environ["DYNPKG_NO_PARALLEL"]
except KeyError:
    PARALLEL = True
else:
    PARALLEL = not PARALLEL_OFF


@njit
def halve(x: float):
    return x / 2.0


# the package's modules import PARALLEL from it while it runs
from . import blades, user  # noqa: E402
"""

DYNAMIC_BLADES = """\
import os

from . import PARALLEL


def make_blades(n):
    return {f"e{i + 1}": float(i + 1) for i in range(n)}


blades = make_blades(3)
locals().update(blades)
for name, value in blades.items():
    globals()[name + "_squared"] = value * value
globals().update(dict(os.environ.items()) if open(os.path.join(os.path.dirname(__file__), "blades.ran"), "w") else {})
"""

DYNAMIC_USER = """\
from numba import njit

from .blades import *  # noqa: F403

E12 = e1 * e2  # noqa: F405


@njit
def scaled(x: float):
    return x * E12 + e3_squared  # noqa: F405
"""


def test_names_a_module_defines_at_run_time_are_defined(tmp_path: Path) -> None:
    """`locals().update(blades)` and `globals()[name] = value` (in a loop) define module names that only
    running them tells: they run as definitions do (their effects checked like an assignment's value),
    and a module that star-imports them gets them. A package's `__init__` binds what its modules import
    from it while it runs (`from pkg import PARALLEL`), inside a `try` too."""
    pkg = tmp_path / "dynpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(DYNAMIC_INIT)
    (pkg / "blades.py").write_text(DYNAMIC_BLADES)
    (pkg / "user.py").write_text(DYNAMIC_USER)
    report = _check(tmp_path, pkg)
    assert report["diagnostics"] == [], report["diagnostics"]
    typed = {f["name"]: [s["return_type"] for s in f["signatures"]] for f in report["functions"]}
    assert typed["scaled"] == typed["halve"] == ["float64"]
    assert not (pkg / "blades.ran").exists()  # the update whose value writes a file never ran


SHIM = """\
import os

if os.environ.get("SHIMPKG_NO_NUMBA"):
    from . import no_numba as numba
else:
    import numba

    numba.jitclass = numba.experimental.jitclass
    open(os.path.join(os.path.dirname(__file__), "shim.ran"), "w").write("ran")
"""

SHIM_USER = """\
from numba import float64

from .shim import numba


@numba.jitclass([("width", float64)])
class Box:
    def __init__(self, width):
        self.width = width


@numba.njit
def area(width: float):
    return width * width
"""


def test_an_imported_module_patched_by_a_shim_keeps_the_patch(tmp_path: Path) -> None:
    """`numba.jitclass = numba.experimental.jitclass` in a compatibility module (numbakit-ode) is part of
    what its `numba` is to the modules importing it: it runs as a definition does. The write beside it
    still does not."""
    pkg = tmp_path / "shimpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "shim.py").write_text(SHIM)
    (pkg / "no_numba.py").write_text("def njit(function):\n    return function\n")
    (pkg / "user.py").write_text(SHIM_USER)
    report = _check(tmp_path, pkg / "user.py")
    # Only the note that the jitclass's constructor has no argument types (nothing constructs a Box).
    assert [(d["code"], d["function"]) for d in report["diagnostics"]] == [("no-signature", "Box.__init__")]
    typed = {f["name"]: [s["return_type"] for s in f["signatures"]] for f in report["functions"]}
    assert typed["area"] == ["float64"]
    assert not (pkg / "shim.ran").exists()


INIT = """\
import os

from .registry import registry

registry.register("fast", {"fastmath": True})
open(os.path.join(os.path.dirname(__file__), "init.ran"), "a").write("ran")
"""

REGISTRY = """\
class Registry:
    def __init__(self):
        self._options = {}

    def register(self, name, options):
        self._options[name] = options

    def options(self, name):
        if name not in self._options:
            raise KeyError(f"backend {name!r} not in {sorted(self._options)}")
        return self._options[name]


registry = Registry()
"""

JITTING = """\
import numba

from .registry import registry


def jit(function):
    return numba.njit(**registry.options("fast"))(function)
"""

KERNELS = """\
from numba import njit

from .jitting import jit


@jit
def doubled(x: float):
    return x * 2.0


@njit
def tripled(x: float):
    return x * 3.0
"""

BROKEN = """\
import logging

from numba import njit

log = logging.getLogger(__name__)
log.setLevel(logging.INFO)

import not_installed_anywhere_xyz as helper

OFFSET = helper.OFFSET


@njit
def shifted(x: float):
    return x + OFFSET
"""


def test_a_load_that_needs_a_registration_call_is_information_naming_the_call(tmp_path: Path) -> None:
    """A registration call in `__init__`, never run; the library's `@jit` wrapper reads the registry."""
    pkg = tmp_path / "regpkg"
    pkg.mkdir()
    for name, text in {
        "__init__": INIT,
        "registry": REGISTRY,
        "jitting": JITTING,
        "kernels": KERNELS,
        "broken": BROKEN,
    }.items():
        (pkg / f"{name}.py").write_text(text)
    report = _check(tmp_path, pkg / "kernels.py", pkg / "broken.py", errors=True)
    by_file: dict[str, list[dict]] = {}
    for diagnostic in report["diagnostics"]:
        by_file.setdefault(Path(diagnostic["path"]).name, []).append(diagnostic)
    [needs] = by_file["kernels.py"]
    assert needs["severity"] == "information" and needs["code"] == "load-needs-effects", needs
    assert "KeyError" in needs["message"] and "`registry.register(...)` (__init__.py:5)" in needs["message"]
    # The registration call is the one related location; the file write beside it is not.
    assert [(Path(r["path"]).name, r["range"]["start"]["line"]) for r in needs["relatedInformation"]] == [
        ("__init__.py", 4)
    ]
    typed = {f["name"]: [s["return_type"] for s in f["signatures"]] for f in report["functions"]}
    assert typed["tripled"] == ["float64"]  # the module's functions are still checked
    assert not (pkg / "init.ran").exists()  # and the statements still never ran
    # A module failing for its own reason (a missing module) keeps its error, whatever else was skipped.
    [broken] = by_file["broken.py"]
    assert broken["severity"] == "error" and broken["code"] == "analysis-failed", broken
    assert "not_installed_anywhere_xyz" in broken["message"]


def test_a_module_naming_nothing_of_numba_that_fails_to_load_is_information(tmp_path: Path) -> None:
    """A module loaded only because it passes its functions to another module's call (a GUI's callbacks,
    as a power-flow converter's main module does), which fails to import for its own reason: it makes no
    jitted function, so its failure is said as information, not as an error of the file."""
    pkg = tmp_path / "guipkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "gui.py").write_text("def make_gui(*callbacks):\n    return callbacks\n")
    (pkg / "main.py").write_text(
        "from guipkg import gui\nimport optional_toolkit_xyz\n\n\ndef on_click(event):\n    return event\n\n\n"
        "def run():\n    gui.make_gui(on_click)\n"
    )
    report = _check(tmp_path, pkg / "main.py")
    [failed] = report["diagnostics"]
    assert failed["severity"] == "information" and failed["code"] == "analysis-failed", failed
    assert "optional_toolkit_xyz" in failed["message"] and "names nothing of Numba's" in failed["message"]
