"""From Numba's line-level reports to exact source ranges, stable codes and short messages.

Numba gives lines, not columns (`ir.Loc.col` is None), so ranges come from the Python AST of the line:
the operator of a failing BinOp, the attribute of a failing getattr, the call of a failing call, the
name of an untyped variable, the `return` statements of a unification failure. Pure Python: no Numba.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

from pyserver.analysis.model import Range
from pyserver.analysis.worker.report.explain import clean_text, in_user_terms
from pyserver.pysource import statements_in

# Numba's operator function names -> the AST operator classes they come from.
_BINOPS: dict[str, type[ast.operator]] = {
    "add": ast.Add,
    "sub": ast.Sub,
    "mul": ast.Mult,
    "truediv": ast.Div,
    "floordiv": ast.FloorDiv,
    "mod": ast.Mod,
    "pow": ast.Pow,
    "matmul": ast.MatMult,
    "lshift": ast.LShift,
    "rshift": ast.RShift,
    "and_": ast.BitAnd,
    "or_": ast.BitOr,
    "xor": ast.BitXor,
}
_COMPARES: dict[str, type[ast.cmpop]] = {
    "lt": ast.Lt,
    "le": ast.LtE,
    "gt": ast.Gt,
    "ge": ast.GtE,
    "eq": ast.Eq,
    "ne": ast.NotEq,
    "contains": ast.In,
    "is_": ast.Is,
    "is_not": ast.IsNot,
}
_SYMBOLS: dict[type, str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.Is: "is",
}

_FUNCTION_RE = re.compile(r"No implementation of function Function\((.*?)\) found for signature")
_OPERATOR_NAME_RE = re.compile(r"<built-in function (\w+)>")
_CLASS_NAME_RE = re.compile(r"<class '(?:[\w.]+\.)?(\w+)'>")
_PLAIN_FUNCTION_RE = re.compile(r"<function (?:[\w.]+\.)?(\w+) at")
_ATTRIBUTE_RE = re.compile(r"Unknown attribute '(\w+)'")
_VARIABLE_RE = re.compile(r"Cannot infer the type of variable '([^']+)'")
_UNTYPED_GLOBAL_RE = re.compile(r"Untyped global name '(\w+)'")
_NAME_ERROR_RE = re.compile(r"NameError: name '(\w+)' is not defined")
_FILE_LINE_RE = re.compile(r'File "([^"]+)", line (\d+)')
_PREAMBLE_RE = re.compile(r"^Failed in \w[\w -]* (?:mode )?pipeline \(step: [^)]*\)\s*$")


def strip_preamble(text: str) -> str:
    """Numba's text without the pipeline preamble and colour codes (what fullMessage keeps)."""
    text = clean_text(re.sub(r"\x1b\[[0-9;]*m", "", text))
    lines = [line for line in text.splitlines() if not _PREAMBLE_RE.match(line.strip())]
    return "\n".join(lines).strip()


def short_message(text: str) -> str:
    """The part a user acts on: the first statement of Numba's message, with the failing signature."""
    text = strip_preamble(text)
    lines = [line.rstrip() for line in text.splitlines()]
    head: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            if head and not head[-1].endswith(":"):
                break
            continue
        if stripped.startswith(("During:", 'File "', "Return of:")):
            break
        if stripped.startswith(">>>") and head:
            head[-1] = head[-1].rstrip(":") + ": " + stripped[3:].strip()
            break
        if stripped.startswith("There are ") and "candidate implementations" in stripped:
            break
        head.append(stripped)
        if stripped.endswith(":") and index + 1 < len(lines) and lines[index + 1].strip() == "":
            continue
        if len(head) >= 3:
            break
    message = (" ".join(head).strip() or text.splitlines()[0]) if text else "Numba reported an error"
    message = re.sub(r"\s+", " ", message)
    return in_user_terms(message.replace(" .", "."))


def file_lines(text: str, path: str) -> list[int]:
    """1-based lines of `File "...", line N` blocks that name `path` (same file name at least)."""
    lines = []
    for file_name, line in _FILE_LINE_RE.findall(text):
        if file_name == path or path.endswith(file_name) or file_name.endswith(path.rsplit("/", 1)[-1]):
            lines.append(int(line))
    return lines


@dataclass
class SourceIndex:
    """The buffer's AST, indexed for range lookups. The tree is shared with the analysis's other steps
    (parsed once per run): nothing here changes it."""

    source: str
    tree: ast.Module | None
    # Built on first use: 1-based line -> nodes starting there (walk order), from one walk of the whole
    # tree; and the function defined on each line, from a walk of the statements only (a `def` is one).
    _by_line: dict[int, list[ast.AST]] | None = field(default=None, init=False, repr=False, compare=False)
    _functions: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def parse(cls, source: str) -> SourceIndex:
        try:
            return cls(source, ast.parse(source))
        except (SyntaxError, ValueError):
            return cls(source, None)

    @functools.cached_property
    def lines(self) -> list[str]:
        return self.source.splitlines()

    def _nodes_by_line(self) -> dict[int, list[ast.AST]]:
        if self._by_line is None:
            by_line: dict[int, list[ast.AST]] = {}
            for node in ast.walk(self.tree) if self.tree is not None else ():
                line = getattr(node, "lineno", None)
                if line is not None:
                    by_line.setdefault(line, []).append(node)
            self._by_line = by_line
        return self._by_line

    def _functions_by_line(self) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
        if self._functions is None:
            functions: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
            for node, _ in statements_in(self.tree.body) if self.tree is not None else ():
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    functions.setdefault(node.lineno, node)
            self._functions = functions
        return self._functions

    def line_range(self, line: int) -> Range:
        """The text of a 1-based line without its indentation."""
        lines = self.lines
        if not 1 <= line <= len(lines):
            return Range.of(max(line - 1, 0), 0, max(line - 1, 0), 0)
        text = lines[line - 1]
        start = len(text) - len(text.lstrip())
        end = len(text.rstrip())
        if "#" in text[start:end]:
            code = text[start:end].split("#", 1)[0].rstrip()
            end = start + len(code) if code else end
        return Range.of(line - 1, start, line - 1, max(end, start))

    def nodes_on_line(self, line: int, kind: type | tuple[type, ...]) -> list[ast.AST]:
        if self.tree is None:
            return []
        found = [node for node in self._nodes_by_line().get(line, ()) if isinstance(node, kind)]
        found.sort(key=lambda n: (getattr(n, "col_offset", 0), -(getattr(n, "end_col_offset", 0) or 0)))
        return found

    def node_range(self, node: ast.AST) -> Range:
        return Range.of(
            node.lineno - 1,  # type: ignore[attr-defined]
            node.col_offset,  # type: ignore[attr-defined]
            (node.end_lineno or node.lineno) - 1,  # type: ignore[attr-defined]
            node.end_col_offset or node.col_offset,  # type: ignore[attr-defined]
        )

    def _operator_range(self, left: ast.AST, right: ast.AST, symbol: str) -> Range | None:
        lines = self.lines
        start_line, start_col = left.end_lineno, left.end_col_offset  # type: ignore[attr-defined]
        if start_line is None or start_col is None or start_line != right.lineno:  # type: ignore[attr-defined]
            return None
        segment = lines[start_line - 1][start_col : right.col_offset]  # type: ignore[attr-defined]
        index = segment.find(symbol)
        if index < 0:
            return None
        column = start_col + index
        return Range.of(start_line - 1, column, start_line - 1, column + len(symbol))

    def error_range(self, text: str, line: int) -> Range:
        """The most specific range on `line` that Numba's message points at."""
        match = _FUNCTION_RE.search(text)
        if match:
            inner = match.group(1)
            operator_match = _OPERATOR_NAME_RE.fullmatch(inner.strip())
            name = operator_match.group(1) if operator_match else None
            if name is not None:
                base = name[1:] if name.startswith("i") and name[1:] in _BINOPS else name
                found = self._operator_on_line(base, line, augmented=name != base)
                if found is not None:
                    return found
            called = _call_name(inner)
            call = self._call_on_line(line, called)
            if call is not None:
                return call
        attribute = _ATTRIBUTE_RE.search(text)
        if attribute:
            for node in self.nodes_on_line(line, ast.Attribute):
                assert isinstance(node, ast.Attribute)
                if node.attr == attribute.group(1) and node.end_col_offset is not None:
                    end_line = (node.end_lineno or line) - 1
                    return Range.of(
                        end_line, node.end_col_offset - len(node.attr), end_line, node.end_col_offset
                    )
        for regex in (_UNTYPED_GLOBAL_RE, _NAME_ERROR_RE):
            named = regex.search(text)
            if named:
                name_range = self.name_range(named.group(1), line)
                if name_range is not None:
                    return name_range
        if (
            "Invalid use of" in text
            or "resolving callee type" in text
            or "Cannot determine Numba type" in text
        ):
            call = self._call_on_line(line, _call_name(text))
            if call is not None:
                return call
        return self.line_range(line)

    def _operator_on_line(self, name: str, line: int, augmented: bool) -> Range | None:
        if name in _BINOPS:
            op_class = _BINOPS[name]
            if augmented:
                for node in self.nodes_on_line(line, ast.AugAssign):
                    assert isinstance(node, ast.AugAssign)
                    if isinstance(node.op, op_class):
                        found = self._operator_range(node.target, node.value, _SYMBOLS[op_class] + "=")
                        return found or self.node_range(node)
            for node in self.nodes_on_line(line, ast.BinOp):
                assert isinstance(node, ast.BinOp)
                if isinstance(node.op, op_class):
                    return self._operator_range(node.left, node.right, _SYMBOLS[op_class]) or self.node_range(
                        node
                    )
            for node in self.nodes_on_line(line, ast.AugAssign):
                assert isinstance(node, ast.AugAssign)
                if isinstance(node.op, op_class):
                    found = self._operator_range(node.target, node.value, _SYMBOLS[op_class] + "=")
                    return found or self.node_range(node)
        if name in _COMPARES:
            cmp_class = _COMPARES[name]
            for node in self.nodes_on_line(line, ast.Compare):
                assert isinstance(node, ast.Compare)
                operands = [node.left, *node.comparators]
                for index, op in enumerate(node.ops):
                    if isinstance(op, cmp_class):
                        found = self._operator_range(
                            operands[index], operands[index + 1], _SYMBOLS[cmp_class]
                        )
                        return found or self.node_range(node)
        if name in ("getitem", "setitem"):
            for node in self.nodes_on_line(line, ast.Subscript):
                return self.node_range(node)
        if name in ("neg", "pos", "not_", "invert"):
            for node in self.nodes_on_line(line, ast.UnaryOp):
                return self.node_range(node)
        return None

    def _call_on_line(self, line: int, name: str | None) -> Range | None:
        calls = self.nodes_on_line(line, ast.Call)
        if not calls:
            return None
        if name:
            for node in calls:
                assert isinstance(node, ast.Call)
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called == name:
                    return self.node_range(node)
        # The innermost call is the most likely culprit only when it is the only one; else the outermost.
        return self.node_range(calls[0])

    def name_range(self, name: str, line: int, store: bool | None = None) -> Range | None:
        for node in self.nodes_on_line(line, ast.Name):
            assert isinstance(node, ast.Name)
            if node.id == name and (store is None or isinstance(node.ctx, ast.Store) == store):
                return self.node_range(node)
        return None

    def variable_range(self, name: str, line: int | None, function: ast.AST | None) -> Range | None:
        """The name of a variable where it is assigned: on `line` if given, else first in `function`."""
        if line is not None:
            found = self.name_range(name, line, store=True) or self.name_range(name, line)
            if found is not None:
                return found
        if function is not None:
            for node in ast.walk(function):
                if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
                    return self.node_range(node)
        return None

    def function_node(self, def_line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if self.tree is None:
            return None
        return self._functions_by_line().get(def_line)

    def return_ranges(self, def_line: int) -> list[tuple[int, Range]]:
        """(1-based line, range) of each `return` of the function defined on `def_line` (not nested)."""
        function = self.function_node(def_line)
        if function is None:
            return []
        found: list[tuple[int, Range]] = []

        def visit(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                    continue
                if isinstance(child, ast.Return):
                    found.append((child.lineno, self.node_range(child)))
                visit(child)

        visit(function)
        return found

    def loop_range(self, line: int) -> Range:
        # The loop's header line (its body is not part of the range).
        for node in self.nodes_on_line(line, (ast.For, ast.While)):
            return self.line_range(node.lineno)  # type: ignore[attr-defined]
        return self.line_range(line)


def _call_name(text: str) -> str | None:
    for regex in (_CLASS_NAME_RE, _PLAIN_FUNCTION_RE, _OPERATOR_NAME_RE):
        match = regex.search(text)
        if match:
            return match.group(1)
    match = re.search(r"Function\(<[^>]*?(\w+)>\)", text)
    return match.group(1) if match else None


def is_builtin_call_failure(text: str) -> bool:
    """A Python builtin or class called with types Numba has no implementation for (e.g. float(str))."""
    match = _FUNCTION_RE.search(text)
    if not match:
        return False
    inner = match.group(1).strip()
    if _OPERATOR_NAME_RE.fullmatch(inner):
        name = _OPERATOR_NAME_RE.fullmatch(inner).group(1)  # type: ignore[union-attr]
        return (
            name not in _BINOPS
            and name not in _COMPARES
            and name.lstrip("i") not in _BINOPS
            and name
            not in (
                "getitem",
                "setitem",
                "neg",
                "pos",
                "not_",
                "invert",
            )
        )
    return inner.startswith("<class '") and "." not in inner[len("<class '") :]
