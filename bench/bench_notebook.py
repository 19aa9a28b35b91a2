"""Notebook benchmark: a one-cell edit of a 50-cell notebook, through the real protocol.

1. Numba's own compile of the notebook's 25 jitted functions (eager signatures, in a fresh subprocess).
2. `python -m pyserver lsp` over stdio: open a 50-cell notebook (notebookDocument/didOpen: an import
   cell, 25 cells each defining a jitted function, 24 cells of data and calls), then edit one function
   cell at a time (a new constant each time, so the edited function is always inferred) and time
   notebookDocument/didChange -> the edited cell's publishDiagnostics (analyzeOnTypeDelay 0).
   Ratio = (1) / the median; the goal is the .py one-function-edit budget, p50 <= 30 ms.

Prints figures only; nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_lsp import BenchClient
from lsprotocol import types as lsp
from pygls.uris import from_fs_path

FUNCTIONS = 25
EDITS = 60
WARMUP = 10
IMPORTS = "import numpy as np\nfrom numba import njit"


def function_cell(index: int, constant: float) -> str:
    call = f"    total += f{index - 1}(a, n)\n" if index % 2 else ""
    return f"""@njit
def f{index}(a: "float64[::1]", n: int):
    total = 0.0
    for i in range(n):
        x = a[i] * {constant!r}
        if x > {index}.0:
            total += x
        else:
            total -= x / 2.0
{call}    return total"""


def data_cell(index: int) -> str:
    return f"a{index} = np.ones({index + 10})\nresult{index} = f{index}(a{index}, {index + 1})\n%timeit f{index}(a{index}, 3)"


def cells(constants: list[float]) -> list[str]:
    found = [IMPORTS]
    for index, constant in enumerate(constants):
        found.append(function_cell(index, constant))
        if index < FUNCTIONS - 1:
            found.append(data_cell(index))
    return found


NUMBA_COMPILE = """
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
started = time.perf_counter()
import numba  # noqa: F401
imported = time.perf_counter()
importlib.import_module("eager_cells")  # every decorator compiles its signature now
done = time.perf_counter()
print(f"{imported - started:.6f} {done - imported:.6f}")
"""


def numba_compile_seconds(constants: list[float]) -> tuple[float, float]:
    """(import numba, compile of the notebook's functions with eager signatures), in a fresh interpreter."""
    functions = [
        function_cell(index, constant)
        .replace("@njit", '@njit("float64(float64[::1], int64)")')
        .replace('a: "float64[::1]", n: int', "a, n")
        for index, constant in enumerate(constants)
    ]
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "eager_cells.py").write_text(IMPORTS + "\n\n\n" + "\n\n\n".join(functions) + "\n")
        output = subprocess.run(
            [sys.executable, "-c", NUMBA_COMPILE, folder],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "NUMBA_CACHE_DIR": folder},
        )
        import_s, compile_s = (float(v) for v in output.stdout.split())
        return import_s, compile_s


async def run_server(root: Path, constants: list[float]) -> dict[str, Any]:
    bench = BenchClient()
    client = bench.client
    await client.start_io(
        sys.executable, "-m", "pyserver", "lsp", cwd=str(Path(__file__).resolve().parent.parent)
    )
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=from_fs_path(str(root)),
            initialization_options={"trusted": True, "settings": {"analyzeOnTypeDelay": 0}},
        )
    )
    client.initialized(lsp.InitializedParams())
    notebook_uri = from_fs_path(str(root / "bench.ipynb"))
    assert notebook_uri is not None
    texts = cells(constants)
    assert len(texts) == 50
    cell_uris = [f"vscode-notebook-cell:{notebook_uri[5:]}#C{n}" for n in range(len(texts))]
    version = 1
    opened = time.perf_counter()
    client.notebook_document_did_open(
        lsp.DidOpenNotebookDocumentParams(
            notebook_document=lsp.NotebookDocument(
                uri=notebook_uri,
                notebook_type="jupyter-notebook",
                version=version,
                cells=[lsp.NotebookCell(kind=lsp.NotebookCellKind.Code, document=uri) for uri in cell_uris],
            ),
            cell_text_documents=[
                lsp.TextDocumentItem(uri, "python", 1, text)
                for uri, text in zip(cell_uris, texts, strict=True)
            ],
        )
    )
    await bench.wait_publish(cell_uris[1], 0)
    cold_s = time.perf_counter() - opened

    async def edit(function: int, constant: float) -> float:
        nonlocal version
        cell = 1 + 2 * function
        uri = cell_uris[cell]
        old_lines = texts[cell].split("\n")
        texts[cell] = function_cell(function, constant)
        version += 1
        count = len(bench.published.get(uri, []))
        started = time.perf_counter()
        client.notebook_document_did_change(
            lsp.DidChangeNotebookDocumentParams(
                notebook_document=lsp.VersionedNotebookDocumentIdentifier(version, notebook_uri),
                change=lsp.NotebookDocumentChangeEvent(
                    cells=lsp.NotebookDocumentCellChanges(
                        text_content=[
                            lsp.NotebookDocumentCellContentChanges(
                                document=lsp.VersionedTextDocumentIdentifier(version, uri),
                                changes=[
                                    lsp.TextDocumentContentChangePartial(
                                        range=lsp.Range(
                                            lsp.Position(0, 0),
                                            lsp.Position(len(old_lines) - 1, len(old_lines[-1])),
                                        ),
                                        text=texts[cell],
                                    )
                                ],
                            )
                        ]
                    )
                ),
            )
        )
        finished, diagnostics = await bench.wait_publish(uri, count)
        if [d for d in diagnostics if d.code != "not-run"]:
            raise RuntimeError(f"unexpected diagnostics: {[d.message for d in diagnostics]}")
        return finished - started

    timings = [await edit(n % FUNCTIONS, 2.0 + n / 1000.0) for n in range(EDITS)]
    await asyncio.wait_for(client.shutdown_async(None), 60)
    client.exit(None)
    await client.stop()
    measured = timings[WARMUP:]
    return {
        "cold_s": cold_s,
        "median_s": statistics.median(measured),
        "p90_s": sorted(measured)[int(len(measured) * 0.9) - 1],
    }


def main() -> int:
    constants = [1.0 + i / 10 for i in range(FUNCTIONS)]
    import_s, compile_s = numba_compile_seconds(list(constants))
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(run_server(Path(folder), list(constants)))
    median_ms = figures["median_s"] * 1000
    print(
        f"Numba's own compile of the notebook's {FUNCTIONS} functions: {compile_s * 1000:.0f} ms "
        f"(+ {import_s * 1000:.0f} ms to import numba), fresh subprocess"
    )
    print(
        f"language server, first analysis of the 50-cell notebook (cold worker): {figures['cold_s'] * 1000:.0f} ms"
    )
    print(
        f"language server, one-cell edit -> that cell's diagnostics: median {median_ms:.1f} ms, "
        f"p90 {figures['p90_s'] * 1000:.1f} ms ({EDITS - WARMUP} edits, text new each time; goal p50 <= 30 ms)"
    )
    print(f"ratio (Numba compile / one-cell edit to diagnostics): {compile_s * 1000 / median_ms:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
