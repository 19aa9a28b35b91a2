"""The save -> diagnostics path does no work that publishing does not need: the server does not parse
the buffer before handing it to the engine (the worker parses it), and a completed analysis finds its
functions (for hover, inlay hints, lenses) on first use, not before its diagnostics are published."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from pyserver.analysis.api import may_make_jitted, with_analysed
from pyserver.analysis.model import FileResult, FunctionInfo
from pyserver.lsp.engine_host import Engine, EngineHost
from pyserver.lsp.environment import NumbaCheck
from pyserver.lsp.settings import Settings
from pyserver.lsp.views import AnalysedDocument, discover, function_views

SOURCE = """from numba import njit


@njit
def f(a: "float64[::1]", n: int):
    return a[0] + n
"""


class FakeEngine:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None]] = []

    def analyze(self, path: str | Path, source: str | None = None) -> FileResult:
        self.calls.append((str(path), source))
        return FileResult(str(path))

    def ir_view(self, path: Any, source: Any, function: str, signature_index: int, kind: str) -> Any:
        raise AssertionError("not asked for")

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


def host_of(engine: Engine) -> EngineHost:
    """An engine host over `engine`, whose Numba probe finds a usable Numba at once."""
    return EngineHost(
        numba_check=lambda: NumbaCheck(True, "0.61.0", "Numba 0.61.0"),
        engine_factory=lambda settings, root: engine,
    )


def counting_parses(monkeypatch: Any) -> list[int]:
    parses: list[int] = []
    original = ast.parse

    def counting_parse(*args: Any, **kwargs: Any) -> Any:
        parses.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting_parse)
    return parses


def test_a_buffer_that_names_numba_goes_to_the_engine_unparsed(monkeypatch: Any) -> None:
    engine = FakeEngine()
    host = host_of(engine)
    source = SOURCE + "\n# a new text: no cache of an earlier parse answers\n"
    parses = counting_parses(monkeypatch)
    host.analyze("file:///tmp/save_path.py", source, Settings(), "/tmp")
    assert engine.calls == [("/tmp/save_path.py", source)]
    assert parses == []


def test_a_buffer_with_nothing_jitted_still_never_reaches_the_engine(monkeypatch: Any) -> None:
    engine = FakeEngine()
    host = host_of(engine)
    result = host.analyze("file:///tmp/plain.py", "def g(x):\n    return x + 1\n", Settings(), "/tmp")
    assert engine.calls == [] and result.functions == [] and result.diagnostics == []
    assert may_make_jitted("def g(x):\n    return x + 1\n") is False


def test_a_buffer_whose_functions_a_recorded_run_typed_reaches_the_engine(tmp_path: Path) -> None:
    """No Numba in the text, but the workspace's signatures file holds what Numba typed for its functions
    (another module jitted them): the engine shows those types."""
    (tmp_path / ".numba-lens").mkdir()
    typed = {"args": ["float64"], "types": None, "ok": True, "variables": [{"name": "x", "type": "float64"}]}
    store_text = json.dumps({"version": 1, "functions": {"formulas.py::rho": [typed]}, "notes": []})
    (tmp_path / ".numba-lens" / "signatures.json").write_text(store_text)
    engine = FakeEngine()
    host = host_of(engine)
    plain = "def rho(x):\n    return x * x\n"
    host.analyze((tmp_path / "formulas.py").as_uri(), plain, Settings(), str(tmp_path))
    host.analyze((tmp_path / "other.py").as_uri(), plain, Settings(), str(tmp_path))
    assert engine.calls == [(str(tmp_path / "formulas.py"), plain)]


def test_an_analysed_document_finds_its_functions_on_first_use(monkeypatch: Any) -> None:
    source = SOURCE + "\n# another new text\n"
    info = FunctionInfo(path="/tmp/m.py", name="f", line=5, end_line=6, decorator_line=4, kind="njit")
    result = FileResult("/tmp/m.py", functions=[info])
    parses = counting_parses(monkeypatch)
    document = AnalysedDocument("file:///tmp/m.py", "/tmp/m.py", source, 1, result)
    assert parses == []  # nothing parsed before the diagnostics are published
    functions = document.functions
    assert parses == [1]
    assert functions == with_analysed(discover(source), source, result.functions)
    assert [f.name for f in functions] == ["f"]
    assert document.functions is functions and parses == [1]
    views = function_views(source, document)
    assert [(v.current.name, v.state, v.info) for v in views] == [("f", "current", info)]
