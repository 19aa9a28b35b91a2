"""Recompiles in the editor: a real language server shows "N compiles · T s" above a function a recorded
run compiled, and answers `numbaLens/compiles` with the compiles and why each one after the first
happened (the data behind the client's view)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

LSP_TESTS = str(Path(__file__).resolve().parents[1] / "lsp")
if LSP_TESTS not in sys.path:
    sys.path.append(LSP_TESTS)

from lsp_session import start_session  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import numpy as np
from numba import njit


@njit
def total(a):
    return a.sum()


@njit
def never_run(a):
    return a


if __name__ == "__main__":
    total(np.ones(4))
    total(np.ones((4, 4))[:, 0])
"""


def test_compiles_lens_and_view(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    recorded = subprocess.run(
        [sys.executable, "-m", "pyserver", "record", "--", sys.executable, "prog.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert recorded.returncode == 0, recorded.stderr

    async def drive() -> tuple[list[Any], dict[str, Any], dict[str, Any], str | None]:
        session = await start_session(tmp_path)
        try:
            await session.open("prog.py")
            lenses = await session.code_lenses("prog.py")
            request = session.client.protocol.send_request_async
            answer = await asyncio.wait_for(
                request("numbaLens/compiles", {"uri": session.uri("prog.py"), "function": "total"}), 60
            )
            none = await asyncio.wait_for(
                request("numbaLens/compiles", {"uri": session.uri("prog.py"), "function": "never_run"}), 60
            )
            def_line = PROGRAM.splitlines().index("def total(a):") + 1  # 1-based
            hover = await session.hover_word("prog.py", def_line, "total")
            return lenses, answer, none, hover
        finally:
            await session.shutdown()

    lenses, answer, none, hover = asyncio.run(drive())
    compile_lenses = [
        lens for lens in lenses if lens.command and lens.command.command == "numbaLens.showCompiles"
    ]
    assert len(compile_lenses) == 1  # only the function that compiled
    [lens] = compile_lenses
    assert lens.range.start.line == PROGRAM.splitlines().index("@njit")  # the decorator line, 0-based
    assert re.fullmatch(r"2 compiles · \d+\.\d\d s", lens.command.title), lens.command.title
    assert lens.command.arguments[0]["function"] == "total"
    answer = dict(answer) if not isinstance(answer, dict) else answer
    compiles = [dict(c) if not isinstance(c, dict) else c for c in answer["compiles"]]
    assert [c["args"] for c in compiles] == [["array(float64, 1d, C)"], ["array(float64, 1d, A)"]]
    assert compiles[1]["because"] == "'a': layout A (any layout, e.g. a strided slice), was C (C-contiguous)"
    assert answer["summary"] == lens.command.title
    assert none["compiles"] == [] and none["summary"] == "no recorded compiles"
    # The function's hover lists them too.
    assert hover is not None and f"**Recorded compiles** ({answer['summary']}):" in hover
    assert "2. `(array(float64, 1d, A))` " in hover and "'a': layout A" in hover
