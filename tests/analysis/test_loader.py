"""Definitions-only loading (the default, and the fallback after a hang or crash): what stays, what is skipped."""

from __future__ import annotations

import ast
import textwrap

from pyserver.analysis.worker.load.loader import definitions_only, module_name_for

SOURCE = textwrap.dedent(
    """\
    \"\"\"Docstring.\"\"\"
    import numpy as np
    from numba import njit
    try:
        import scipy
    except ImportError:
        scipy = None
    SCALE = 2.5
    TABLE = np.arange(10)
    UNUSED = expensive()
    print("hello")
    for i in range(3):
        pass

    @njit
    def f(x):
        return x * SCALE + TABLE[0]

    class Holder:
        value = 1

    if __name__ == "__main__":
        f(1)
    with open("x") as handle:
        pass
    """
)


def test_definitions_only_keeps_what_definitions_need() -> None:
    tree, skipped = definitions_only(ast.parse(SOURCE))
    kept = ast.unparse(tree)
    for needed in (
        "import numpy as np",
        "import scipy",
        "SCALE = 2.5",
        "TABLE = np.arange(10)",
        "def f(x)",
        "class Holder",
    ):
        assert needed in kept
    for dropped in ("expensive()", "print(", "for i in range", "__main__", "open("):
        assert dropped not in kept
    # line 7 (`scipy = None` in the handler): nothing reads `scipy`, so the handler does not bind it
    assert skipped == [7, 10, 11, 12, 22, 24]
    compile(tree, "m.py", "exec")  # still a valid module


def test_module_names_never_main(tmp_path) -> None:
    (tmp_path / "pkg").mkdir()
    assert module_name_for(str(tmp_path / "pkg" / "mod.py"), str(tmp_path)) == ("pkg.mod", "pkg")
    assert module_name_for(str(tmp_path / "pkg" / "__init__.py"), str(tmp_path)) == ("pkg", "pkg")
    assert module_name_for(str(tmp_path / "my-script.py"), str(tmp_path))[0] == "numba_lens_module"
    assert module_name_for("/elsewhere/tool.py", str(tmp_path)) == ("tool", "")


def test_a_package_module_is_loaded_after_its_package_and_an_init_stays_a_package(tmp_path) -> None:
    import textwrap

    from pyserver.analysis.engine import AnalysisEngine

    files = {
        "pkg/__init__.py": "from pkg.core import scale\n",
        "pkg/helpers.py": "from numba import njit\n\n@njit\ndef twice(x: float):\n    return 2.0 * x\n",
        "pkg/core.py": textwrap.dedent(
            """
            from numba import njit

            from pkg.helpers import twice


            @njit
            def scale(x: float):
                return twice(x)
            """
        ),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    engine = AnalysisEngine(tmp_path, timeout_s=120.0)
    try:
        # pkg/__init__.py imports pkg.core: pkg must be imported first, or it finds pkg.core half-run.
        core = engine.analyze(tmp_path / "pkg" / "core.py")
        assert [d.message for d in core.diagnostics if d.severity == "error"] == []
        assert core.functions[0].signatures[0].return_type == "float64"
        # Analysing the package's __init__.py keeps `pkg` a package: its submodules still import.
        init = engine.analyze(tmp_path / "pkg" / "__init__.py")
        assert [d.message for d in init.diagnostics if d.severity == "error"] == []
        again = engine.analyze(
            tmp_path / "pkg" / "core.py",
            files["pkg/core.py"].replace("return twice(x)", "return twice(x) + 1.0"),
        )
        assert [d.message for d in again.diagnostics if d.severity == "error"] == []
    finally:
        engine.close()
