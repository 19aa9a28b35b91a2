"""Python callers of a jitted frame, read from memory while gdb holds the program: instances with their
fields, namedtuples and tuples, lists, dicts and sets, NumPy arrays, numba.typed List and Dict, and a
`<module>` frame's globals, each equal to Python's repr() wherever a value is shown
(tests/debug/programs/python_callers.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dapclient import DapClient

PROGRAM = Path(__file__).resolve().parent / "programs" / "python_callers.py"


def stop_line() -> int:
    return next(n for n, t in enumerate(PROGRAM.read_text().splitlines(), 1) if t.endswith("# STOP"))


def children(dap: DapClient, variable: dict[str, Any]) -> dict[str, dict[str, Any]]:
    reference = int(variable.get("variablesReference") or 0)
    assert reference, variable
    body = dap.ok("variables", {"variablesReference": reference})
    return {v["name"]: v for v in body["variables"]}


def test_caller_frames_show_objects_in_full(dap: DapClient, tmp_path: Path) -> None:
    expected_file = tmp_path / "expected.json"
    launch = dap.start(
        PROGRAM, breakpoints={stop_line(): {}}, env={"NUMBA_LENS_EXPECTED": str(expected_file)}
    )
    assert launch["success"], launch
    stop = dap.stopped()
    expected = json.loads(expected_file.read_text())
    frames = dap.top_frames(stop["threadId"])
    assert frames[1]["name"] == "main" and frames[2]["name"] == "<module>"
    caller = dap.scope_variables(frames[1]["id"])["Locals (read-only)"]

    box = caller["box"]
    assert box["value"] == "<Box object>"
    fields = children(dap, box)
    assert {name: fields[name]["value"] for name in expected["box"]} == expected["box"]
    assert fields["counts"]["value"] == expected["counts"]  # a typed List held by an instance
    assert children(dap, fields["tags"])["[1]"]["value"] == "2"
    for name in ("stats", "pair", "items", "table", "seen"):
        assert caller[name]["value"] == expected[name], name
    assert set(children(dap, caller["stats"])) == {"count", "mean"}
    assert children(dap, caller["table"])["'b'"]["value"] == "[2, 3]"
    arr = children(dap, caller["arr"])
    assert arr["dtype"]["value"] == "float64" and arr["shape"]["value"] == "(4,)"
    assert [arr[f"[{i}]"]["value"] for i in range(4)] == expected["arr"]

    # numba.typed containers: decoded from their payload as the jitted side decodes them.
    typed = caller["typed"]
    assert (typed["value"], typed["type"]) == (expected["typed"], "ListType[int64]")
    assert [v["value"] for v in children(dap, typed).values()] == expected["typed_items"]
    weights = caller["weights"]
    assert weights["value"] == expected["weights"]  # the deleted entry left out, order kept
    assert weights["type"].startswith("DictType[unicode_type,float64]")
    assert {name: v["value"] for name, v in children(dap, weights).items()} == expected["weights_items"]
    assert caller["untyped"]["value"] == expected["untyped"]
    # Tuple values are not decoded: the whole dict is unavailable, with the reason, never guessed.
    assert caller["spans"]["value"].startswith("<unavailable: "), caller["spans"]

    module = dap.scope_variables(frames[2]["id"])["Locals (read-only)"]
    for name, text in expected["globals"].items():
        assert module[name]["value"] == text, name
    assert not any(name.startswith("__") for name in module)

    dap.ok("setBreakpoints", {"source": {"path": str(PROGRAM)}, "breakpoints": []})
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
