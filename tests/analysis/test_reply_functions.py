"""The worker sends the functions of an analysis as what changed since the reply the engine holds
(pyserver.analysis.reply_functions): the engine's result must be the one a full reply gives."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from analysis_helpers import function_named

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FunctionInfo, SignatureResult
from pyserver.analysis.reply_functions import ReceivedFunctions, SentFunctions

CALLEE_INT = "@njit\ndef callee(x):\n    return x + 1\n"
CALLEE_FLOAT = "@njit\ndef callee(x):\n    return x + 1.5\n"
REST = """
@njit
def caller(n: int):
    y = callee(n)
    return y


@njit
def alone(n: int):
    return n * 2
"""


def _function(name: str, return_type: str, line: int = 1) -> FunctionInfo:
    return FunctionInfo(
        "/w/m.py", name, line, signatures=[SignatureResult(["int64"], "annotation", return_type=return_type)]
    )


def test_unchanged_functions_are_the_engines_own_and_changed_ones_arrive_whole() -> None:
    sent, received = SentFunctions(), ReceivedFunctions()
    first = [_function("f", "int64"), _function("g", "float64", 5)]
    assert received.known("/w/m.py") == 0
    encoded = sent.encode("/w/m.py", first, received.known("/w/m.py"), 1)
    assert all(isinstance(item, bytes) for item in encoded)  # nothing in common yet
    held = received.decode("/w/m.py", encoded, 0, 1)
    assert held == first
    second = [_function("f", "int64"), _function("g", "int64", 5)]  # g's return type changed
    encoded = sent.encode("/w/m.py", second, received.known("/w/m.py"), 2)
    assert encoded[0] == 0 and isinstance(encoded[1], bytes)
    decoded = received.decode("/w/m.py", encoded, 1, 2)
    assert decoded == second and decoded[0] is held[0]
    assert decoded[1].signatures[0].return_type == "int64"
    # A value equal under == but not the same (1 == 1.0 == True) is another pickle: sent whole.
    third = [_function("f", "int64"), _function("g", "int64", 5)]
    third[0].options = {"fastmath": True}
    decoded[0].options = {"fastmath": 1}  # what the engine held (never changed in place in practice)
    encoded = sent.encode("/w/m.py", third, received.known("/w/m.py"), 3)
    assert isinstance(encoded[0], bytes)


def test_a_reply_the_engine_did_not_keep_is_never_referred_to() -> None:
    sent, received = SentFunctions(), ReceivedFunctions()
    functions = [_function("f", "int64")]
    received.decode("/w/m.py", sent.encode("/w/m.py", functions, 0, 1), 0, 1)
    sent.encode("/w/m.py", functions, 1, 2)  # reply 2 never reached the engine (cancelled, stale)
    encoded = sent.encode("/w/m.py", functions, received.known("/w/m.py"), 3)
    assert isinstance(encoded[0], bytes)  # the worker kept reply 2, the engine holds reply 1: all sent
    received.decode("/w/m.py", encoded, 1, 3)
    assert sent.encode("/w/m.py", functions, received.known("/w/m.py"), 4) == [0]  # in step again
    with pytest.raises(RuntimeError):  # a reply naming functions of a reply the engine does not hold
        received.decode("/w/m.py", [0], 2, 4)


@pytest.fixture(scope="module")
def engines(warm_engine: Callable[[str], AnalysisEngine]) -> tuple[AnalysisEngine, AnalysisEngine]:
    return warm_engine("reply-functions-edits"), warm_engine("reply-functions-fresh")


def test_an_edit_of_a_callee_retypes_its_caller_as_a_fresh_analysis_does(
    engines: tuple[AnalysisEngine, AnalysisEngine],
) -> None:
    editing, fresh = engines
    path = Path(editing.workspace_root) / "edited.py"
    header = "from numba import njit\n\n\n"
    before = editing.analyze(path, header + CALLEE_INT + REST)
    after = editing.analyze(path, header + CALLEE_FLOAT + REST)
    assert function_named(before, "caller").signatures[0].return_type == "int64"
    assert function_named(after, "caller").signatures[0].return_type == "float64"
    assert function_named(after, "alone") is function_named(before, "alone")  # the engine's own, kept
    fresh.recycle()
    from_scratch = fresh.analyze(Path(fresh.workspace_root) / "edited.py", header + CALLEE_FLOAT + REST)

    def what(function: FunctionInfo, root: str) -> str:
        found = dataclasses.asdict(function)
        for signature in found["signatures"]:
            signature.pop("inference_ms")  # how long it took, not what it is
        return json.dumps(found, sort_keys=True).replace(root, "<root>")

    assert [what(f, editing.workspace_root) for f in after.functions] == [
        what(f, fresh.workspace_root) for f in from_scratch.functions
    ]
