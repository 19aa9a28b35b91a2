"""The structural rules that ruff, mypy and import-linter do not state on their own, checked in `make lint`
and `make test-python`:

- no source file over 600 lines (pyserver/, extension/);
- no private name (`_x`, not a dunder) of a pyserver module imported or reached from another module
  (pyserver/, tests/, bench/): a component is reached through its public names only;
- every import of a pyserver module names one that exists, imports inside functions included (an
  `except ImportError` around a moved module would otherwise hide it);
- no import cycle between pyserver's modules, counting imports inside functions too (a cycle hidden in
  a function is still a cycle of the design). Imports under `if TYPE_CHECKING:` are left out: a
  component may name the type of the session that holds it without importing it at run time.

Exit status 1 with one line per violation, 0 and a one-line summary otherwise.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 600
LENGTH_CHECKED = (("pyserver", "*.py"), ("extension", "*.ts"))
PRIVACY_CHECKED = ("pyserver", "tests", "bench")
PACKAGE = "pyserver"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str | None, level: int, importer: str, is_package: bool) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".")
    # A package's own __init__ is level-1 relative to itself; a module's, to its parent.
    base = base if is_package else base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, module] if module else base)


def long_files() -> Iterator[str]:
    for folder, pattern in LENGTH_CHECKED:
        for path in sorted((ROOT / folder).rglob(pattern)):
            if "node_modules" in path.parts:
                continue
            count = len(path.read_text(encoding="utf-8").splitlines())
            if count > MAX_LINES:
                yield f"{path.relative_to(ROOT)}: {count} lines (at most {MAX_LINES})"


def private_reaches(path: Path) -> Iterator[str]:
    """`from pyserver.x import _y`, and `m._y` where `m` names an imported pyserver module."""
    importer = _module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    module_aliases: dict[str, str] = {}
    where = path.relative_to(ROOT)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(node.module, node.level, importer, is_package)
            if not (source == PACKAGE or source.startswith(PACKAGE + ".")) or source == importer:
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    yield f"{where}:{node.lineno}: imports private {source}.{alias.name}"
                elif alias.asname or alias.name:
                    module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + ".") or alias.name == PACKAGE:
                    if any(_is_private(part) for part in alias.name.split(".")):
                        yield f"{where}:{node.lineno}: imports private module {alias.name}"
                    if alias.asname:
                        module_aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_aliases
            and _is_private(node.attr)
        ):
            yield f"{where}:{node.lineno}: reaches private {module_aliases[node.value.id]}.{node.attr}"


def _module_exists(name: str) -> bool:
    parts = name.split(".")
    base = ROOT.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def missing_modules(path: Path) -> Iterator[str]:
    """`import pyserver.x` / `from pyserver.x import y` where pyserver.x is no module (y may be a module)."""
    importer = _module_name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = path.relative_to(ROOT)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(node.module, node.level, importer, is_package)
            if source == PACKAGE or source.startswith(PACKAGE + "."):
                if not _module_exists(source):
                    yield f"{where}:{node.lineno}: imports from {source}, which is no module"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + ".") and not _module_exists(alias.name):
                    yield f"{where}:{node.lineno}: imports {alias.name}, which is no module"


def import_cycles() -> Iterator[str]:
    graph = grimp.build_graph(PACKAGE, cache_dir=None, exclude_type_checking_imports=True)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    for component in _strongly_connected(edges):
        if len(component) > 1:
            cycle = sorted(component)
            yield f"import cycle between {len(cycle)} modules: {', '.join(cycle)}"


def _strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the module graph is deeper than Python's recursion allows)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
    return components


def main() -> int:
    sys.path.insert(0, str(ROOT))
    problems = list(long_files())
    for folder in PRIVACY_CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            problems.extend(private_reaches(path))
            problems.extend(missing_modules(path))
    problems.extend(import_cycles())
    for line in problems:
        print(line)
    if problems:
        print(f"lint_rules: {len(problems)} violation(s)")
        return 1
    print("lint_rules: file length, private names, imported modules and import cycles: all kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
