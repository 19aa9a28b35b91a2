"""A `raise` in a block that definitions-only loading runs decides where control goes: kept with the
block, it sends a `try` to the handler that binds the name (a package's version module:
`if os.path.exists(git): __version__ = get_version() else: raise FileNotFoundError`, the handler importing
the version), so that the name is defined, and the modules importing it load. A `raise` in a block that
nothing needed runs no more than the block."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from analysis_helpers import check_json, shown_args, write_package

from pyserver.analysis.worker.load.toplevel_slice import slice_module

VERSION = textwrap.dedent(
    """\
    import os.path

    try:
        if os.path.exists(os.path.join(os.path.dirname(__file__), "..", ".git")):
            __version__ = "from git"
        else:
            raise FileNotFoundError
    except (ImportError, FileNotFoundError):
        try:
            from ._version import version as __version__
        except ImportError:
            __version__ = "0.0.0"
    SCALE = 2.0
    if SCALE < 0:
        raise RuntimeError("never raised in Python either")
    DEBUG = False
    if not DEBUG:
        raise_on_debug = False
    else:
        raise RuntimeError("the debug build")
    """
)

KERNELS = textwrap.dedent(
    """\
    from numba import njit

    from pkg.version import SCALE, __version__


    @njit
    def scaled(x):
        return x * SCALE


    scaled(1.0)
    """
)


def test_the_raise_of_a_kept_block_is_kept() -> None:
    sliced = slice_module(ast.parse(VERSION), keep_assignments=True, source=VERSION)
    kept = ast.unparse(sliced.tree)
    assert "raise FileNotFoundError" in kept
    assert sliced.unavailable == {}


def test_a_module_importing_the_version_loads(tmp_path: Path) -> None:
    write_package(
        tmp_path, "pkg", {"_version.py": 'version = "1.2.3"\n', "version.py": VERSION, "kernels.py": KERNELS}
    )
    report = check_json(tmp_path, "pkg/kernels.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    assert [f["status"] for f in report["files"]] == ["ok"]
    assert shown_args(report) == {"scaled": [["float64"]]}
