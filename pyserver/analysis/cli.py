"""`python -m pyserver check PATH... [--format text|json|sarif] [--variables] [--signatures FILE] [--timeout S]`.

Type-checks the jitted functions of files, notebooks and directories (their `*.py` and `*.ipynb`,
recursively) without running the program; a notebook's diagnostics name their cell
(pyserver.analysis.notebook_check): exit 0 when no error was found, 1 when one was, 2 on usage or internal failure.
Heavy imports happen inside run(): `python -m pyserver --help` imports this module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SKIPPED_DIRS = {"__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist"}
TOOL_URI = "https://numba.readthedocs.io/en/stable/user/troubleshoot.html"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a Python file or notebook, or a directory (its *.py and *.ipynb, recursively)",
    )
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="output format")
    parser.add_argument(
        "--signatures",
        action="append",
        default=[],
        metavar="FILE",
        help="recorded signatures (default: .numba-lens/signatures.json under the current directory); repeatable",
    )
    parser.add_argument(
        "--timeout", type=float, default=20.0, metavar="S", help="time-out per file in seconds"
    )
    parser.add_argument("--root", default=None, help="workspace root (default: the current directory)")
    parser.add_argument(
        "--type-hints",
        action="store_true",
        help="also report type-instability hints (Optional, pyobject, reflected lists, 'A' layout in loops, ...)",
    )
    parser.add_argument(
        "--variables",
        action="store_true",
        help='with --format json: each signature\'s per-variable types under "variables" (name, line, '
        "type: what the hover shows)",
    )
    parser.add_argument(
        "--loading",
        choices=("definitions", "full"),
        default="definitions",
        help="definitions: run only the top-level statements that defining the jitted functions needs "
        "(default); full: run each module's whole top level, as an import would",
    )


@dataclass
class Timing:
    """Where a check's time went (the JSON output's "timing"): the worker's start (an interpreter that
    imports Numba and warms up), then the analysis of the files by that warm worker, which is what an
    editor waits for after a save (its worker is already warm)."""

    worker_start_s: float = 0.0
    analysis_s: float = 0.0  # wall time of the files' analyses, worker start excluded
    analysis_cpu_s: float | None = 0.0  # the worker's CPU time over them (None: it restarted, unknown)
    analyses: int = 0  # files analysed, a file analysed again (its callers changed) counted again
    # the worker's CPU time importing modules from outside the workspace during them (scipy, sklearn...):
    # part of analysis_cpu_s, but no analysis (the file's time-out does not count it either)
    third_party_import_cpu_s: float = 0.0

    def analysed(self, engine: Any, analyse: Any) -> Any:
        """Run one analysis and count its wall and the worker's CPU time."""
        pid_before, cpu_before = engine.worker_pid, engine.worker_cpu_s()
        started = time.perf_counter()
        result = None
        try:
            result = analyse()
            return result
        finally:
            self.third_party_import_cpu_s += getattr(result, "third_party_import_cpu_ms", 0.0) / 1000.0
            self.analysis_s += time.perf_counter() - started
            self.analyses += 1
            cpu_after = engine.worker_cpu_s()
            restarted = engine.worker_pid != pid_before
            if cpu_before is None or cpu_after is None or restarted or self.analysis_cpu_s is None:
                self.analysis_cpu_s = None
            else:
                self.analysis_cpu_s += cpu_after - cpu_before

    def to_json(self) -> dict[str, Any]:
        cpu = None if self.analysis_cpu_s is None else round(self.analysis_cpu_s, 3)
        return {
            "worker_start_s": round(self.worker_start_s, 3),
            "analysis_s": round(self.analysis_s, 3),
            "analysis_cpu_s": cpu,
            "analyses": self.analyses,
            "third_party_import_cpu_s": round(self.third_party_import_cpu_s, 3),
        }


def collect_files(paths: list[str]) -> tuple[list[Path], list[str]]:
    files: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            files.append(path.resolve())
        elif path.is_dir():
            for found in sorted([*path.rglob("*.py"), *path.rglob("*.ipynb")]):
                relative_parts = found.relative_to(path).parts[:-1]
                if any(part.startswith(".") or part in SKIPPED_DIRS for part in relative_parts):
                    continue
                files.append(found.resolve())
        else:
            missing.append(raw)
    unique = list(dict.fromkeys(files))
    return unique, missing


def notebook_source(path: Path) -> str:
    """The module a notebook's cells make, to tell whether it has anything for Numba; ValueError for a
    malformed notebook (which is analysed, so that its analysis says what is wrong)."""
    from pyserver.analysis.notebook import NotebookError, notebook_module, read_notebook

    try:
        return notebook_module(read_notebook(path)).source
    except NotebookError as exc:
        raise ValueError(str(exc)) from exc


def _display(path: str, base: Path) -> str:
    try:
        return os.path.relpath(path, base) if Path(path).resolve().is_relative_to(base) else path
    except ValueError:
        return path


def _variables_json(signature: Any) -> list[dict[str, Any]]:
    """One entry per IR version of a variable, in the signature's order: `type` is the hover's text
    (`int64 (literal 1)` for a literal); `numba_type` is Numba's own str() of the type, as in its typemap."""
    return [
        {
            "name": v.name,
            "line": v.line,
            "type": v.shown(),
            "ssa_name": v.ssa_name,
            "numba_type": v.literal or v.type,
            "is_arg": v.is_arg,
        }
        for v in signature.variables
    ]


def _functions_json(functions: list[Any], base: Path, variables: bool = False) -> list[dict[str, Any]]:
    out = []
    for function in functions:
        out.append(
            {
                "path": _display(function.path, base),
                "name": function.name,
                "line": function.line,
                "kind": function.kind,
                "signatures": [
                    {
                        "args": s.args,
                        "return_type": s.return_type,
                        "mode": s.mode,
                        "source": s.source,
                        "ok": s.ok,
                        **({"unknown_reason": s.unknown_reason} if s.unknown_reason else {}),
                        # what Numba's dispatcher compiles: types_codec's encoding, when exact
                        **({"arg_types": json.loads(s.exact)} if s.exact else {}),
                        "lifted_loops": s.lifted_loops,
                        "callers": [
                            {"path": _display(c.path, base), "function": c.function, "line": c.line}
                            for c in s.callers
                        ],
                        # the parallel report, for parallel=True functions only
                        **(
                            {"parallel_loops": [vars(loop) for loop in s.parallel_loops]}
                            if s.parallel_loops
                            else {}
                        ),
                        # recorded from one of twin dispatchers (parallel=True and serial): which one
                        **({"options": s.options} if s.options else {}),
                        **({"variables": _variables_json(s)} if variables else {}),
                    }
                    for s in function.signatures
                ],
                **_compiles_json(function),  # recompiles explained, from recorded runs
            }
        )
    return out


def _compiles_json(function: Any) -> dict[str, Any]:
    from dataclasses import asdict

    compiles = [asdict(c) for c in getattr(function, "compiles", [])]
    if not compiles:
        return {}
    recompiles = [{"args": c["args"], "because": c["because"], "changed": c["changed"]} for c in compiles[1:]]
    return {"compiles": compiles, "recompiles": recompiles}


def _files_json(results: list[Any], base: Path) -> list[dict[str, Any]]:
    """Per file: how it was loaded and the top-level statements the analysis did not run."""
    return [
        {
            "path": _display(result.path, base),
            "status": result.status,
            "loading": result.loading,
            "skipped_count": len(result.skipped),
            "third_party_import_ms": result.third_party_import_ms,
            "third_party_import_cpu_ms": result.third_party_import_cpu_ms,
            "skipped": [{"line": s.line, "end_line": s.end_line, "reason": s.reason} for s in result.skipped],
        }
        for result in results
    ]


def _diagnostic_json(diagnostic: Any, base: Path) -> dict[str, Any]:
    from dataclasses import asdict

    from pyserver.analysis.api import explain_diagnostic

    data = asdict(diagnostic)
    data["path"] = _display(diagnostic.path, base)
    explanation = explain_diagnostic(diagnostic)  # contract: plain-language cause and fix
    data["why"] = explanation.why
    data["fix"] = explanation.fix
    for related in data["relatedInformation"]:
        related["path"] = _display(related["path"], base)
    return data


def _sarif(diagnostics: list[Any], base: Path, version: str) -> dict[str, Any]:
    from pyserver.analysis.api import explain_diagnostic
    from pyserver.analysis.codes import CODE_TABLE
    from pyserver.analysis.model import CODES
    from pyserver.analysis.notebook_check import cell_of, related_cell_of

    codes = list(CODES) + [code for code in CODE_TABLE if code not in CODES]

    levels = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}

    def location(path: str, range_: Any, message: str | None = None) -> dict[str, Any]:
        found: dict[str, Any] = {
            "physicalLocation": {
                "artifactLocation": {"uri": Path(_display(path, base)).as_posix(), "uriBaseId": "%SRCROOT%"},
                "region": {
                    "startLine": range_.start.line + 1,
                    "startColumn": range_.start.character + 1,
                    "endLine": range_.end.line + 1,
                    "endColumn": range_.end.character + 1,
                },
            }
        }
        if message:
            found["message"] = {"text": message}
        return found

    results = []
    for diagnostic in diagnostics:
        result: dict[str, Any] = {
            "ruleId": diagnostic.code,
            "ruleIndex": codes.index(diagnostic.code) if diagnostic.code in codes else 0,
            "level": levels.get(diagnostic.severity, "warning"),
            "message": {"text": diagnostic.message},
            "locations": [location(diagnostic.path, diagnostic.range)],
        }
        if diagnostic.relatedInformation:
            result["relatedLocations"] = [
                dict(location(r.path, r.range, r.message), id=index)
                for index, r in enumerate(diagnostic.relatedInformation)
            ]
            for index, related_location in enumerate(result["relatedLocations"]):
                if related_cell_of(diagnostic, index) is not None:
                    name = f"cell {related_cell_of(diagnostic, index)}"
                    related_location["logicalLocations"] = [{"name": name}]
        explanation = explain_diagnostic(diagnostic)
        properties: dict[str, Any] = {"why": explanation.why, "fix": explanation.fix}
        if diagnostic.function:
            properties.update(function=diagnostic.function, signature=diagnostic.signature)
        if cell_of(diagnostic) is not None:  # a notebook's cell: the region's lines are the cell's
            properties["cell"] = cell_of(diagnostic)
            result["locations"][0]["logicalLocations"] = [{"name": f"cell {cell_of(diagnostic)}"}]
        result["properties"] = properties
        results.append(result)
    rules = []
    for code in codes:
        info = CODE_TABLE.get(code)
        rule: dict[str, Any] = {
            "id": code,
            "name": code,
            "shortDescription": {"text": info.title if info else f"Numba {code.replace('-', ' ')}"},
            "helpUri": info.link if info else TOOL_URI,
        }
        if info is not None:
            rule["help"] = {
                "text": f"Why: {info.why}\nFix: {info.fix}",
                "markdown": f"**Why:** {info.why}\n\n**Fix:** {info.fix}",
            }
        rules.append(rule)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "Numba Lens",
                        "version": version,
                        "informationUri": TOOL_URI,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri() + "/"}},
                "results": results,
            }
        ],
    }


def run(args: argparse.Namespace) -> int:
    from pyserver import __version__
    from pyserver.analysis.api import find_jitted_functions, may_make_jitted
    from pyserver.analysis.engine import AnalysisEngine, AnalysisUnavailable
    from pyserver.analysis.model import FileResult, has_errors
    from pyserver.analysis.notebook import is_notebook_path
    from pyserver.analysis.notebook_check import analyse_notebook, cell_label, cell_of, related_cell_of
    from pyserver.analysis.static_results import read_source
    from pyserver.record import store
    from pyserver.versions import numba_verdict

    base = Path(args.root or os.getcwd()).resolve()
    if args.timeout <= 0:
        print("pyserver check: --timeout must be positive", file=sys.stderr)
        return 2
    files, missing = collect_files(args.paths)
    if missing:
        for raw in missing:
            print(f"pyserver check: no such file or directory: {raw}", file=sys.stderr)
        return 2
    signature_files = [str(Path(p).resolve()) for p in args.signatures]
    for signature_file in signature_files:
        if not Path(signature_file).is_file():
            print(f"pyserver check: no such signatures file: {signature_file}", file=sys.stderr)
            return 2
    engine = AnalysisEngine(
        base, timeout_s=args.timeout, signature_files=signature_files, loading=args.loading
    )
    # files whose functions a recorded run saw Numba compile, however they were jitted
    recorded_files = store.files_with_typed_compiles(base, signature_files)
    results: list[FileResult] = []
    analysed: dict[str, int] = {}  # real path -> index in results
    timing = Timing()
    try:
        for file in files:
            try:
                source = notebook_source(file) if is_notebook_path(file) else read_source(file)
                # a Numba decorator, or a jitted function made some other way (a call, a library's decorator)
                has_jit = (
                    bool(find_jitted_functions(source, str(file)))
                    or may_make_jitted(source)
                    or os.path.realpath(file) in recorded_files
                )
            except (UnicodeDecodeError, SyntaxError, ValueError):
                has_jit = True  # let the engine report why it cannot be read or parsed
            except OSError as exc:
                print(f"pyserver check: cannot read {file}: {exc}", file=sys.stderr)
                return 2
            if not has_jit:
                continue  # nothing for Numba here: do not execute it
            if engine.worker_pid is None:
                # A missing, broken or unsupported Numba is a usage problem (exit 2), not a finding.
                starting = time.perf_counter()
                verdict = numba_verdict(engine.start().get("numba"))
                timing.worker_start_s += time.perf_counter() - starting
                if not verdict.usable or verdict.status == "newer":
                    print(f"pyserver check: {verdict.message}", file=sys.stderr)
                if not verdict.usable:
                    return 2
            analysed[os.path.realpath(file)] = len(results)
            results.append(
                timing.analysed(
                    engine,
                    lambda file=file: (
                        analyse_notebook(engine, file) if is_notebook_path(file) else engine.analyze(file)
                    ),
                )
            )
        # A jitted function called from a file checked after its own gets that caller's argument types:
        # check its file again (mostly answered from the worker's cache) until no caller's types change.
        changed = [r.callers_changed for r in results]
        for _round in range(len(results)):
            stale = sorted({name for names in changed for name in names if name in analysed})
            if not stale:
                break
            changed = []
            for stale_path in stale:
                again = timing.analysed(
                    engine,
                    lambda stale_path=stale_path: (
                        analyse_notebook(engine, Path(stale_path))
                        if is_notebook_path(stale_path)
                        else engine.analyze(stale_path)
                    ),
                )
                results[analysed[stale_path]] = again
                changed.append(again.callers_changed)
    except AnalysisUnavailable as exc:
        print(f"pyserver check: {exc}", file=sys.stderr)
        print(f"pyserver check: {numba_verdict(None).message}", file=sys.stderr)
        return 2
    finally:
        engine.close()
    if args.type_hints:  # Hint-severity diagnostics, off unless asked for
        from pyserver.analysis.api import type_hints

        for result in results:
            if is_notebook_path(result.path):
                continue  # its lines are the cells' already
            try:
                result.diagnostics.extend(type_hints(result, read_source(Path(result.path))))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                pass  # the file changed or vanished since its analysis: no hints for it
    diagnostics = [d for r in results for d in r.diagnostics]
    functions = [f for r in results for f in r.functions]
    if args.format == "json":
        payload = {
            "diagnostics": [_diagnostic_json(d, base) for d in diagnostics],
            "functions": _functions_json(functions, base, variables=args.variables),
            "files": _files_json(results, base),
            "timing": timing.to_json(),
        }
        print(json.dumps(payload, indent=2))
    elif args.format == "sarif":
        print(json.dumps(_sarif(diagnostics, base, __version__), indent=2))
    else:
        for d in diagnostics:
            start = d.range.start
            print(
                f"{_display(d.path, base)}:{cell_label(cell_of(d))}{start.line + 1}:{start.character + 1}: "
                f"{d.severity}: {d.message} [{d.code}]"
            )
            for index, related in enumerate(d.relatedInformation):
                r = related.range.start
                print(
                    f"{_display(related.path, base)}:{cell_label(related_cell_of(d, index))}{r.line + 1}:{r.character + 1}: note: {related.message}"
                )
        errors = sum(d.severity == "error" for d in diagnostics)
        warnings = sum(d.severity == "warning" for d in diagnostics)
        checked = sum(len(f.signatures) > 0 for f in functions)
        # The summary goes to stderr (stdout holds only diagnostic lines); when both streams are one (a
        # pipe, a CI log), buffered stdout must be out first so the summary stays last, on its own line.
        sys.stdout.flush()
        print(
            f"{errors} error(s), {warnings} warning(s) in {len(results)} file(s); "
            f"{checked} of {len(functions)} jitted function(s) type-checked",
            file=sys.stderr,
        )
    return 1 if has_errors(diagnostics) else 0
