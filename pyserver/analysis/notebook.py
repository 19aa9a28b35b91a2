"""A notebook as one Python module: its code cells in document order, IPython syntax neutralised with
every position kept, and the map from module lines back to cells.

- A line magic (`%timeit -n 3 kernel(a)`, `%time f(x)`) that times an expression keeps the expression,
  so the caller analysis sees the call: its prefix becomes `0;` and spaces (same columns). Every other
  line magic, shell escape (`!pip ...`) and help request (`x?`, `?x`) becomes a comment.
- A cell magic whose body is Python (`%%time`, `%%timeit`, `%%capture`, ...) keeps the body; any other
  (`%%bash`, `%%html`, `%%writefile`) makes the cell skipped: its lines are left empty.
- A cell that is not valid Python on its own is left empty too, and reported (`CellProblem`), so one
  broken cell never hides the others' types.

Nothing here runs the notebook: the module text goes to the analysis like an editor buffer, where
definitions-only loading decides what runs.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyserver.caches import BoundedCache, bounded_cache

PYTHON_BODY_CELL_MAGICS = frozenset(
    {"time", "timeit", "capture", "prun", "numba_lens_profile", "python", "python3", "debug"}
)
TIMING_LINE_MAGICS = frozenset({"time", "timeit", "prun"})
# The options of %timeit / %time / %prun that take a value.
_VALUED_OPTIONS = frozenset({"-n", "-r", "-p", "-s", "-T", "-D", "-l"})
_PREPARED: BoundedCache[str, tuple[tuple[str, ...], str | None, CellProblem | None]] = bounded_cache(
    "notebook.cells", 4096
)
_ASSIGNED_ESCAPE = re.compile(r"^(\s*[\w.\[\], ]+=\s*)([%!].*)$")


class NotebookError(Exception):
    """The file is not a notebook this module can read (not JSON, no cells list, ...)."""


@dataclass(frozen=True)
class NotebookCell:
    key: str  # the cell's identity: its document URI in an editor, "cell N" in a file
    kind: str  # "code", "markdown" or "raw"
    text: str
    language: str = "python"


@dataclass(frozen=True)
class CellSpan:
    index: int  # the cell's position among all cells of the notebook (0-based)
    key: str
    first_line: int  # 0-based line of the module where the cell starts
    line_count: int
    skipped: str | None = None  # why the cell's code is not part of the analysed module

    def contains(self, module_line: int) -> bool:
        return self.first_line <= module_line < self.first_line + self.line_count


@dataclass(frozen=True)
class CellProblem:
    key: str
    line: int  # 0-based, in the cell
    column: int
    message: str


@dataclass(frozen=True)
class NotebookModule:
    source: str
    cells: tuple[CellSpan, ...]  # the code cells, in document order
    problems: tuple[CellProblem, ...] = ()
    skipped_cells: int = 0  # markdown, raw and non-Python cells

    def locate(self, module_line: int) -> tuple[CellSpan, int] | None:
        """The cell holding 0-based `module_line`, and the line in it."""
        low, high = 0, len(self.cells)
        while low < high:  # cells are sorted by first_line: bisect
            middle = (low + high) // 2
            cell = self.cells[middle]
            if module_line < cell.first_line:
                high = middle
            elif module_line >= cell.first_line + cell.line_count:
                low = middle + 1
            else:
                return cell, module_line - cell.first_line
        return None

    def cell(self, key: str) -> CellSpan | None:
        return next((cell for cell in self.cells if cell.key == key), None)


def cell_lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line.rstrip("\r") for line in lines]


def _timed_expression_start(line: str, magic_start: int) -> int | None:
    """Where the expression of `%timeit [options] EXPR` starts, or None when there is none."""
    position = magic_start
    words = re.finditer(r"\S+", line[magic_start:])
    next(words, None)  # the magic's name
    expecting_value = False
    for word in words:
        token = word.group()
        position = magic_start + word.start()
        if expecting_value:
            expecting_value = False
            continue
        if token.startswith("-") and not token[1:2].isdigit():
            expecting_value = token in _VALUED_OPTIONS
            continue
        return position
    return None


def neutralise_line(line: str) -> str:
    """One line of a code cell with its IPython syntax made plain Python of the same length."""
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    if not stripped or stripped.startswith("#"):
        return line
    if stripped.startswith("%") and not stripped.startswith("%%"):
        name = re.match(r"%(\w*)", stripped)
        if name and name.group(1) in TIMING_LINE_MAGICS:
            start = _timed_expression_start(line, indent)
            if start is not None and start - indent >= 2:
                return line[:indent] + "0;" + " " * (start - indent - 2) + line[start:]
        return line[:indent] + "#" + line[indent + 1 :]
    if stripped.startswith(("!", "?")) or stripped.startswith("%%"):
        return line[:indent] + "#" + line[indent + 1 :]
    if stripped.endswith("?") and re.fullmatch(r"[\w.\[\]()'\"]+\?{1,2}", stripped):
        return line[:indent] + "#" + line[indent + 1 :]
    assigned = _ASSIGNED_ESCAPE.match(line)
    if assigned:  # x = !ls, y = %who_ls: the value is unknown, the name stays defined
        head, escape = assigned.groups()
        tail = "..." + ("#" + escape[4:] if len(escape) > 3 else "")
        return head + tail[: max(len(escape), 3)]
    return line


def neutralise_cell(text: str) -> tuple[list[str], str | None]:
    """The cell's lines as Python, and why the cell is skipped (None when it is analysed)."""
    lines = cell_lines(text)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = re.match(r"%%(\w*)", lines[first].lstrip())
        magic = name.group(1) if name else ""
        if magic not in PYTHON_BODY_CELL_MAGICS:
            return [""] * len(lines), f"a %%{magic} cell is not Python"
        lines[first] = neutralise_line(lines[first])
    return [neutralise_line(line) for line in lines], None


def _syntax_problem(key: str, lines: Sequence[str]) -> CellProblem | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse("\n".join(lines))
    except SyntaxError as exc:
        line = max((exc.lineno or 1) - 1, 0)
        return CellProblem(key, line, max((exc.offset or 1) - 1, 0), f"Syntax error in this cell: {exc.msg}")
    except (ValueError, RecursionError, MemoryError) as exc:
        return CellProblem(key, 0, 0, f"This cell could not be parsed: {exc}")
    return None


def _prepared(text: str) -> tuple[list[str], str | None, CellProblem | None]:
    """A cell's module lines, why it is skipped, and its syntax problem; a notebook is rebuilt on every
    keystroke, so the cells that did not change come from the cache."""
    found = _PREPARED.get(text)
    if found is None:
        lines, skipped = neutralise_cell(text)
        problem = _syntax_problem("", lines) if skipped is None else None
        if problem is not None:
            skipped, lines = problem.message, [""] * len(lines)
        found = _PREPARED[text] = (tuple(lines), skipped, problem)
    return list(found[0]), found[1], found[2]


def notebook_module(cells: Iterable[NotebookCell]) -> NotebookModule:
    """The module the analysis sees for these cells (in document order)."""
    module_lines: list[str] = []
    spans: list[CellSpan] = []
    problems: list[CellProblem] = []
    skipped_cells = 0
    for index, cell in enumerate(cells):
        if cell.kind != "code" or cell.language.lower() not in ("python", "python3", "ipython"):
            skipped_cells += 1
            continue
        lines, skipped, problem = _prepared(cell.text)
        if problem is not None:
            problems.append(CellProblem(cell.key, problem.line, problem.column, problem.message))
        spans.append(CellSpan(index, cell.key, len(module_lines), len(lines), skipped))
        module_lines.extend(lines)
    return NotebookModule("\n".join(module_lines) + "\n", tuple(spans), tuple(problems), skipped_cells)


def is_notebook_path(path: str | Path) -> bool:
    return str(path).lower().endswith(".ipynb")


def read_notebook(path: str | Path) -> list[NotebookCell]:
    """The cells of an .ipynb file (nbformat 4, or 3's worksheets); NotebookError when it is malformed."""
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise NotebookError(f"cannot read the notebook: {exc}") from exc
    return parse_notebook(raw)


def parse_notebook(raw: str) -> list[NotebookCell]:
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise NotebookError(f"the notebook is not valid JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise NotebookError("the notebook is not a JSON object")
    cells = document.get("cells")
    if cells is None and isinstance(document.get("worksheets"), list) and document["worksheets"]:
        first = document["worksheets"][0]
        cells = first.get("cells") if isinstance(first, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("the notebook has no list of cells")
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    language_info = metadata.get("language_info") if isinstance(metadata, dict) else None
    language = "python"
    if isinstance(language_info, dict) and isinstance(language_info.get("name"), str):
        language = language_info["name"]
    result = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not a JSON object")
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(str(part) for part in source)
        if not isinstance(source, str):
            raise NotebookError(f"cell {number} has no text")
        kind = str(cell.get("cell_type", "code"))
        result.append(NotebookCell(f"cell {number}", kind, source, language))
    return result


__all__ = [
    "CellProblem",
    "CellSpan",
    "NotebookCell",
    "NotebookError",
    "NotebookModule",
    "is_notebook_path",
    "neutralise_cell",
    "neutralise_line",
    "notebook_module",
    "parse_notebook",
    "read_notebook",
]
