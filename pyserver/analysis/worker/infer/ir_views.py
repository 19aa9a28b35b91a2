"""IR views for one function and signature (worker side): types, Numba IR, LLVM IR, assembly.

The only place a full compile runs on demand. The compile adds debug info (debug=True) so that the
LLVM and assembly views can be mapped back to source lines; the view says so in its first line.
"""

from __future__ import annotations

import os
import re

from pyserver import numba_api
from pyserver.analysis.model import IRView
from pyserver.analysis.worker.infer.analyzer import Analyzer

KINDS = ("types", "numba_ir", "llvm", "asm")


class IRViewError(Exception):
    pass


def _types_line_map(text: str) -> dict[int, list[int]]:
    line_map: dict[int, list[int]] = {}
    current: int | None = None
    for number, line in enumerate(text.splitlines()):
        marker = re.match(r"\s*# --- LINE (\d+) ---", line)
        if marker:
            current = int(marker.group(1))
        if current is not None:
            line_map.setdefault(current, []).append(number)
    return line_map


def _llvm_line_map(text: str) -> dict[int, list[int]]:
    locations: dict[str, int] = {}
    for match in re.finditer(r"^(!\d+) = !DILocation\(line: (\d+)", text, re.MULTILINE):
        locations[match.group(1)] = int(match.group(2))
    line_map: dict[int, list[int]] = {}
    for number, line in enumerate(text.splitlines()):
        found = re.search(r"!dbg (!\d+)", line)
        if found and not line.startswith("!"):
            source_line = locations.get(found.group(1), 0)
            if source_line > 0:
                line_map.setdefault(source_line, []).append(number)
    return line_map


def _asm_line_map(text: str, path: str) -> dict[int, list[int]]:
    file_ids = set()
    for match in re.finditer(r'\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?', text):
        name = match.group(3) or match.group(2)
        if os.path.basename(name) == os.path.basename(path):
            file_ids.add(match.group(1))
    line_map: dict[int, list[int]] = {}
    current: int | None = None
    for number, line in enumerate(text.splitlines()):
        loc = re.match(r"\s*\.loc\s+(\d+)\s+(\d+)", line)
        if loc:
            current = int(loc.group(2)) if loc.group(1) in file_ids and int(loc.group(2)) > 0 else None
            continue
        if current is not None and line.strip() and not line.strip().startswith((".", "#")):
            line_map.setdefault(current, []).append(number)
    return line_map


def ir_view(
    analyzer: Analyzer,
    path: str,
    source: str,
    function: str,
    signature_index: int,
    kind: str,
    selective: bool = False,
) -> IRView:
    if kind not in KINDS:
        raise IRViewError(f"unknown IR view {kind!r}: expected one of {', '.join(KINDS)}")
    path = os.path.abspath(path)
    result = analyzer.analyze(path, source, selective=selective)
    info = next((f for f in result.functions if f.name == function), None)
    if info is None:
        raise IRViewError(f"no jitted function named {function!r} in {path}")
    candidates = analyzer.last_candidates.get((path, function), [])
    if not candidates:
        raise IRViewError(f"no argument types are known for {function!r}: nothing to compile")
    if not 0 <= signature_index < len(candidates):
        raise IRViewError(
            f"{function!r} has {len(candidates)} signature(s); index {signature_index} is out of range"
        )
    if info.kind == "cuda":  # the views compile for the CPU; a kernel compiles for the GPU, through NVVM
        raise IRViewError(
            f"{function!r} is a CUDA kernel: the IR views compile with Numba's CPU target, and a CUDA "
            "kernel's LLVM IR and PTX come from NVVM, which these views do not run; its types are in the "
            "hover and the inlay hints"
        )
    candidate = candidates[signature_index]
    signature_result = info.signatures[signature_index]
    if not signature_result.ok:
        raise IRViewError(f"{function!r} does not compile for {signature_result.text}: fix its errors first")
    record = analyzer.loader.recorded.get((path, function))
    if record is None:
        raise IRViewError(f"{function!r} was not defined when the module was loaded")
    # A real compile compiles the jitted callees too: the next analysis loads a module of its own.
    analyzer.loader.last_definitions = None
    try:
        fresh = numba_api.compile_for_view(record.dispatcher, candidate.args)
    except Exception as exc:
        raise IRViewError(f"compiling {function!r} failed: {type(exc).__name__}: {exc}") from exc
    signature = signature_result.text
    header = f"{function} {signature}  (compiled with debug=True for the source-line map)"
    if kind == "types":
        body = numba_api.view_types(fresh, candidate.args)
        return _with_header("# " + header, body, _types_line_map(body), "python", function, signature)
    if kind == "numba_ir":
        body, line_map = numba_api.view_numba_ir(fresh, candidate.args)
        return _with_header("# " + header, body, line_map, "plaintext", function, signature)
    if kind == "llvm":
        body = numba_api.view_llvm(fresh, candidate.args)
        return _with_header("; " + header, body, _llvm_line_map(body), "llvm", function, signature)
    body = numba_api.view_asm(fresh, candidate.args)
    return _with_header("# " + header, body, _asm_line_map(body, path), "asm", function, signature)


def _with_header(
    header: str, body: str, line_map: dict[int, list[int]], language: str, function: str, signature: str
) -> IRView:
    shifted = {line: [n + 1 for n in numbers] for line, numbers in line_map.items()}
    return IRView(header + "\n" + body, language, shifted, function, signature)
