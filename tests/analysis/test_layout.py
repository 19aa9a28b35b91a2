"""The analysis's layout rules, checked on the source: Numba is imported only inside pyserver/numba_api,
nothing outside the worker names `pyserver.analysis.worker` (the shells use pyserver.analysis.api),
and importing numba_api patches nothing until install()."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYSERVER = ROOT / "pyserver"


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return found


def test_numba_is_imported_only_inside_numba_api() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((PYSERVER / "analysis").rglob("*.py"))
        for name in _imports(path)
        if name.split(".")[0] in ("numba", "llvmlite")
    ]
    assert offenders == []


def test_only_the_worker_and_the_api_name_the_worker_modules() -> None:
    offenders = []
    for folder in ("analysis", "lsp", "debug", "record", "profile"):
        for path in sorted((PYSERVER / folder).rglob("*.py")):
            inside = (
                path.is_relative_to(PYSERVER / "analysis" / "worker")
                or path == PYSERVER / "analysis" / "api.py"
            )
            if inside:
                continue
            offenders += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in _imports(path)
                if name == "pyserver.analysis.worker" or name.startswith("pyserver.analysis.worker.")
            ]
    assert offenders == []


def test_numba_api_patches_numba_only_when_installed() -> None:
    script = (
        "from numba.core.typing.context import BaseContext\n"
        "before = BaseContext.resolve_function_type\n"
        "from pyserver import numba_api\n"
        "assert BaseContext.resolve_function_type is before, 'patched at import'\n"
        "numba_api.install()\n"
        "assert BaseContext.resolve_function_type is not before, 'not patched by install()'\n"
        "patched = BaseContext.resolve_function_type\n"
        "numba_api.install()\n"
        "assert BaseContext.resolve_function_type is patched, 'installed twice'\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_worker_stages_import_each_other_without_cycles() -> None:
    worker = PYSERVER / "analysis" / "worker"
    edges: dict[str, set[str]] = {}
    for path in worker.rglob("*.py"):
        parts = path.relative_to(worker).parts
        if len(parts) < 2:
            continue  # the worker's entry point
        for name in _imports(path):
            if name.startswith("pyserver.analysis.worker."):
                stage = name.split(".")[3]
                if stage != parts[0]:
                    edges.setdefault(parts[0], set()).add(stage)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            s == goal or (s not in seen and reaches(s, goal, seen | {s})) for s in edges.get(start, ())
        )

    assert [stage for stage in edges if reaches(stage, stage, set())] == []
    assert edges["load"] == {"discover"} and "discover" not in edges  # discovery reads source only
