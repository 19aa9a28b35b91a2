"""The caches that make re-analysis after an edit fast never give a stale answer.

Each test edits what a cache depends on and checks, with the real analyzer, that the result follows the
edit: a global a function reads, one function among many, a signature, what a definition reads (the
top-level slice), a workspace module another one imports. Results must equal a fresh analysis.
"""

from __future__ import annotations

import ast
import textwrap

from analysis_helpers import by_code

from pyserver.analysis import static_results
from pyserver.analysis.worker.discover import discovery
from pyserver.analysis.worker.load import toplevel_slice
from pyserver.analysis.worker.report import report

CONSTANT_READER = textwrap.dedent(
    """
    from numba import njit

    SCALE = 2

    @njit
    def scaled(x: int):
        y = x * SCALE
        return y

    @njit
    def other(x: int):
        return x + 1
    """
)


def _variable(result, function: str, name: str) -> str:
    info = next(f for f in result.functions if f.name == function)
    return next(v.type for v in info.signatures[0].variables if v.name == name)


def test_an_edited_constant_changes_the_types_of_the_function_that_reads_it(ws) -> None:
    path = ws.write("edit_constant.py", CONSTANT_READER)
    first = ws.engine.analyze(path, CONSTANT_READER)
    assert _variable(first, "scaled", "y") == "int64"
    edited = CONSTANT_READER.replace("SCALE = 2", "SCALE = 2.5")
    after = ws.engine.analyze(path, edited)
    assert _variable(after, "scaled", "y") == "float64"
    assert after.inferred == ["scaled"] and after.reused == ["other"]
    back = ws.engine.analyze(path, CONSTANT_READER)
    assert _variable(back, "scaled", "y") == "int64"


def test_an_edit_to_one_function_changes_only_it(ws) -> None:
    path = ws.write("edit_one.py", CONSTANT_READER)
    first = ws.engine.analyze(path, CONSTANT_READER)
    edited = CONSTANT_READER.replace("return x + 1", "return x + 1.5")
    after = ws.engine.analyze(path, edited)
    assert after.inferred == ["other"]
    assert next(f for f in after.functions if f.name == "other").signatures[0].return_type == "float64"
    before_scaled = next(f for f in first.functions if f.name == "scaled")
    after_scaled = next(f for f in after.functions if f.name == "scaled")
    assert after_scaled == before_scaled


def test_an_edited_signature_string_is_read_again(ws) -> None:
    source = textwrap.dedent(
        """
        from numba import njit

        @njit("float64(float64)")
        def twice(x):
            return x * 2
        """
    )
    path = ws.write("edit_signature.py", source)
    first = ws.engine.analyze(path, source)
    assert first.functions[0].signatures[0].args == ["float64"]
    edited = source.replace('"float64(float64)"', '"int64(int64)"')
    after = ws.engine.analyze(path, edited)
    assert after.functions[0].signatures[0].args == ["int64"]
    assert after.functions[0].signatures[0].return_type == "int64"


def test_a_definition_that_starts_reading_a_global_gets_it_defined(ws) -> None:
    """The slice remembers what each definition reads by its text: an edited body that reads a global
    computed by a statement the slice left out must make that statement run."""
    source = textwrap.dedent(
        """
        import numpy as np
        from numba import njit

        TABLE = np.arange(4.0)

        @njit
        def lookup(i: int):
            return i * 2
        """
    )
    path = ws.write("edit_slice.py", source)
    first = ws.engine.analyze(path, source)
    assert first.skipped_statements == [5]  # TABLE is not needed yet
    edited = source.replace("return i * 2", "return TABLE[i]")
    after = ws.engine.analyze(path, edited)
    assert after.skipped_statements == []
    assert not by_code(after, "typing-error")
    assert after.functions[0].signatures[0].return_type == "float64"


def test_an_imported_workspace_module_that_changed_is_read_again(ws) -> None:
    helper = ws.write("edit_helper_mod.py", "FACTOR = 3\n")
    source = textwrap.dedent(
        """
        from numba import njit
        from edit_helper_mod import FACTOR

        @njit
        def use(x: int):
            y = x * FACTOR
            return y
        """
    )
    path = ws.write("edit_importer.py", source)
    assert _variable(ws.engine.analyze(path, source), "use", "y") == "int64"
    helper.write_text("FACTOR = 3.5\n# longer, so that the size differs too\n", encoding="utf-8")
    assert _variable(ws.engine.analyze(path, source), "use", "y") == "float64"


def test_moving_functions_keeps_results_exact(ws) -> None:
    """A line inserted above reuses every function's results, shifted; they equal a fresh analysis."""
    path = ws.write("edit_move.py", CONSTANT_READER)
    ws.engine.analyze(path, CONSTANT_READER)
    moved = CONSTANT_READER.replace("SCALE = 2\n", "SCALE = 2\n# a comment\n\n")
    after = ws.engine.analyze(path, moved)
    assert sorted(after.reused) == ["other", "scaled"]
    fresh_path = ws.write("edit_move_fresh.py", moved)
    fresh = ws.engine.analyze(fresh_path, moved)
    for shifted, expected in zip(after.functions, fresh.functions, strict=True):
        assert shifted.line == expected.line
        assert [v.line for v in shifted.signatures[0].variables] == [
            v.line for v in expected.signatures[0].variables
        ]


# ------------------------------------------------------------------------- the pieces, without Numba

SAMPLE = textwrap.dedent(
    """
    import numba as nb

    class Box:
        @nb.njit
        def m(self):
            return 1

    @nb.njit(parallel=True)
    def f(a, b=2):
        def inner(x):
            return x + (a if b else -a)
        return ~inner(a) + b

    x = [i for i in range(3)]; y = f(1)
    """
)


def test_source_index_lookups_match_a_walk_of_the_tree() -> None:
    index = report.SourceIndex.parse(SAMPLE)
    assert index.tree is not None
    for line in range(1, len(SAMPLE.splitlines()) + 2):
        for kind in (ast.Name, ast.Call, ast.BinOp, ast.UnaryOp, (ast.For, ast.While), ast.AST):
            walked = [
                n for n in ast.walk(index.tree) if isinstance(n, kind) and getattr(n, "lineno", None) == line
            ]
            walked.sort(key=lambda n: (getattr(n, "col_offset", 0), -(getattr(n, "end_col_offset", 0) or 0)))
            assert index.nodes_on_line(line, kind) == walked
        first_def = next(
            (
                n
                for n in ast.walk(index.tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.lineno == line
            ),
            None,
        )
        assert index.function_node(line) is first_def


def test_discovery_from_a_parsed_tree_equals_discovery_from_text() -> None:
    discovery.clear_found_cache()
    from_text = discovery.find_jitted_functions(SAMPLE, "sample.py")
    discovery.clear_found_cache()
    from_tree = discovery.find_jitted_functions(SAMPLE, "sample.py", ast.parse(SAMPLE))
    assert from_tree == from_text
    assert [f.name for f in from_text] == ["Box.m", "f"]


def test_the_slice_with_remembered_definitions_equals_a_fresh_slice() -> None:
    before = textwrap.dedent(
        """
        import numpy as np
        from numba import njit
        A = np.zeros(3)
        B = 2
        @njit
        def f(x):
            return x + B
        """
    )
    after = before.replace("return x + B", "return x + A[0]")
    for source in (before, after, before):
        tree = ast.parse(source)
        remembered = toplevel_slice.slice_module(tree, source=source)
        fresh = toplevel_slice.slice_module(ast.parse(source))
        assert ast.dump(remembered.tree) == ast.dump(fresh.tree)
        assert remembered.skipped == fresh.skipped
    assert [s.line for s in toplevel_slice.slice_module(ast.parse(after), source=after).skipped] == [5]


def test_extension_check_without_parsing_agrees_with_the_parse() -> None:
    cases = {
        "from numba import njit\n": False,
        "from numba.extending import overload\n": True,
        "import numba\nnumba.extending.register_jitable(f)\n": True,
        "from numba import types\nx = 'overload'\n": False,  # the word, but not the API
        "from numba.core.extending import intrinsic\n": True,
        "ｘ = 1\nfrom numba import generated_jit\n": False,  # not ASCII: parsed
    }
    for source, expected in cases.items():
        assert static_results.extends_numba(source) is expected, source


def test_kept_annotation_and_signature_texts_follow_what_their_names_stand_for() -> None:
    from numba.core import types as nbtypes

    from pyserver import numba_api

    assert str(numba_api.annotation_type("float64[::1]", {})) == "array(float64, 1d, C)"
    assert str(numba_api.annotation_type("float64[::1]", {})) == "array(float64, 1d, C)"
    # The module's own `float64` wins over Numba's, as eval would have it.
    assert str(numba_api.annotation_type("float64[::1]", {"float64": nbtypes.int64})) == "array(int64, 1d, C)"
    assert str(numba_api.annotation_type("float64[::1]", {})) == "array(float64, 1d, C)"
    original = nbtypes.float64
    try:
        nbtypes.float64 = nbtypes.float32  # numba.types changed under it: read again
        assert str(numba_api.annotation_type("float64[::1]", {})) == "array(float32, 1d, C)"
        assert numba_api.parse_signature("float64(float64)")[1] == nbtypes.float32
    finally:
        nbtypes.float64 = original
    assert numba_api.parse_signature("float64(float64)")[1] == nbtypes.float64
