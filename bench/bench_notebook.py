"""Notebook benchmark: a one-cell edit of a 50-cell notebook, through the real protocol.

1. Numba's own compile of the notebook's 25 jitted functions (eager signatures, in a fresh subprocess).
2. `python -m pyserver lsp` over stdio: open a 50-cell notebook (notebookDocument/didOpen: an import
   cell, 25 cells each defining a jitted function, 24 cells of data and calls), then edit one function
   cell at a time (a new constant each time, so the edited function is always inferred) and time
   notebookDocument/didChange -> the edited cell's publishDiagnostics (analyzeOnTypeDelay 0).
   Ratio = (1) / the median; the goal is the .py one-function-edit budget, p50 <= 30 ms.
3. The same 25 functions as a .py file (no data cells: their argument types come from annotations),
   saved after a one-function edit, didSave -> publishDiagnostics: the .py path's cost for the same
   functions in the same run, to compare the notebook's edit with.

Prints figures only; nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import functools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import lsp_timing
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


def numba_compile_seconds(constants: list[float]) -> tuple[float, float]:
    """(import numba, compile of the notebook's functions with eager signatures), in a fresh interpreter."""
    functions = [
        function_cell(index, constant)
        .replace("@njit", '@njit("float64(float64[::1], int64)")')
        .replace('a: "float64[::1]", n: int', "a, n")
        for index, constant in enumerate(constants)
    ]
    return lsp_timing.numba_compile_seconds(IMPORTS + "\n\n\n" + "\n\n\n".join(functions) + "\n")


async def run_server(root: Path, constants: list[float]) -> dict[str, Any]:
    bench = lsp_timing.BenchClient()
    client = bench.client
    server_pid = await bench.start(root, {"analyzeOnTypeDelay": 0})
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
        old_text = texts[cell]
        texts[cell] = function_cell(function, constant)
        version += 1
        change = lsp.DidChangeNotebookDocumentParams(
            notebook_document=lsp.VersionedNotebookDocumentIdentifier(version, notebook_uri),
            change=lsp.NotebookDocumentChangeEvent(
                cells=lsp.NotebookDocumentCellChanges(
                    text_content=[
                        lsp.NotebookDocumentCellContentChanges(
                            document=lsp.VersionedTextDocumentIdentifier(version, uri),
                            changes=[lsp_timing.whole_text_change(old_text, texts[cell])],
                        )
                    ]
                )
            ),
        )
        # The edited cell's diagnostics: none but the not-run hints of what it would not run.
        return await bench.round_trip(
            uri, lambda: client.notebook_document_did_change(change), lambda d: d.code == "not-run"
        )

    for n in range(WARMUP):
        await edit(n % FUNCTIONS, 2.0 + n / 1000.0)
    server_before, worker_before = lsp_timing.server_cpu_s(server_pid)
    timings = [await edit(n % FUNCTIONS, 2.0 + n / 1000.0) for n in range(WARMUP, EDITS)]
    server_after, worker_after = lsp_timing.server_cpu_s(server_pid)
    await bench.stop()
    median_s, p90_s = lsp_timing.median_p90(timings)
    return {
        "cold_s": cold_s,
        "median_s": median_s,
        "p90_s": p90_s,
        "server_cpu_s": (server_after - server_before) / len(timings),
        "worker_cpu_s": (worker_after - worker_before) / len(timings),
    }


async def run_python_file(root: Path, constants: list[float]) -> tuple[float, float]:
    """(median seconds of a one-function edit's save -> diagnostics, the worker's CPU seconds per edit),
    the notebook's functions as a .py file."""
    bench = lsp_timing.BenchClient()
    client = bench.client
    server_pid = await bench.start(root, {})
    path = root / "bench_functions.py"
    uri = from_fs_path(str(path))
    assert uri is not None

    def module(values: list[float]) -> str:
        return IMPORTS + "\n\n\n" + "\n\n\n".join(function_cell(i, c) for i, c in enumerate(values)) + "\n"

    text = module(constants)
    path.write_text(text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text)))
    await bench.wait_publish(uri, 0)
    timings = []
    worker_before = 0.0
    for n in range(EDITS):
        if n == WARMUP:
            worker_before = lsp_timing.server_cpu_s(server_pid)[1]
        old_text, version = text, n + 2
        constants[n % FUNCTIONS] = 2.0 + n / 1000.0
        text = module(constants)
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [lsp_timing.whole_text_change(old_text, text)],
            )
        )
        save = lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri))
        timings.append(await bench.round_trip(uri, functools.partial(client.text_document_did_save, save)))
    worker_cpu_s = (lsp_timing.server_cpu_s(server_pid)[1] - worker_before) / (EDITS - WARMUP)
    await bench.stop()
    return lsp_timing.median_p90(timings[WARMUP:])[0], worker_cpu_s


def main() -> int:
    constants = [1.0 + i / 10 for i in range(FUNCTIONS)]
    import_s, compile_s = numba_compile_seconds(list(constants))
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(run_server(Path(folder), list(constants)))
    with tempfile.TemporaryDirectory() as folder:
        python_file_s, python_file_worker_cpu_s = asyncio.run(run_python_file(Path(folder), list(constants)))
    python_file_ms = python_file_s * 1000
    median_ms = figures["median_s"] * 1000
    print(f"({lsp_timing.machine_load()})")
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
    print(
        f"CPU per edit (mean, whatever the load): language server {figures['server_cpu_s'] * 1000:.1f} ms, "
        f"analysis worker {figures['worker_cpu_s'] * 1000:.1f} ms"
    )
    print(f"ratio (Numba compile / one-cell edit to diagnostics): {compile_s * 1000 / median_ms:.1f}x")
    print(
        f"the same {FUNCTIONS} functions as a .py file, one-function edit, save -> diagnostics: median "
        f"{python_file_ms:.1f} ms (analysis worker's CPU {python_file_worker_cpu_s * 1000:.1f} ms per edit); "
        f"the notebook's edit takes {median_ms / python_file_ms:.2f}x that"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
