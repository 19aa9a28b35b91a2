"""Incremental re-analysis: an edited function is re-inferred, and its callers when what they get from it
changes (its return type, its parameters, an error); the rest is reused."""

from __future__ import annotations

import os
import textwrap

from analysis_helpers import by_code

SOURCE = textwrap.dedent(
    """
    from numba import njit

    @njit
    def leaf(x: int):
        return x + 1

    @njit
    def middle(x: int):
        return leaf(x) * 2

    @njit
    def top(x: int):
        return middle(x) - 3

    @njit
    def alone(y: float):
        z = y * 2.0
        return z

    @njit
    def broken(y: float):
        return y + (1, 2)
    """
)


def test_edit_one_function_reinfers_it_and_callers_whose_answers_change(ws) -> None:
    name = "inc_edit.py"
    path = ws.write(name, SOURCE)
    first = ws.engine.analyze(path, SOURCE)
    assert sorted(first.inferred) == ["alone", "broken", "leaf", "middle", "top"]
    again = ws.engine.analyze(path, SOURCE)
    assert again.inferred == [] and sorted(again.reused) == ["alone", "broken", "leaf", "middle", "top"]
    assert [d.message for d in again.diagnostics] == [d.message for d in first.diagnostics]

    # leaf still returns int64 for an int64: what middle asks of it is answered as before (early cutoff).
    edited = SOURCE.replace("return x + 1", "return x + 10")
    after_edit = ws.engine.analyze(path, edited)
    assert sorted(after_edit.inferred) == ["leaf"]
    assert sorted(after_edit.reused) == ["alone", "broken", "middle", "top"]
    top = next(f for f in after_edit.functions if f.name == "top")
    assert top.signatures[0].return_type == "int64"

    # leaf now returns float64: middle's typing changes, and so does top's, through middle.
    floating = SOURCE.replace("return x + 1", "return x + 1.5")
    after_float = ws.engine.analyze(path, floating)
    assert sorted(after_float.inferred) == ["leaf", "middle", "top"]
    returns = {f.name: f.signatures[0].return_type for f in after_float.functions if f.signatures}
    assert returns["leaf"] == returns["middle"] == returns["top"] == "float64"

    # Only `alone` changes: its callers (none) and itself.
    edited_alone = floating.replace("z = y * 2.0", "z = y * 3.0")
    result = ws.engine.analyze(path, edited_alone)
    assert result.inferred == ["alone"]


def test_moved_functions_are_reused_with_shifted_lines(ws) -> None:
    name = "inc_move.py"
    path = ws.write(name, SOURCE)
    first = ws.engine.analyze(path, SOURCE)
    (error,) = by_code(first, "typing-error")
    alone = next(f for f in first.functions if f.name == "alone").signatures[0]
    z_line = next(v.line for v in alone.variables if v.name == "z")

    moved = SOURCE.replace("@njit\ndef alone", "# two new lines\n# above alone\n@njit\ndef alone")
    result = ws.engine.analyze(path, moved)
    assert "alone" in result.reused and "broken" in result.reused
    (moved_error,) = by_code(result, "typing-error")
    assert moved_error.range.start.line == error.range.start.line + 2
    assert moved_error.range.start.character == error.range.start.character
    assert moved_error.message == error.message
    moved_alone = next(f for f in result.functions if f.name == "alone").signatures[0]
    assert next(v.line for v in moved_alone.variables if v.name == "z") == z_line + 2
    assert [c.line for c in moved_alone.call_types] == [c.line + 2 for c in alone.call_types]
    assert alone.call_types
    lines = moved.splitlines()
    assert lines[moved_error.range.start.line].strip() == "return y + (1, 2)"


def test_changed_imported_workspace_module_is_reloaded(ws) -> None:
    helper = ws.write(
        "inc_helper_mod.py",
        """
        from numba import njit

        @njit
        def helper(x):
            return x * 2
        """,
    )
    source = textwrap.dedent(
        """
        from numba import njit
        from inc_helper_mod import helper

        @njit
        def user(x: int):
            return helper(x)
        """
    )
    path = ws.write("inc_user.py", source)
    first = ws.engine.analyze(path, source)
    assert first.diagnostics == [] and first.functions[0].signatures[0].return_type == "int64"

    helper.write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit
            def helper(x):
                return x + (1, 2)
            """
        )
    )
    stat = helper.stat()
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    second = ws.engine.analyze(path, source)
    (error,) = [d for d in second.diagnostics if d.severity == "error"]
    assert error.function == "user" and "helper" in error.message
    assert error.relatedInformation and error.relatedInformation[0].path == str(helper)
    assert error.relatedInformation[0].range.start.line == 6 - 1
    assert "add(int64, Tuple(" in error.relatedInformation[0].message
    assert second.inferred == ["user"]


def test_edits_to_a_class_or_helper_the_function_reads_reinfer_it(ws) -> None:
    source = textwrap.dedent(
        """
        from numba import njit, float64
        from numba.experimental import jitclass

        @jitclass([("x", float64)])
        class Box:
            def __init__(self, x: float):
                self.x = x

            def get(self):
                return self.x

        @njit
        def uses_box(v: float):
            return Box(v).get()

        @njit
        def unrelated(v: float):
            return v
        """
    )
    path = ws.write("inc_class.py", source)
    first = ws.engine.analyze(path, source)
    assert next(f for f in first.functions if f.name == "uses_box").signatures[0].return_type == "float64"
    edited = source.replace("return self.x", "return int(self.x)")
    second = ws.engine.analyze(path, edited)
    assert "uses_box" in second.inferred and "unrelated" in second.reused
    assert next(f for f in second.functions if f.name == "uses_box").signatures[0].return_type == "int64"


def test_an_edited_overload_is_not_stale(ws) -> None:
    source = textwrap.dedent(
        """
        from numba import njit
        from numba.extending import overload

        def scale(x):
            return x

        @overload(scale)
        def _scale(x):
            def impl(x):
                return 1
            return impl

        @njit
        def user(v: float):
            return scale(v)
        """
    )
    path = ws.write("inc_overload.py", source)
    first = ws.engine.analyze(path, source)
    assert first.functions[0].signatures[0].return_type == "Literal[int](1)"  # as Numba says
    second = ws.engine.analyze(path, source.replace("return 1\n", "return 1.5\n"))
    assert second.functions[0].signatures[0].return_type == "float64"


def test_a_function_typed_for_a_caller_in_another_file_is_reused_when_its_own_file_is_analysed(ws) -> None:
    # As `check` of a package goes: a module typed as the callee of another module's function first, then
    # analysed itself. Its text read from its file then equals its text in the analysed buffer.
    ws.write(
        "inc_shared_kernels.py",
        """
        from numba import njit

        @njit
        def scaled(x: int):
            y = x * 2 + 1
            return y
        """,
    )
    caller = ws.analyze(
        "inc_kernel_user.py",
        """
        from numba import njit
        from inc_shared_kernels import scaled

        @njit
        def total(n: int):
            return scaled(n) + 1
        """,
    )
    assert caller.functions[0].signatures[0].return_type == "int64"
    own = ws.analyze("inc_shared_kernels.py")
    assert own.inferred == [] and own.reused == ["scaled"]
    assert [(s.args, s.return_type) for s in own.functions[0].signatures] == [(["int64"], "int64")]
