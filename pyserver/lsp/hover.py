"""Hover text: Numba's types for a name, a jitted function's signatures, and the full Numba text of
a diagnostic under the cursor. Everything comes from the last completed analysis; when it cannot
say, the hover says so and says how to get types."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pyserver.analysis.api import JitFunction, kernels
from pyserver.analysis.model import Diagnostic, FunctionInfo, SignatureResult
from pyserver.lsp import parallel
from pyserver.lsp.syntax import NameAt, name_at, names_in, reaching_store
from pyserver.lsp.typeinfo import occurrence_types
from pyserver.lsp.views import AnalysedDocument, FunctionView, function_views, view_at

# Names a 1-based line of a notebook's module as its cell's line ("cell 6, line 3"); None: not in a cell.
LinePlace = Callable[[int], str | None]

SOURCE_TEXT = {
    "decorator": "the decorator's signature",
    "annotation": "annotations",
    "recorded": "signatures recorded from a run",
    "kernel": "signatures compiled in the notebook's kernel",
    "cache": "Numba's cache index",
    "caller": "a caller with known types",
    "python-caller": "Python code that calls it",
    "object-mode": "object mode (generic objects)",
}

HOW_TO_GET_TYPES = (
    "Numba compiles a lazy `@njit` function only when it is called, so its argument types are unknown "
    'until then. To get them: add a signature to the decorator (`@njit("(float64[:], int64)")`), '
    'annotate the parameters (`a: "float64[:]"`, `n: int`), or run your program or tests once with '
    'signature recording (command "Numba Lens: Record signatures", or '
    "`python -m pyserver record -- python your_script.py`)."
)


def _how_to_get_types(function: JitFunction) -> str:
    """Advice in the words of the function's kind: loop signatures for a ufunc or gufunc kernel."""
    return kernels.how_to_get_types(function.kind, function.name, function.params, function.options) or (
        HOW_TO_GET_TYPES
    )


@dataclass(frozen=True)
class HoverContext:
    trusted: bool = True
    unavailable: str | None = None  # why no analysis can run (Numba missing, ...)
    busy: bool = False  # an analysis of this document is pending or running
    load_failed: str = ""  # why the latest analysis failed ("" when it did not): the types are older
    # A notebook cell: names a 1-based line of the notebook's module as its cell's ("cell 6, line 3")
    line_place: Callable[[int], str | None] | None = None


@dataclass(frozen=True)
class HoverAnswer:
    markdown: str
    line: int  # 0-based
    start: int  # code points
    end: int


def _code(lines: list[str]) -> str:
    return "```python\n" + "\n".join(lines) + "\n```"


def _freshness(view: FunctionView, context: HoverContext) -> str:
    if context.load_failed:
        return f"\n\n_From an earlier analysis: the latest one {context.load_failed} (see Problems)._"
    if view.state == "shifted" or context.busy:
        return "\n\n_From the last analysis; " + ("re-analysing…_" if context.busy else "save to update._")
    return ""


def _no_types_reason(view: FunctionView, context: HoverContext) -> str | None:
    if not context.trusted:
        return "Types unavailable: this workspace is not trusted, so Numba Lens runs none of its code."
    if context.unavailable:
        return f"Types unavailable: {context.unavailable}"
    if view.state == "changed":
        return "Types unavailable: this function changed since the last analysis; " + (
            "it is being re-analysed." if context.busy else "save the file to analyse it."
        )
    if view.state == "not-analysed" or view.info is None:
        return "Types unavailable: " + (
            "the analysis is running." if context.busy else "this file has not been analysed yet (save it)."
        )
    return None


def _signature_line(signature: SignatureResult) -> str:
    return signature.text


def _place(path: str, line: int, here: str | None, line_place: LinePlace | None = None) -> str:
    """`line 42` in the hovered file, `b.py:9` in another; a link when the path is absolute. In a
    notebook, its own lines are named by cell (`cell 6, line 3`), without a link."""
    same = here is not None and Path(path).name == Path(here).name and Path(path) == Path(here)
    named = line_place(line) if same and line_place is not None else None
    if named is not None:
        return named
    place = f"line {line}" if same else f"{Path(path).name}:{line}"
    if Path(path).is_absolute():
        place = f"[{place}]({Path(path).as_uri()}#L{line})"
    return place


def signature_origin(
    signature: SignatureResult, here: str | None = None, most: int = 3, line_place: LinePlace | None = None
) -> str:
    """Where a signature's types come from. Python calls: "the call at line 42" (linked), first few."""
    if signature.source != "python-caller":
        text = SOURCE_TEXT.get(signature.source, signature.source) + _callers(signature, here, line_place)
        if signature.source != "caller" and signature.callers:  # a recorded one that calls also give
            text += "; also " + _python_calls(signature, here, most, line_place)
        return text
    if not signature.callers:
        return SOURCE_TEXT["python-caller"]
    return _python_calls(signature, here, most, line_place)


def _python_calls(
    signature: SignatureResult, here: str | None, most: int, line_place: LinePlace | None
) -> str:
    sites = signature.callers
    first = sites[:most]
    where = ", ".join(
        _place(s.path, s.line, here, line_place) + ("" if s.function == "<module>" else f" in `{s.function}`")
        for s in first
    )
    more = len(sites) - most
    return (
        ("the calls at " if len(sites) > 1 else "the call at ")
        + where
        + (f" and {more} more" if more > 0 else "")
    )


def _callers(
    signature: SignatureResult, here: str | None = None, line_place: LinePlace | None = None, most: int = 3
) -> str:
    """Where a caller's types come from: links to the calls (`run` at b.py:9), the first few of them."""
    if signature.source != "caller" or not signature.callers:
        return ""
    links = []
    for site in signature.callers[:most]:
        same = here is not None and Path(site.path) == Path(here)
        named = line_place(site.line) if same and line_place is not None else None
        place = named or f"{Path(site.path).name}:{site.line}"
        if named is None and Path(site.path).is_absolute():
            place = f"[{place}]({Path(site.path).as_uri()}#L{site.line})"
        links.append(f"`{site.function}` at {place}")
    more = len(signature.callers) - most
    return " (" + ", ".join(links) + (f" and {more} more" if more > 0 else "") + ")"


def function_markdown(view: FunctionView, info: FunctionInfo | None, context: HoverContext) -> str:
    function = view.current
    options = ", ".join(
        f"{key}={value!r}" for key, value in function.options.items() if key not in ("raw", "layout", "spec")
    )
    header = f"**{function.name}** · `@{function.kind}{'(' + options + ')' if options else ''}`"
    reason = _no_types_reason(view, context)
    if reason is not None or info is None:
        return f"{header}\n\n{reason or 'Types unavailable.'}"
    if not info.signatures:
        return f"{header}\n\n**Types unknown.** {_how_to_get_types(function)}"
    modes = sorted({s.mode for s in info.signatures if s.mode != "unknown"})
    if modes:
        header += " · " + " / ".join(f"{m} mode" for m in modes)
    parts = [header, _code([_signature_line(s) for s in info.signatures])]
    details = []
    for signature in info.signatures:
        facts = [f"types from {signature_origin(signature, info.path, line_place=context.line_place)}"]
        loop = kernels.loop_signature(function.kind, signature.args, signature.return_type)
        if loop is not None:  # a ufunc/gufunc kernel: the loop as its decorator would declare it
            layout = function.options.get("layout")
            facts.insert(0, f"loop `{loop}`" + (f" with layout `{layout}`" if layout else ""))
        if signature.unknown_reason:
            facts.append(f"types unknown: {signature.unknown_reason}")
        elif not signature.ok:
            facts.append(f"{signature.error_count or 'has'} error{'s' if signature.error_count != 1 else ''}")
        if signature.inference_ms is not None:
            facts.append(f"type inference {signature.inference_ms:.0f} ms")
        if signature.compile_ms is not None:
            facts.append(f"compile {signature.compile_ms:.0f} ms")
        if signature.lifted_loops:
            places = [context.line_place(n) if context.line_place else None for n in signature.lifted_loops]
            if any(place is None for place in places):
                facts.append("lifted loops at line " + ", ".join(str(n) for n in signature.lifted_loops))
            else:
                facts.append("lifted loops at " + "; ".join(str(place) for place in places))
        details.append(f"- `{signature.text}`: " + ", ".join(facts))
    parts.append("\n".join(details))
    if info.compiles:  # recompiles explained, from recorded runs
        from pyserver.analysis.api import compiles_hover_markdown as hover_markdown

        parts.append(hover_markdown(info.compiles))
    return "\n\n".join(parts) + _freshness(view, context)


def variable_markdown(
    source: str, view: FunctionView, occurrence: NameAt, context: HoverContext
) -> str | None:
    info = view.info
    reason = _no_types_reason(view, context)
    if reason is not None or info is None:
        local = occurrence.role != "load" or any(
            other.name == occurrence.name and other.role in ("store", "param")
            for other in names_in(source, view.current)
        )
        return f"`{occurrence.name}`: {reason}" if local else None
    if not info.signatures:
        return f"`{occurrence.name}`: **types unknown**. {_how_to_get_types(view.current)}"
    analysed_line = view.to_analysed(occurrence.line)
    reaching = reaching_store(source, view.current, occurrence) if occurrence.role == "load" else None
    reaching_line = view.to_analysed(reaching.line) if reaching is not None else None
    rows = [
        occurrence_types(signature, occurrence, analysed_line, reaching, reaching_line)
        for signature in info.signatures
    ]
    if all(not row.types for row in rows):
        if occurrence.role == "load":
            return None  # a global, a module or a builtin: not a variable of this function
        return f"`{occurrence.name}`: no type recorded on this line."
    lines = []
    several = len(rows) > 1
    for row in rows:
        if not row.types:
            text = "unknown" + (" (inference stopped at an error)" if not row.signature.ok else "")
        elif len(row.types) == 1:
            text = row.types[0]
        else:
            text = " | ".join(row.types) + "  (depends on the path that reaches this line)"
        lines.append(f"{occurrence.name}: {text}" + (f"  # {row.signature.text}" if several else ""))
    footer = ""
    if not several:
        signature = rows[0].signature
        footer = f"\n\n_Signature `{signature.text}`, types from {SOURCE_TEXT.get(signature.source, signature.source)}._"
    return _code(lines) + footer + _freshness(view, context)


def diagnostic_markdown(diagnostics: list[Diagnostic], line: int, col: int) -> str | None:
    """Numba's full text for diagnostics under the cursor, where the short message dropped some."""
    parts = []
    for diagnostic in diagnostics:
        start, end = diagnostic.range.start, diagnostic.range.end
        inside = (start.line, start.character) <= (line, col) <= (end.line, end.character)
        if inside and diagnostic.fullMessage and diagnostic.fullMessage.strip() != diagnostic.message.strip():
            parts.append(f"**Numba ({diagnostic.code})**\n```text\n{diagnostic.fullMessage.strip()}\n```")
    return "\n\n".join(parts) or None


def diagnostic_advice_markdown(diagnostics: list[Diagnostic], line: int, col: int) -> str | None:
    """Why and how to fix, for diagnostics under the cursor (pyserver.analysis.worker.report.explain)."""
    from pyserver.analysis.api import explain_diagnostic

    parts = []
    for diagnostic in diagnostics:
        start, end = diagnostic.range.start, diagnostic.range.end
        if (start.line, start.character) <= (line, col) <= (end.line, end.character):
            found = explain_diagnostic(diagnostic)
            parts.append(f"**Why ({diagnostic.code}):** {found.why}\n\n**Fix:** {found.fix}")
    return "\n\n".join(parts) or None


def hover(
    source: str,
    analysed: AnalysedDocument | None,
    line: int,
    col: int,
    context: HoverContext,
    latest: AnalysedDocument | None = None,
) -> HoverAnswer | None:
    """`line` 0-based, `col` in code points. Types come from `analysed` (the last analysis that
    loaded the module), diagnostics' full texts from `latest` (the last analysis)."""
    latest = latest or analysed
    views = function_views(source, analysed)
    view = view_at(views, line + 1)
    texts: list[str] = []
    span = (col, col)
    if view is not None:
        occurrence = name_at(source, view.current, line + 1, col)
        if occurrence is not None:
            span = (occurrence.col, occurrence.end_col)
            text: str | None
            if occurrence.role == "function":
                text = function_markdown(view, view.info, context)
            else:
                text = variable_markdown(source, view, occurrence, context)
                if text is None and occurrence.role == "load":
                    # A call to another jitted function of this file: show its signatures.
                    callee = next((v for v in views if v.current.name == occurrence.name), None)
                    if callee is not None:
                        text = function_markdown(callee, callee.info, context)
            if text:
                texts.append(text)
        elif line + 1 == view.current.decorator_line and view.current.kind != "jitclass-method":
            texts.append(function_markdown(view, view.info, context))
        loop_report = parallel.markdown(view, line + 1)  # the parallel report on a loop line
        if loop_report:
            texts.append(loop_report)
    if latest is not None and latest.source == source:
        full = diagnostic_markdown(latest.result.diagnostics, line, col)
        if full:
            texts.append(full)
        advice = diagnostic_advice_markdown(latest.result.diagnostics, line, col)
        if advice:
            texts.append(advice)
    if not texts:
        return None
    return HoverAnswer("\n\n---\n\n".join(texts), line, span[0], span[1])
