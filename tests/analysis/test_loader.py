"""Selective loading (after a hang or crash at import): what stays, what is skipped."""

from __future__ import annotations

import ast
import textwrap

from pyserver.analysis.loader import definitions_only, module_name_for

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
    assert skipped == [10, 11, 12, 22, 24]
    compile(tree, "m.py", "exec")  # still a valid module


def test_module_names_never_main(tmp_path) -> None:
    (tmp_path / "pkg").mkdir()
    assert module_name_for(str(tmp_path / "pkg" / "mod.py"), str(tmp_path)) == ("pkg.mod", "pkg")
    assert module_name_for(str(tmp_path / "pkg" / "__init__.py"), str(tmp_path)) == ("pkg", "pkg")
    assert module_name_for(str(tmp_path / "my-script.py"), str(tmp_path))[0] == "numba_lens_module"
    assert module_name_for("/elsewhere/tool.py", str(tmp_path)) == ("tool", "")
