"""The parallel report inline: for a parallel=True function, an inlay hint at the end of each
loop line (parallel region, fused, or serial) and a hover on the loop with what Numba's parfor pass did:
what fused into the region, nested loops run serially, allocations hoisted out of the loop (or kept in
it, and why), and why a loop stayed serial. Data:
SignatureResult.parallel_loops (pyserver.analysis.worker.report.insight.parallel_loops)."""

from __future__ import annotations

from pyserver.analysis.model import ParallelLoop
from pyserver.lsp.views import FunctionView, cached_lines


def loops_at(view: FunctionView, line: int) -> list[tuple[str, ParallelLoop]]:
    """(signature text, loop) for the 1-based current `line` of the function, over its signatures."""
    if view.info is None:
        return []
    analysed = view.to_analysed(line)
    return [
        (signature.text, loop)
        for signature in view.info.signatures
        for loop in signature.parallel_loops
        if loop.line == analysed
    ]


def label(loop: ParallelLoop) -> str:
    if not loop.parallel:
        return "serial"
    fused_into = next((note for note in loop.notes if note.startswith("fused into")), None)
    if fused_into is not None:
        return "parallel: " + fused_into
    return "parallel region" + (f" (+{len(loop.fused)} fused)" if loop.fused else "")


def hint_positions(source: str, view: FunctionView, first: int, last: int) -> list[tuple[int, int, str, str]]:
    """(0-based line, column, label, markdown) per reported line of the view in [first, last] (1-based)."""
    if view.info is None:
        return []
    lines = cached_lines(source)
    reported = sorted({view.to_current(loop.line) for s in view.info.signatures for loop in s.parallel_loops})
    found = []
    for line in reported:
        if not first <= line <= last or not 0 < line <= len(lines):
            continue
        rows = loops_at(view, line)
        labels = list(dict.fromkeys(label(loop) for _signature, loop in rows))
        text = lines[line - 1]
        code = text.split("#", 1)[0].rstrip() if "#" in text else text.rstrip()
        found.append((line - 1, len(code), "⇉ " + " | ".join(labels), markdown(view, line) or ""))
    return found


def markdown(view: FunctionView, line: int) -> str | None:
    """What the parfor pass did with the loop (or array expression) on the 1-based current `line`."""
    rows = loops_at(view, line)
    if not rows:
        return None
    several = len({signature for signature, _loop in rows}) > 1
    parts = []
    for signature, loop in rows:
        head = f"**{'Parallel region' if loop.parallel else 'Serial'}**: {loop.what}"
        if several:
            head += f" — for `{signature}`"
        items = [f"- fused into it: {fused}" for fused in loop.fused] + [f"- {note}" for note in loop.notes]
        parts.append("\n".join([head, *items]))
    return "\n\n".join(parts) + "\n\n_From Numba's parfor passes (parallel=True), without compiling._"
