"""A name a module puts in `builtins` is read by other modules as a builtin (the astropy package template:
`_astropy_init.py` does `try: _ASTROPY_SETUP_` / `except NameError: builtins._ASTROPY_SETUP_ = False`, and
the package's `__init__` then reads `if not _ASTROPY_SETUP_:`). Definitions-only loading runs what sets it
up: the assignment into `builtins` (the process's set-up, as a `sys.path` edit is), and the `try`'s probe
that sends it to the handler. Without them every module of the package failed to load ("name
'_ASTROPY_SETUP_' is not defined"). A probe that calls something still does not run."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from analysis_helpers import check_json, shown_args, write_package

from pyserver.analysis.worker.load.toplevel_slice import slice_module

SETUP = textwrap.dedent(
    """\
    __all__ = ["__version__"]

    try:
        _PKG_SETUP_
    except NameError:
        import builtins

        builtins._PKG_SETUP_ = False

    try:
        from .version import version as __version__
    except ImportError:
        __version__ = ""
    """
)

INIT = textwrap.dedent(
    """\
    from ._setup import *

    if not _PKG_SETUP_:
        from pkg.kernels import *
    """
)

KERNELS = textwrap.dedent(
    """\
    from numba import njit

    import pkg


    @njit
    def scaled(x):
        return x * 2.0


    scaled(1.0)
    """
)


def _kept(source: str) -> str:
    return ast.unparse(slice_module(ast.parse(source), keep_assignments=True, source=source).tree)


def test_the_builtins_assignment_and_the_probe_are_kept() -> None:
    kept = _kept(SETUP)
    assert "builtins._PKG_SETUP_ = False" in kept
    assert "try:\n    _PKG_SETUP_\nexcept NameError" in kept


def test_setattr_on_builtins_is_kept() -> None:
    source = "import builtins as b\nsetattr(b, 'DEBUG_LEVEL', 0)\nprint('effect')\n"
    kept = _kept(source)
    assert "setattr(b, 'DEBUG_LEVEL', 0)" in kept
    assert "print" not in kept


def test_a_probe_that_calls_does_not_run() -> None:
    source = textwrap.dedent(
        """\
        try:
            open('SIDE_EFFECT.txt', 'a').write('ran')
            import json
        except OSError:
            import os
        """
    )
    kept = _kept(source)
    assert "import json" in kept
    assert "open(" not in kept


def test_a_probe_of_a_name_the_module_binds_does_not_run() -> None:
    """`CONFIG` is bound by a statement that may not run (a loop): probing it would send the `try` to the
    handler, and CONFIG would get the default where the program has the loop's value."""
    source = textwrap.dedent(
        """\
        import numpy as np

        for CONFIG in [1.5]:
            print(CONFIG)
        try:
            CONFIG
        except NameError:
            CONFIG = 0
        try:
            np.float128
        except AttributeError:
            HAS_FLOAT128 = False
        """
    )
    kept = _kept(source)
    assert "try:\n    pass\nexcept NameError" in kept
    assert "try:\n    np.float128\nexcept AttributeError" in kept


def test_the_package_loads_and_its_kernel_is_typed(tmp_path: Path) -> None:
    write_package(tmp_path, "pkg", {"_setup.py": SETUP, "kernels.py": KERNELS})
    (tmp_path / "pkg" / "__init__.py").write_text(INIT)
    report = check_json(tmp_path, "pkg/kernels.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    assert [f["status"] for f in report["files"]] == ["ok"]
    assert shown_args(report) == {"scaled": [["float64"]]}


FALLBACKS = textwrap.dedent(
    """\
    import numba

    try:
        array_if_needed
    except:
        array_if_needed = lambda values: values

    COEFFICIENTS = array_if_needed((0.5, 0.25))


    @numba.njit
    def first(x):
        return x * COEFFICIENTS[0]
    """
)


def test_a_probe_of_a_name_only_its_own_handler_binds_runs() -> None:
    """`try: array_if_needed` / `except: array_if_needed = fallback` (a module another one may run again with
    the name already set): the handler binds the name only once the probe failed, as in plain Python."""
    kept = _kept(FALLBACKS)
    assert "try:\n    array_if_needed\nexcept:\n    array_if_needed = lambda" in kept


def test_a_module_with_a_fallback_probe_loads_for_its_importers(tmp_path: Path) -> None:
    write_package(tmp_path, "pkg", {"numerics.py": FALLBACKS, "user.py": USES_FALLBACK})
    report = check_json(tmp_path, "pkg/user.py", "pkg/numerics.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    assert shown_args(report) == {"first": [["float64"]], "scaled": [["float64"]]}


USES_FALLBACK = textwrap.dedent(
    """\
    import numba

    from pkg.numerics import COEFFICIENTS, first


    @numba.njit
    def scaled(x: float):
        return first(x) + COEFFICIENTS[1]
    """
)
