"""The fidelity harness: a program traced in pure Python against the same program in a mixed session.

A program marks lines with comments: `# fid: break` (a breakpoint that must stop each time the line
runs, and only then; on a `for` or `while` line, each time Python's tracer reports it: once per
iteration and once when the loop ends), `# fid: next N` / `# fid: in N` (from the line's first run, N
Step Overs or Step Intos that must land on the lines Python's tracer gives) and `# fid: out N` (from
the line's first run, N Step Outs, each ending where debugpy ends it in pure Python: in the caller, on
the line of the call, with the caller's variables as they are when the callee returns); several marks
are separated by commas. At every stop, each variable Python holds is compared with what the
Variables view shows:

- live: assigned before the stop and read at or after it (by the lines the frame runs next);
- shown / unavailable: a live variable with a value, or `<unavailable>` / not listed;
- equal / wrong: a shown value (live or not) that equals Python's, or does not;
- out of sequence: a stop that Python's line sequence does not have, or one it has that did not come.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
sys.path.insert(0, str(HERE.parent))

from dapclient import DapClient  # noqa: E402

STOP_TIMEOUT_S = 120.0
# Children read per array/list level: enough to compare every item of the programs' small arrays.
MAX_CHILDREN = 64


@dataclass
class Marks:
    breaks: list[int]
    steps: list[tuple[int, str, int]]  # (line, "next" | "stepIn" | "stepOut", count)


STEP_COMMANDS = {"next": "next", "in": "stepIn", "out": "stepOut"}


def read_marks(program: Path) -> Marks:
    breaks: list[int] = []
    steps: list[tuple[int, str, int]] = []
    for number, text in enumerate(program.read_text().splitlines(), start=1):
        if "# fid:" not in text:
            continue
        for mark in text.split("# fid:", 1)[1].split("#", 1)[0].split(","):
            words = mark.split()
            if words[0] == "break":
                breaks.append(number)
            elif words[0] in STEP_COMMANDS:
                steps.append((number, STEP_COMMANDS[words[0]], int(words[1])))
    return Marks(breaks, steps)


def jitted_functions(program: Path) -> set[str]:
    tree = ast.parse(program.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Name) and target.id in ("njit", "jit"):
                    names.add(node.name)
    return names


def names_by_line(program: Path) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """Per line: the names it reads and the names it writes (an augmented assignment does both)."""
    reads: dict[int, set[str]] = {}
    writes: dict[int, set[str]] = {}
    tree = ast.parse(program.read_text())
    # A `for` line runs again each iteration without evaluating its iterable again: the iterable's
    # names are not read there (so they count as live at fewer stops, never at more).
    once = {id(n) for loop in ast.walk(tree) if isinstance(loop, ast.For) for n in ast.walk(loop.iter)}
    for node in ast.walk(tree):
        if id(node) in once:
            continue
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            reads.setdefault(node.target.lineno, set()).add(node.target.id)
        if isinstance(node, ast.Name):
            table = reads if isinstance(node.ctx, ast.Load) else writes
            table.setdefault(node.lineno, set()).add(node.id)
        elif isinstance(node, ast.arg):
            writes.setdefault(node.lineno, set()).add(node.arg)
    return reads, writes


@dataclass
class Trace:
    """Python's run of a program: its line events in order, and its returns to a program frame."""

    lines: list[dict[str, Any]]
    returns: list[dict[str, Any]]


def trace(program: Path) -> Trace:
    out = Path(tempfile.gettempdir()) / f"numba-lens-trace-{program.stem}-{os.getpid()}.json"
    try:
        subprocess.run(
            [sys.executable, str(HERE / "trace_python.py"), str(program), str(out)],
            env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
            check=True,
            capture_output=True,
            cwd=program.parent,
            timeout=120,
        )
        data = json.loads(out.read_text())
        return Trace(list(data["lines"]), list(data["returns"]))
    finally:
        out.unlink(missing_ok=True)


def live_names(events: list[dict[str, Any]], index: int, program: Path) -> set[str]:
    """The variables of the event's frame that are read before being written again from this line on."""
    reads, writes = names_by_line(program)
    frame = events[index]["frame"]
    pending = set(events[index]["locals"])
    live: set[str] = set()
    for event in events[index:]:
        if event["frame"] != frame:
            continue
        line = event["line"]
        live |= pending & reads.get(line, set())
        pending -= reads.get(line, set()) | writes.get(line, set())
        if not pending:
            break
    return live


@dataclass
class Tally:
    live: int = 0
    shown: int = 0
    equal: int = 0
    unavailable: int = 0
    wrong: int = 0
    out_of_sequence: int = 0
    stops: int = 0
    steps: int = 0
    problems: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("live", "shown", "equal", "unavailable", "wrong", "out_of_sequence", "stops", "steps"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems += other.problems

    def line(self) -> str:
        share = self.unavailable / self.live if self.live else 0.0
        return (
            f"stops {self.stops} (steps {self.steps}): live {self.live}, shown {self.shown}, equal {self.equal}, "
            f"unavailable {self.unavailable} ({share:.0%}), wrong {self.wrong}, "
            f"out of sequence {self.out_of_sequence}"
        )


UNAVAILABLE_PREFIX = "<unavailable"
TYPED_CONTAINERS = ("List", "Dict")


def _children(dap: DapClient, reference: int) -> list[dict[str, Any]]:
    body = dap.ok("variables", {"variablesReference": reference, "start": 0, "count": MAX_CHILDREN})
    return [v for v in body["variables"] if not v["name"].startswith(("len(", "shape", "dtype"))]


def python_value(expected: list[Any]) -> Any:
    """The canonical value back as the Python object (for comparing debugpy's repr); None if it has none."""
    kind = expected[0]
    if kind in ("bool", "int", "str"):
        return expected[1]
    if kind == "float":
        return float(expected[1])
    if kind == "complex":
        return complex(expected[1], expected[2])
    if kind == "array":
        items = [python_value(item) for item in expected[3]]
        if any(item is None for item in items):
            return None  # e.g. records: their repr is not compared
        return np.array(items, dtype=expected[1]).reshape(expected[2])
    if kind in ("list", "tuple"):
        items = [python_value(item) for item in expected[1]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {python_value(k): python_value(v) for k, v in expected[1]}
    return None


def same_value(
    dap: DapClient, shown: dict[str, Any], expected: list[Any], python_frame: bool = False
) -> bool | None:
    """Whether the DAP variable shows the expected canonical value; None when it cannot be compared.
    In a Python frame (debugpy) a value is its repr, except typed containers, which have items."""
    kind = expected[0]
    text = str(shown.get("value", ""))
    reference = int(shown.get("variablesReference") or 0)
    if python_frame and kind == "namedtuple":
        items = [python_value(item) for item in expected[3]]
        if any(item is None for item in items):
            return None
        fields = ", ".join(f"{name}={item!r}" for name, item in zip(expected[2], items, strict=True))
        return text == f"{expected[1]}({fields})"
    if python_frame:
        obj = python_value(expected)
        if obj is not None and text == repr(obj):
            return True
        if kind not in ("list", "dict") or not reference:
            return None if obj is None else False
    try:
        if kind == "bool":
            return text == repr(expected[1])
        if kind == "int":
            return int(text) == expected[1]
        if kind == "float":
            return float(text) == float(expected[1])
        if kind == "complex":
            return complex(text.strip("()").replace(" ", "")) == complex(expected[1], expected[2])
    except ValueError:
        return False
    if kind == "str":
        return text in (expected[1], repr(expected[1]))
    if kind in ("array", "list", "tuple"):
        items = expected[3] if kind == "array" else expected[1]
        if not reference:
            return None
        children = _children(dap, reference)
        if len(items) <= MAX_CHILDREN and len(children) != len(items):
            return False
        verdicts = [same_value(dap, child, item) for child, item in zip(children, items, strict=False)]
        return None if None in verdicts else all(verdicts)
    if kind == "record":
        if not reference:
            return None
        by_name = {child["name"]: child for child in _children(dap, reference)}
        if set(by_name) != set(expected[1]):
            return False
        verdicts = [same_value(dap, by_name[name], item) for name, item in expected[1].items()]
        return None if None in verdicts else all(verdicts)
    if kind == "dict":
        if not reference:
            return None
        children = _children(dap, reference)
        by_name = {child["name"]: child for child in children}
        if len(children) != len(expected[1]):
            return False
        verdicts = []
        for key, item in expected[1]:
            child = by_name.get(str(key[1])) or by_name.get(repr(key[1]))
            verdicts.append(False if child is None else same_value(dap, child, item))
        return None if None in verdicts else all(verdicts)
    return None


def compare_stop(
    dap: DapClient,
    frame: dict[str, Any],
    event: dict[str, Any],
    live: set[str],
    where: str,
    python_frame: bool,
) -> Tally:
    tally = Tally(stops=1)
    shown: dict[str, dict[str, Any]] = {}
    for scope_variables in dap.scope_variables(frame["id"]).values():
        shown.update(scope_variables)
    for name, expected in event["locals"].items():
        variable = shown.get(name)
        available = variable is not None and not str(variable.get("value", "")).startswith(UNAVAILABLE_PREFIX)
        if name in live:
            tally.live += 1
            if available:
                tally.shown += 1
            else:
                tally.unavailable += 1
                tally.problems.append(f"{where}: {name} unavailable: {variable and variable.get('value')}")
        if not available:
            continue
        assert variable is not None
        verdict = same_value(dap, variable, expected, python_frame)
        if verdict is True:
            tally.equal += 1
        elif verdict is False:
            tally.wrong += 1
            tally.problems.append(f"{where}: {name} shows {variable.get('value')!r}, Python has {expected}")
    for name, variable in shown.items():
        if python_frame:
            break  # debugpy's groups ("special variables") and module-level names are no locals to check
        if name not in event["locals"] and not str(variable.get("value", "")).startswith(UNAVAILABLE_PREFIX):
            if "." in name or name.startswith(("$", "[")):
                continue
            tally.wrong += 1
            tally.problems.append(f"{where}: {name} shows {variable.get('value')!r} before Python assigns it")
    return tally


def _wait_stop(dap: DapClient) -> dict[str, Any] | None:
    message = dap.wait_for(
        lambda m: m.get("type") == "event" and m.get("event") in ("stopped", "terminated"),
        STOP_TIMEOUT_S,
        "stopped or terminated",
    )
    return None if message["event"] == "terminated" else dict(message["body"])


def _is_python(frame: dict[str, Any]) -> bool:
    """A frame debugpy shows (the mixed session names jitted frames with their signature)."""
    return "(" not in str(frame.get("name", ""))


def _top_frame(dap: DapClient, stop: dict[str, Any]) -> dict[str, Any]:
    return dap.top_frames(stop["threadId"], levels=1)[0]


def _align(
    expected: list[int], actual: list[int], agreement: Callable[[int, int], int] | None = None
) -> tuple[list[tuple[int, int]], int]:
    """Pairs (expected index, actual index) of stops on the same line, in order, as many as can be, and
    the count of stops left unpaired (out of sequence). Among alignments with that many pairs, the one
    whose paired stops agree most in their values (`agreement`): when a stop is missing, the next stop
    on that line is not then compared with the wrong run of the line. With the sequences equal the
    alignment is the identity, whatever `agreement` says."""
    rows, cols = len(expected), len(actual)
    # best[i][j]: (pairs, agreement) for expected[i:] against actual[j:]
    best = [[(0, 0)] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            options = [best[i + 1][j], best[i][j + 1]]
            if expected[i] == actual[j]:
                pairs, agree = best[i + 1][j + 1]
                options.append((pairs + 1, agree + (agreement(i, j) if agreement else 0)))
            best[i][j] = max(options)
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < rows and j < cols:
        if expected[i] == actual[j]:
            pairs, agree = best[i + 1][j + 1]
            if best[i][j] == (pairs + 1, agree + (agreement(i, j) if agreement else 0)):
                out.append((i, j))
                i, j = i + 1, j + 1
                continue
        if best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return out, (rows - len(out)) + (cols - len(out))


def run_breaks(program: Path, events: list[dict[str, Any]], log: Path) -> Tally:
    """One session with every `# fid: break` line: each stop in Python's order, each value compared."""
    marks = read_marks(program)
    wanted = [i for i, e in enumerate(events) if e["line"] in marks.breaks]
    dap = DapClient(str(log))
    stops: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
    records: list[tuple[dict[str, Any], _Snapshot]] = []
    try:
        assert dap.start(program, breakpoints={line: {} for line in marks.breaks})["success"]
        while len(stops) <= len(wanted) + 5:
            stop = _wait_stop(dap)
            if stop is None:
                break
            frame = _top_frame(dap, stop)
            stops.append((int(frame["line"]), stop, frame))
            # Values are read at the stop (they change once it runs on); compared after alignment.
            records.append((frame, _read_all(dap, frame, _is_python(frame))))
            dap.ok("continue", {"threadId": stop["threadId"]})
    finally:
        dap.close()
    expected = [(events[i], live_names(events, i, program)) for i in wanted]
    return _score(program, expected, [s[0] for s in stops], records)


@dataclass
class _Snapshot:
    """The Variables view at one stop, children included, read while the program stood there."""

    variables: dict[str, dict[str, Any]]
    children: dict[int, list[dict[str, Any]]]


class _Replay:
    """Answers `variables` from a snapshot, so comparisons can run after the session moved on."""

    def __init__(self, snapshot: _Snapshot) -> None:
        self.snapshot = snapshot

    def ok(self, command: str, arguments: dict[str, Any]) -> dict[str, Any]:
        assert command == "variables"
        return {"variables": self.snapshot.children.get(arguments["variablesReference"], [])}

    def scope_variables(self, frame_id: int) -> dict[str, dict[str, dict[str, Any]]]:
        return {"all": self.snapshot.variables}


def _read_all(dap: DapClient, frame: dict[str, Any], python_frame: bool) -> _Snapshot:
    variables: dict[str, dict[str, Any]] = {}
    for scope_variables in dap.scope_variables(frame["id"]).values():
        variables.update(scope_variables)
    children: dict[int, list[dict[str, Any]]] = {}
    # In a Python frame only typed containers are opened (debugpy's own children are its business).
    todo = [
        int(v.get("variablesReference") or 0)
        for v in variables.values()
        if not python_frame or str(v.get("type")) in TYPED_CONTAINERS
    ]
    depth = 0
    while todo and depth < 3:
        nxt = []
        for reference in todo:
            if reference and reference not in children:
                body = dap.ok(
                    "variables", {"variablesReference": reference, "start": 0, "count": MAX_CHILDREN}
                )
                children[reference] = body["variables"]
                nxt += [int(v.get("variablesReference") or 0) for v in body["variables"]]
        todo, depth = nxt, depth + 1
    return _Snapshot(variables, children)


def _score(
    program: Path,
    expected: list[tuple[dict[str, Any], set[str]]],
    actual_lines: list[int],
    records: list[tuple[dict[str, Any], _Snapshot]],
) -> Tally:
    """Stops compared with Python's: `expected` holds each stop Python has (its event, with the locals
    then) and the names live there."""
    tally = Tally()
    expected_lines = [event["line"] for event, _ in expected]
    jitted = jitted_functions(program)

    def compare(expected_index: int, actual_index: int) -> Tally:
        event, live = expected[expected_index]
        frame, snapshot = records[actual_index]
        where = f"{program.name}:{event['line']} (stop {actual_index + 1})"
        python_frame = event["function"] not in jitted
        return compare_stop(_Replay(snapshot), frame, event, live, where, python_frame)  # type: ignore[arg-type]

    def agreement(expected_index: int, actual_index: int) -> int:
        part = compare(expected_index, actual_index)
        return part.equal - part.wrong

    pairs, missing = _align(
        expected_lines, actual_lines, agreement if expected_lines != actual_lines else None
    )
    tally.out_of_sequence = missing
    if missing:
        tally.problems.append(f"{program.name}: stops {actual_lines}, Python runs {expected_lines}")
    for expected_index, actual_index in pairs:
        tally.add(compare(expected_index, actual_index))
    return tally


def expected_steps(
    events: list[dict[str, Any]], start: int, command: str, count: int, jitted: set[str]
) -> list[int]:
    """The event indices Python's tracer gives for `count` steps from event `start`, while in jitted code."""
    out: list[int] = []
    current = start
    for _ in range(count):
        depth = events[current]["depth"]
        following = [
            j for j in range(current + 1, len(events)) if command == "stepIn" or events[j]["depth"] <= depth
        ]
        if not following or events[following[0]]["function"] not in jitted:
            break
        current = following[0]
        out.append(current)
    return out


def expected_step_outs(
    traced: Trace, start: int, count: int, program: Path
) -> list[tuple[dict[str, Any], set[str]]]:
    """The stops of `count` Step Outs from event `start`, as debugpy makes them in pure Python: each at
    the return of the frame it starts in, shown in the caller (on the line of the call, with the
    caller's locals at that moment); and the names live there (read by the rest of the caller's run)."""
    out: list[tuple[dict[str, Any], set[str]]] = []
    frame, after = traced.lines[start]["frame"], start + 1
    for _ in range(count):
        found = next((r for r in traced.returns if r["after"] >= after and r["frame"] == frame), None)
        if found is None:
            break
        caller = found["caller"]
        live = live_names([caller, *traced.lines[found["after"] :]], 0, program)
        out.append((caller, live))
        frame, after = caller["frame"], found["after"]
    return out


def run_steps(program: Path, traced: Trace, log: Path) -> Tally:
    """One session per `# fid: next/in/out N` line: from its first run, N steps in Python's order."""
    tally = Tally()
    events = traced.lines
    jitted = jitted_functions(program)
    for line, command, count in read_marks(program).steps:
        start = next(i for i, e in enumerate(events) if e["line"] == line)
        expected = [(events[start], live_names(events, start, program))]
        if command == "stepOut":
            expected += expected_step_outs(traced, start, count, program)
        else:
            expected += [
                (events[i], live_names(events, i, program))
                for i in expected_steps(events, start, command, count, jitted)
            ]
        dap = DapClient(str(log))
        actual: list[int] = []
        records: list[tuple[dict[str, Any], _Snapshot]] = []
        try:
            assert dap.start(program, breakpoints={line: {}})["success"]
            stop = _wait_stop(dap)
            if stop is None:  # the line never stopped: every stop of the range is out of sequence
                part = Tally(out_of_sequence=len(expected), steps=len(expected) - 1)
                part.problems.append(f"{program.name}:{line} never stopped")
                tally.add(part)
                continue
            frame = _top_frame(dap, stop)
            dap.ok("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": []})
            actual.append(int(frame["line"]))
            records.append((frame, _read_all(dap, frame, _is_python(frame))))
            ended = False
            for _ in range(len(expected) - 1):
                dap.ok(command, {"threadId": stop["threadId"]})
                next_stop = _wait_stop(dap)
                if next_stop is None:
                    ended = True  # the program ran to its end: the missing stops are out of sequence
                    break
                stop = next_stop
                frame = _top_frame(dap, stop)
                actual.append(int(frame["line"]))
                records.append((frame, _read_all(dap, frame, _is_python(frame))))
            if not ended:
                dap.ok("continue", {"threadId": stop["threadId"]})
                dap.event("terminated")
        finally:
            dap.close()
        part = _score(program, expected, actual, records)
        part.steps = len(expected) - 1
        if part.out_of_sequence:
            part.problems.append(f"{program.name}:{line} {command} x{count}")
        tally.add(part)
    return tally


def run_program(program: Path, log_dir: Path) -> tuple[Tally, Tally]:
    traced = trace(program)
    return run_breaks(program, traced.lines, log_dir / f"{program.stem}-breaks.log"), run_steps(
        program, traced, log_dir / f"{program.stem}-steps.log"
    )


def programs(names: list[str] | None = None) -> list[Path]:
    """The harness's programs, or those whose stems are named."""
    found = sorted(PROGRAMS.glob("*.py"))
    return [p for p in found if p.stem in names] if names else found
