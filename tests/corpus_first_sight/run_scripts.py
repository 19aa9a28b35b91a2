"""Runs every corpus script once, in one process (run under `python -m pyserver record`).

Scripts run as `__main__`, as a user runs them; test files are imported and their `test_*` functions
called, as pytest would. The lines of the corpus that ran are written to a JSON file, so that a
statically found call that never ran can be told apart from a wrong type.

usage: run_scripts.py SCRIPTS_DIR LINES_JSON
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys
import types


def _parametrize_cases(test: object) -> list[dict[str, object]]:
    """The keyword arguments pytest would call a test with for its `@pytest.mark.parametrize` marks
    (stacked marks multiply); one empty case without them."""
    cases: list[dict[str, object]] = [{}]
    for mark in getattr(test, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], mark.args[1]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        expanded = []
        for case in cases:
            for value in values:
                items = getattr(value, "values", None)  # pytest.param(...)
                if items is None:
                    items = tuple(value) if len(names) > 1 else (value,)
                expanded.append({**case, **dict(zip(names, items, strict=True))})
        cases = expanded
    return cases


def main() -> None:
    scripts, out = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    ran: dict[str, set[int]] = {}

    def local(frame: types.FrameType, event: str, arg: object) -> object:
        if event == "line":
            ran.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return local

    def tracer(frame: types.FrameType, event: str, arg: object) -> object:
        if frame.f_code.co_filename.startswith(scripts):
            return local(frame, event, arg)
        return None

    sys.path.insert(0, scripts)
    os.chdir(scripts)
    failures = []
    for name in sorted(os.listdir(scripts)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(scripts, name)
        sys.argv = [path]
        sys.settrace(tracer)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                if name.startswith("test_"):
                    namespace = runpy.run_path(path, run_name="corpus_test")
                    for key, value in sorted(namespace.items()):
                        if key.startswith("test_") and callable(value):
                            for case in _parametrize_cases(value):
                                value(**case)
                else:
                    runpy.run_path(path, run_name="__main__")
        except Exception as exc:  # a script that fails is reported, the others still run
            failures.append(f"{name}: {type(exc).__name__}: {exc}")
        finally:
            sys.settrace(None)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"ran": {k: sorted(v) for k, v in ran.items()}, "failures": failures}, handle)


if __name__ == "__main__":
    main()
