"""Functions typed by what a recorded run's compiles typed: Numba's own typemap, kept by `record`.

A closure made by a factory, an @overload implementation, a @stencil kernel, or a function whose recorded
argument types do not read back here cannot be typed again by the analysis: their closure cells, the
overload's arguments or the objects in their types exist only in the running program. `record` keeps, per
compile, the types Numba gave every variable and the return type, with a hash of the function's text.
Here those become signatures (source "recorded") of the function as the file now stands, while its text
still hashes the same (moved lines are followed); an edited function gets a note instead of stale types.
Functions compiled from generated source (`exec` of a template) have no file and are never recorded.
"""

from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass
from typing import Any

from pyserver.analysis import codes
from pyserver.analysis.model import Diagnostic, FileResult, FunctionInfo, Range, SignatureResult, VariableType
from pyserver.analysis.worker.infer.kernels import OVERLOAD_KINDS
from pyserver.analysis.worker.load import names
from pyserver.analysis.worker.report import report
from pyserver.record import store

STALE_REASON = "recorded for an older version of this function"
RECORDED_KINDS = ("stencil", "vectorize", "guvectorize")  # a recorded entry's `kernel`, as a function's kind


@dataclass
class Place:
    """Where a function of the file's current text is: its code's first line (first decorator, or the
    `def`/`lambda`), its `def` line and last line, the column of its name, and its syntax tree."""

    first_line: int
    def_line: int
    end_line: int
    name_col: int
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def places(tree: ast.Module | None, lines: list[str]) -> dict[str, list[Place]]:
    """qualified name -> the places of every function (lambdas included) of that name, in source order."""
    found: dict[str, list[Place]] = {}
    if tree is None:
        return found
    # Only a lambda defines a function inside an expression: without one in the text, the walk need not
    # enter expressions, most of a module's nodes.
    skipped = ast.expr if not any("lambda" in line for line in lines) else ()

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, skipped):
                continue
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                name = child.name if not isinstance(child, ast.Lambda) else "<lambda>"
                first = min([d.lineno for d in getattr(child, "decorator_list", [])] + [child.lineno])
                col = child.col_offset
                if not isinstance(child, ast.Lambda) and child.lineno <= len(lines):
                    col = max(lines[child.lineno - 1].find(child.name, child.col_offset), child.col_offset)
                found.setdefault(".".join([*scope, name]), []).append(
                    Place(first, child.lineno, child.end_lineno or child.lineno, col, child)
                )
                visit(child, [*scope, name, "<locals>"])
            elif isinstance(child, ast.ClassDef):
                visit(child, [*scope, child.name])
            else:
                visit(child, scope)

    visit(tree, [])
    return found


def _matching_place(
    entry: store.Entry, candidates: list[Place], lines: list[str], hashes: dict[int, str | None]
) -> Place | None:
    """The place whose text hashes as the recorded one: at the recorded line first, else moved.
    `hashes`: first line -> the text's hash, filled as places are hashed (one file's, one text)."""
    if entry.first_line is None or entry.source_hash is None:
        return None
    ordered = sorted(candidates, key=lambda p: p.first_line != entry.first_line)
    for place in ordered:
        if place.first_line not in hashes:
            hashes[place.first_line] = store.source_hash(lines, place.first_line)
        if hashes[place.first_line] == entry.source_hash:
            return place
    return None


def _under_their_definitions(
    recorded: dict[str, list[store.Entry]],
    where: dict[str, list[Place]],
    lines: list[str],
    hashes: dict[int, str | None],
) -> dict[str, list[store.Entry]]:
    """The recorded entries by the name of the `def` that compiled them. A function renamed before it was
    jitted (`f.__qualname__ = f"{op}_kernel"`, a factory's per-operation name) was recorded under a name
    no function of the text has: its entries go to the function whose text hashes as the recorded one
    (at the recorded line first), several runtime names of one `def` becoming its signatures."""
    every = [place for found in where.values() for place in found]
    name_of = {id(place): name for name, found in where.items() for place in found}
    regrouped: dict[str, list[store.Entry]] = {}
    for qualname, entries in recorded.items():
        for entry in entries:
            name = qualname
            if qualname not in where:
                place = _matching_place(entry, every, lines, hashes)
                name = name_of[id(place)] if place is not None else qualname
            regrouped.setdefault(name, []).append(entry)
    return regrouped


def _keep_what_both_typed(signature: SignatureResult, entry: store.Entry, place: Place) -> None:
    """Two compiles of one `def` for the same argument types: closures a factory made over other values
    (`st = init(...)` with each operation's own `init`) may type a variable differently. A variable (or the
    return) they type differently is unknown for these argument types: which closure a reader means, the
    types alone do not say."""
    other = _variables(entry, place)
    if other is None:
        signature.variables = []
        signature.return_type = None
        return
    theirs = {(v.name, v.ssa_name, v.line): v.type for v in other}
    signature.variables = [
        v for v in signature.variables if theirs.get((v.name, v.ssa_name, v.line)) == v.type
    ]
    if entry.returns != signature.return_type:
        signature.return_type = None


def _variables(entry: store.Entry, place: Place) -> list[VariableType] | None:
    """The recorded variables at the place's lines; [] for a function with none of its own (no parameter,
    no named local), None when this version cannot read them."""
    assert entry.variables is not None and entry.first_line is not None
    delta = place.first_line - entry.first_line
    shown = []
    for raw in entry.variables:
        try:
            is_arg = bool(raw.get("is_arg"))
            shown.append(
                VariableType(
                    name=str(raw["name"]),
                    ssa_name=str(raw["ssa_name"]),
                    type=str(raw["type"]),
                    line=place.def_line if is_arg else int(raw["line"]) + delta,
                    is_arg=is_arg,
                    literal=raw.get("literal") if isinstance(raw.get("literal"), str) else None,
                    used_lines=[int(n) + delta for n in raw.get("used_lines", [])],
                    phi=bool(raw.get("phi")),
                )
            )
        except (KeyError, TypeError, ValueError):
            return None  # a variable this version cannot read: none rather than some
    return shown


def _has_no_variables(place: Place) -> bool:
    """Does the function at `place` take no parameter and bind no name, so that an empty list of recorded
    variables is its whole typemap (`def const(): return table`)?"""
    node = place.node
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not names.local_names(node)


def add_recorded_types(
    result: FileResult,
    root: str,
    source: str,
    index: report.SourceIndex,
    stores: list[dict[str, Any]],
) -> None:
    """Give the file's functions the recorded compiles' types for argument types the analysis did not type
    itself (adding the functions it did not list), and a note for those recorded before an edit."""
    if not stores:
        return
    prefix = store.function_key(os.path.relpath(result.path, root), "")
    recorded: dict[str, list[store.Entry]] = {}
    for data in stores:
        for key in data.get("functions", {}):
            if key.startswith(prefix):
                entries = [e for e in store.typed_entries(data, key) if e.variables is not None and e.ok]
                recorded.setdefault(key[len(prefix) :], []).extend(entries)
    recorded = {name: entries for name, entries in recorded.items() if entries}
    if not recorded:
        return
    lines = source.splitlines(keepends=True)
    where = places(index.tree, lines)
    hashes: dict[int, str | None] = {}
    recorded = _under_their_definitions(recorded, where, lines, hashes)
    added: set[int] = set()  # the signatures made here from recorded compiles
    for qualname, entries in recorded.items():
        candidates = where.get(qualname, [])
        stale: list[str] = []
        for entry in entries:
            place = _matching_place(entry, candidates, lines, hashes)
            if place is None:
                stale.append("(" + ", ".join(entry.args) + ")")
                continue
            info = info_for(result, qualname, place, entry)
            _share_overload_signatures(result, qualname, info)
            parallel = bool(info.options.get("parallel"))
            twin = entry.parallel is not None or parallel  # which dispatcher compiled it matters
            same = next(
                (
                    s
                    for s in info.signatures
                    if s.args == entry.args
                    and (s.variables or id(s) in added)
                    and (not twin or bool(entry.parallel) == parallel)
                ),
                None,
            )
            if same is not None:
                if id(same) in added:  # another recorded compile of this `def` (another closure)
                    _keep_what_both_typed(same, entry, place)
                continue  # typed for these argument types already (by the analysis itself, or recorded)
            variables = _variables(entry, place)
            if variables is None or (not variables and not _has_no_variables(place)):
                continue
            if twin:  # the analysis's own signature of these types is its dispatcher's: say which
                for same in info.signatures:
                    if same.args == entry.args and not same.options:
                        same.options = {"parallel": parallel}
            signature = SignatureResult(
                args=list(entry.args),
                source="recorded",
                return_type=entry.returns,
                mode="nopython",
                ok=True,
                variables=variables,
                exact=json.dumps(entry.types, sort_keys=True) if entry.types is not None else None,
                options={"parallel": bool(entry.parallel)} if twin else {},
            )
            info.signatures.append(signature)
            added.add(id(signature))
            result.diagnostics[:] = [
                d for d in result.diagnostics if not (d.code == "no-signature" and d.function == qualname)
            ]
        if stale and candidates:
            info = info_for(result, qualname, candidates[0], None)
            if not any(s.variables for s in info.signatures):
                result.diagnostics.append(_stale_note(result.path, qualname, candidates[0], stale))


def _share_overload_signatures(result: FileResult, qualname: str, info: FunctionInfo) -> None:
    """An @overload's implementation (`ol_f.<locals>.impl`) listed under its own name shows every signature
    its typing function has (recorded, and from the jitted callers the analysis typed): those are the
    implementation's types, its variables on its own lines."""
    owner_name, _, leaf = qualname.rpartition(".<locals>.")
    if not owner_name or "." in leaf:
        return
    owner = next((f for f in result.functions if f.name == owner_name and f.kind in OVERLOAD_KINDS), None)
    if owner is None:
        return
    for signature in owner.signatures:
        if (
            signature.variables
            and not any(s.args == signature.args for s in info.signatures)
            and _typed_here(signature, info, result)
        ):
            info.signatures.append(signature)


def _typed_here(signature: SignatureResult, info: FunctionInfo, result: FileResult) -> bool:
    """Is this implementation the one the typing function returned for the signature? Its variables
    (those of the body, not the parameters) lie on its lines; where none tells, only an implementation
    whose name no other function of the file has. (A typing function may return one of several
    same-named implementations, one per kind of argument.)"""
    body = [v.line for v in signature.variables if not v.is_arg]
    if body and info.end_line:
        return all(info.line <= line <= info.end_line for line in body)
    return sum(1 for f in result.functions if f.name == info.name) == 1


def info_for(
    result: FileResult,
    qualname: str,
    place: Place,
    entry: store.Entry | None,
    params: list[str] | None = None,
) -> FunctionInfo:
    """The function's entry in the result (the one at this place when the name has several), added when
    the analysis did not list it (with `params`, its parameters, where the caller knows them)."""
    same_name = [f for f in result.functions if f.name == qualname]
    for info in same_name:
        if info.line == place.def_line:
            return info
    info = FunctionInfo(
        path=result.path,
        name=qualname,
        line=place.def_line,
        end_line=place.end_line,
        decorator_line=place.first_line,
        kind=entry.kernel if entry is not None and entry.kernel in RECORDED_KINDS else "njit",
        options={"parallel": True} if entry is not None and entry.parallel else {},
        params=list(params or []),
    )
    result.functions.append(info)
    result.functions.sort(key=lambda f: (f.line, f.name))
    return info


def _stale_note(path: str, qualname: str, place: Place, stale: list[str]) -> Diagnostic:
    shown = "; ".join(dict.fromkeys(stale))
    line = place.def_line - 1
    name = qualname.split(".")[-1]
    return Diagnostic(
        path=path,
        range=Range.of(line, place.name_col, line, place.name_col + len(name)),
        severity="information",
        code="no-signature",
        message=(
            f"Types of '{qualname}' unknown: {STALE_REASON} ({shown}). Its text changed since `record` ran;"
            " record the program again to see Numba's types for it."
        ),
        function=qualname,
        codeDescription=codes.doc_link("no-signature"),
        data={"function": qualname, "recorded": list(dict.fromkeys(stale)), "params": []},
    )
