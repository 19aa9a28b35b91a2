"""The protocol-free pieces of the server: settings parsing, the scheduler's ordering guarantees,
which assignment reaches a use, and the signature spellings the quick fixes write."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyserver.lsp.scheduler import AnalysisScheduler, Outcome
from pyserver.lsp.settings import Settings, parse_settings
from pyserver.lsp.signature_spelling import signature_type, split_signature
from pyserver.lsp.syntax import names_in, reaching_store
from pyserver.lsp.views import discover


def test_settings_nested_flat_and_whole_payloads() -> None:
    nested = parse_settings({"inlayHints": {"maxLength": 12, "returnTypes": False}, "timeout": 5})
    flat = parse_settings({"inlayHints.maxLength": 12, "inlayHints.returnTypes": False, "timeout": 5})
    whole = parse_settings(
        {"numbaLens": {"inlayHints": {"maxLength": 12, "returnTypes": False}, "timeout": 5}}
    )
    assert nested == flat == whole
    assert nested.inlay_max_length == 12 and not nested.inlay_return_types and nested.timeout_s == 5.0
    severity = parse_settings({"severity": {"performance": "Off"}, "severity.typing-error": "warning"})
    assert dict(severity.severity) == {"performance": "off", "typing-error": "warning"}


def test_bad_settings_keep_their_defaults_and_are_reported() -> None:
    warnings: list[str] = []
    parsed = parse_settings(
        {"timeout": "soon", "analyzeOnType": "yes", "severity": {"x": "loud"}, "signatureFiles": "a.json"},
        warn=warnings.append,
    )
    assert parsed.timeout_s == Settings().timeout_s and parsed.analyze_on_type is False
    assert parsed.signature_files == () and dict(parsed.severity) == {}
    assert len(warnings) == 4


SSA = """\
from numba import njit


@njit
def f(n: int, flag: bool):
    x = 1
    y = x + 1
    x = 2.5
    z = x * 2
    for i in range(n):
        z += x
        if flag:
            x = 3.5
    w = x + z
    if flag:
        v = 1
    else:
        v = 2
    return y + z + w + v + n
"""


def _reaching(line: int, name: str) -> int | str | None:
    function = discover(SSA)[0]
    use = next(o for o in names_in(SSA, function) if o.line == line and o.name == name and o.role == "load")
    found = reaching_store(SSA, function, use)
    return None if found is None else (found.line if found.role == "store" else "param")


@pytest.mark.parametrize(
    ("line", "name", "expected"),
    [
        (7, "x", 6),  # y = x + 1: the first x
        (9, "x", 8),  # z = x * 2: the float
        (10, "n", "param"),
        (11, "x", None),  # in a loop that re-assigns x: either value
        (14, "x", None),  # after that loop: either value
        (14, "z", None),  # z is re-assigned in the loop
        (19, "v", None),  # two branches
        (19, "y", 7),
    ],
)
def test_reaching_assignment_only_when_certain(line: int, name: str, expected: int | str | None) -> None:
    assert _reaching(line, name) == expected


def test_signature_spellings_round_trip_through_numba() -> None:
    from numba.core import sigutils, types

    cases = {
        "array(float64, 1d, C)": types.Array(types.float64, 1, "C"),
        "array(int32, 2d, A)": types.Array(types.int32, 2, "A"),
        "array(float32, 3d, F)": types.Array(types.float32, 3, "F"),
        "bool": types.boolean,
        "UniTuple(int64 x 2)": types.UniTuple(types.int64, 2),
        "complex128": types.complex128,
    }
    for text, expected in cases.items():
        spelled = signature_type(text)
        assert spelled is not None
        args, _ = sigutils.normalize_signature(f"({spelled},)")
        assert args == (expected,), text
    assert signature_type("readonly array(float64, 1d, C)") is None
    assert signature_type("Record(a[type=int64;offset=0];8;False)") is None
    assert split_signature("(array(float64, 1d, C), UniTuple(int64 x 2)) -> float64") == [
        "array(float64, 1d, C)",
        "UniTuple(int64 x 2)",
    ]


# --- the scheduler ------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([0.0, 0.0, 0.01, 0.03]), st.integers(0, 15)),
        min_size=1,
        max_size=12,
    )
)
def test_scheduler_publishes_only_the_newest_result_per_document(
    requests: list[tuple[str, float, int]],
) -> None:
    """Whatever the interleaving of saves, debounced edits and slow runs: a result is published only
    while it answers the newest request for its document (never over a newer one), in request
    order, and the last request of each document is the last thing published for it."""

    async def scenario() -> None:
        published: list[Outcome[str]] = []
        newest: dict[str, int] = {}  # the newest request per document, as the client sees it
        stale: list[tuple[str, int, int]] = []

        def on_outcome(outcome: Outcome[str]) -> None:
            index = int(outcome.source.split(":")[0])
            if index != newest[outcome.uri]:
                stale.append((outcome.uri, index, newest[outcome.uri]))
            published.append(outcome)

        cancels: list[float] = []
        running = threading.Event()

        def analyze(uri: str, source: str) -> str:
            running.set()
            time.sleep(int(source.split(":")[1]) / 1000)
            return source

        with ThreadPoolExecutor(max_workers=1) as executor:
            scheduler: AnalysisScheduler[str] = AnalysisScheduler(
                executor,
                analyze,
                lambda: cancels.append(time.monotonic()),
                lambda uri, generation: None,
                on_outcome,
                lambda uri, generation: None,
            )
            last: dict[str, str] = {}
            for index, (uri, delay, work_ms) in enumerate(requests):
                source = f"{index}:{work_ms}"
                last[uri] = source
                newest[uri] = index
                scheduler.schedule(uri, source, delay)
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)  # let debounce timers fire
            await scheduler.wait_idle()
        assert stale == [], "published a result although a newer request for the document existed"
        for uri in last:
            mine = [int(o.source.split(":")[0]) for o in published if o.uri == uri]
            assert mine == sorted(mine) and len(mine) == len(set(mine))
            assert mine and mine[-1] == int(last[uri].split(":")[0])
        assert all(o.result == o.source and o.error is None for o in published)

    asyncio.run(scenario())


def test_discovery_for_hovers_and_lenses_parses_a_large_buffer_once(monkeypatch) -> None:
    import ast

    parts = ["from numba import njit", ""]
    for i in range(1000):
        parts += ["@njit", f"def f{i}(a, n):", "    t = a[0] + n", "    t = t * 2.0", "    return t", "", ""]
    source = "\n".join(parts) + "\n"
    parses: list[int] = []
    original = ast.parse

    def counting_parse(*args, **kwargs):  # type: ignore[no-untyped-def]
        parses.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting_parse)
    found = discover(source)
    assert len(found) == 1000 and len(parses) == 1  # the parse behind hovers' ASTs is the one reused
    assert discover(source) is found and len(parses) == 1


def test_a_run_superseded_while_it_waits_for_the_engine_thread_never_starts() -> None:
    """The engine drops a cancel when no call is in progress, so a run that is still waiting for the engine
    thread when a newer save arrives must not start at all (it would analyse an old text in full)."""

    async def scenario() -> None:
        analysed: list[str] = []
        gate = threading.Event()

        def analyze(uri: str, source: str) -> str:
            analysed.append(source)
            return source

        with ThreadPoolExecutor(max_workers=1) as executor:
            executor.submit(gate.wait, 10)  # the engine thread is busy (e.g. an IR view)
            scheduler: AnalysisScheduler[str] = AnalysisScheduler(
                executor, analyze, lambda: None, lambda u, g: None, lambda o: None, lambda u, g: None
            )
            scheduler.schedule("a", "old")
            await asyncio.sleep(0.05)  # "old" holds the lock and waits for the engine thread
            scheduler.schedule("a", "new")
            await asyncio.sleep(0.01)
            gate.set()
            await scheduler.wait_idle()
        assert analysed == ["new"]

    asyncio.run(scenario())


def test_debug_lenses_offer_each_launch_mode_for_the_kind_of_kernel() -> None:
    from pyserver.analysis.worker.discover.discovery import find_jitted_functions
    from pyserver.lsp.lenses import code_lenses

    source = (
        "from numba import cuda, njit\n\n\n@njit\ndef cpu(x):\n    return x\n\n\n"
        "@cuda.jit\ndef gpu(a):\n    a[0] = 1\n"
    )
    kinds = {f.name: f.kind for f in find_jitted_functions(source)}
    assert kinds == {"cpu": "njit", "gpu": "cuda"}
    lenses = code_lenses("file:///k.py", source, None, busy=False, trusted=True)
    debug = [
        (lens.title, lens.arguments[0]["function"], lens.arguments[0]["mode"])
        for lens in lenses
        if lens.command == "numbaLens.debugJitFunction"
    ]
    assert debug == [
        ("Debug JIT function", "cpu", "mixed"),
        ("Debug as Python", "cpu", "python"),
        ("Debug in CUDA simulator", "gpu", "cudasim"),
    ]
