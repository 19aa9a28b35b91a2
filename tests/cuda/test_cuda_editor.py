"""What the editor shows for a CUDA kernel: hover types, inlay hints, lenses, a squiggled CUDA mistake."""

from __future__ import annotations

from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine


def test_kernel_hover_inlay_and_lenses(cuda_engine: AnalysisEngine, cuda_workspace: Path) -> None:
    from pyserver.lsp import hover, inlay, lenses
    from pyserver.lsp.views import AnalysedDocument

    path = cuda_workspace / "corpus" / "c11_float32_math.py"
    source = path.read_text(encoding="utf-8")
    result = cuda_engine.analyze(path)
    document = AnalysedDocument(path.as_uri(), str(path), source, 1, result)
    lines = source.splitlines()
    line = next(n for n, text in enumerate(lines) if "i = cuda.grid(1)" in text)
    answer = hover.hover(source, document, line, lines[line].index("i ="), hover.HoverContext(), document)
    assert answer is not None and "int64" in answer.markdown
    params = next(n for n, text in enumerate(lines) if text.startswith("def saxpy"))
    answer = hover.hover(
        source, document, params, lines[params].index("alpha"), hover.HoverContext(), document
    )
    assert answer is not None and "float32" in answer.markdown
    hints = inlay.inlay_hints(
        source, document, 0, len(lines), variable_types=True, return_types=True, max_length=60
    )
    assert any("int64" in str(h.label) for h in hints)
    titles = [
        lens.title for lens in lenses.code_lenses(path.as_uri(), source, document, busy=False, trusted=True)
    ]
    assert "Debug in CUDA simulator" in " ".join(titles)


def test_cuda_mistake_is_squiggled_with_why_and_fix(
    cuda_engine: AnalysisEngine, cuda_workspace: Path
) -> None:
    from pyserver.lsp import hover
    from pyserver.lsp.views import AnalysedDocument

    path = cuda_workspace / "mistakes" / "m02_kernel_return.py"
    source = path.read_text(encoding="utf-8")
    result = cuda_engine.analyze(path)
    (diagnostic,) = [d for d in result.diagnostics if d.code == "cuda-kernel-return"]
    lines = source.splitlines()
    assert lines[diagnostic.range.start.line].strip().startswith("return")
    document = AnalysedDocument(path.as_uri(), str(path), source, 1, result)
    start = diagnostic.range.start
    answer = hover.hover(source, document, start.line, start.character + 1, hover.HoverContext(), document)
    assert answer is not None and "**Why (cuda-kernel-return):**" in answer.markdown
