"""Explanations through the real server over stdio (real Numba in its worker): why/fix in the diagnostic
data and the hover, a quick fix applied and re-checked, Hint diagnostics behind numbaLens.typeHints,
the parallel report as inlay hints and hover, and the numbaLens/typeStability request."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types as lsp

sys.path.insert(0, str(Path(__file__).parents[1] / "lsp"))
from lsp_session import Session, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
CORPUS = Path(__file__).parent / "corpus"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def session(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    root = tmp_path_factory.mktemp("insight_lsp")
    for name in ("plain_function_broken.py", "type_hints.py", "parallel.py"):
        shutil.copy(CORPUS / name, root / name)
    session = await start_session(root, settings={"typeHints": True})
    yield session
    await session.shutdown()


async def test_error_explained_and_fixed_through_the_protocol(session: Session) -> None:
    [diagnostic] = await session.open("plain_function_broken.py")
    data = diagnostic.data
    assert isinstance(data, dict) and data["errorClass"] == "plain-function"
    assert "plain Python function" in data["why"] and "@njit" in data["fix"]
    hover = await session.hover(
        "plain_function_broken.py", diagnostic.range.start.line, diagnostic.range.start.character + 1
    )
    assert hover is not None and "**Why (typing-error):**" in hover and "**Fix:**" in hover
    [action] = await session.code_actions("plain_function_broken.py", diagnostic)
    assert action.title == "Compile 'helper' too: add @njit to it"
    fixed = session.apply("plain_function_broken.py", action)
    assert await session.save("plain_function_broken.py", fixed) == []


async def test_type_hints_are_published_with_the_setting(session: Session) -> None:
    diagnostics = await session.open("type_hints.py")
    hints = {(d.code, d.range.start.line + 1) for d in diagnostics}
    assert hints == {("type-promotion", 6), ("type-layout", 8), ("type-optional", 12)}
    assert all(d.severity == lsp.DiagnosticSeverity.Hint for d in diagnostics)
    stability = await session.client.protocol.send_request_async(
        "numbaLens/typeStability", {"uri": session.uri("type_hints.py")}
    )
    functions = {f["name"]: f for f in stability["functions"]}
    levels = {entry["line"] + 1: entry["level"] for entry in functions["accumulate"]["lines"]}
    assert levels[6] == levels[12] == "unstable"
    assert {entry["level"] for entry in functions["contiguous"]["lines"]} == {"stable"}


async def test_parallel_report_as_inlay_hints_and_hover(session: Session) -> None:
    diagnostics = await session.open("parallel.py")
    # typeHints is on: `b` ('A' layout) is indexed in the nested loop; nothing else is reported
    assert [(d.code, d.range.start.line + 1) for d in diagnostics] == [("type-layout", 13)]
    hints = await session.inlay_hints("parallel.py")
    labels = {
        hint.position.line + 1: str(hint.label).strip()
        for hint in hints
        if str(hint.label).strip().startswith("⇉")
    }
    assert labels[7] == "⇉ parallel region (+2 fused)"
    assert labels[10] == "⇉ parallel: fused into the parallel region of line 7"
    assert labels[12].startswith("⇉ parallel region") and labels[13] == labels[15] == "⇉ serial"
    hover = await session.hover_word("parallel.py", 15, "for")
    assert hover is not None and "**Serial**: range loop" in hover and "numba.prange" in hover
