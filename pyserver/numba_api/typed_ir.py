"""The variables of a typed Numba IR, as the hover shows them: one walk for the analysis's own inference
and for the compiles `record` sees in the user's program (which store Numba's typemap of each compile).

Imports only Numba's IR module, so that `record`'s hook can load this part alone."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from numba.core import ir
from numba.core import types as nbtypes

from pyserver.numba_api.inference_model import VariableInfo, source_name


def read_vars(stmt: Any) -> list[Any]:
    """The variables a statement reads. A phi is not a read: it merges versions at a join, and the
    statement that then uses the merged version is the read."""
    if isinstance(stmt, ir.Assign):
        value = stmt.value
        if isinstance(value, ir.Var):
            return [value]
        if isinstance(value, ir.Expr):
            return [] if value.op == "phi" else list(value.list_vars())
        return []  # arg, const, global, freevar
    if isinstance(stmt, ir.Del):
        return []
    return list(stmt.list_vars())


def statements(blocks: Iterable[Any], into_parfors: bool = False) -> Iterator[Any]:
    """Every statement of the blocks; with `into_parfors`, those of the parallel regions' own blocks too
    (a parallel=True function's IR after the parfor pass keeps its loop bodies inside parfor nodes)."""
    for block in blocks:
        for stmt in block.body:
            yield stmt
            if into_parfors and hasattr(stmt, "loop_body") and hasattr(stmt, "init_block"):
                yield from statements([stmt.init_block, *stmt.loop_body.values()], True)


def typed_variables(
    blocks: Iterable[Any],
    typemap: dict[str, Any],
    def_line: int,
    arg_names: Iterable[str],
    into_parfors: bool = False,
    filename: str | None = None,
) -> list[VariableInfo]:
    """The user's variables (no `$` temporaries), each SSA version once, with the lines that read it.
    `filename`: the function's file; a variable that Numba's own passes add from its own source (the
    loop canonicalisation's `get_range` temporaries) is not the user's, and is left out."""
    all_statements = list(statements(blocks, into_parfors))
    names = set(arg_names)
    reads: dict[str, set[int]] = {}
    for stmt in all_statements:
        line = stmt.loc.line if stmt.loc is not None else None
        if line:
            for var in read_vars(stmt):
                reads.setdefault(var.name, set()).add(int(line))
    seen: set[str] = set()
    found = []
    for stmt in all_statements:
        if not isinstance(stmt, ir.Assign):
            continue
        name = stmt.target.name
        if name.startswith("$") or "closure__locals__" in name or name in seen:
            continue
        where = getattr(stmt.loc, "filename", None)
        if filename is not None and where is not None and where != filename:
            continue
        seen.add(name)
        ty = typemap.get(name)
        if ty is None:
            continue
        is_arg = isinstance(stmt.value, ir.Arg)
        line = def_line if is_arg else stmt.loc.line
        is_phi = isinstance(stmt.value, ir.Expr) and stmt.value.op == "phi"
        found.append(
            VariableInfo(
                source_name(name),
                name,
                ty,
                line,
                is_arg or name in names,
                sorted(reads.get(name, ())),
                is_phi,
            )
        )
    return found


def shown_type(ty: Any) -> tuple[str, str | None]:
    """(the type a hover shows, the literal's own text or None): `int64` and `Literal[int](1)`."""
    literal = None
    if isinstance(ty, nbtypes.Literal):
        literal = str(ty)
        ty = nbtypes.unliteral(ty)
    text = str(ty)
    if text in ("unknown", "undefined") or "undefined" in text:
        text = "unknown"
    return text, literal


def compiled_types(compile_result: Any, readable: Any) -> dict[str, Any] | None:
    """What one real compile typed, as plain data: its return type and its variables (name, IR name,
    type, line, ...), every type spelled by `readable`. None when the compile kept no type annotation."""
    annotation = getattr(compile_result, "type_annotation", None)
    blocks = getattr(annotation, "blocks", None)
    typemap = getattr(annotation, "typemap", None)
    func_id = getattr(annotation, "func_id", None)
    if blocks is None or typemap is None or func_id is None:
        return None
    return_type = compile_result.signature.return_type
    return typed_ir_record(blocks, typemap, return_type, func_id, readable)


def typed_ir_record(
    blocks: dict[Any, Any], typemap: dict[str, Any], return_type: Any, func_id: Any, readable: Any
) -> dict[str, Any]:
    """`compiled_types` of a typed IR's blocks (those of a compile, or a stencil kernel's)."""
    def_line = func_id.code.co_firstlineno
    variables = []
    filename = func_id.code.co_filename
    for variable in typed_variables(blocks.values(), typemap, def_line, func_id.arg_names, True, filename):
        text, literal = shown_type(variable.type)
        shown: dict[str, Any] = {
            "name": variable.name,
            "ssa_name": variable.ssa_name,
            "type": readable(text) if text != "unknown" else text,
            "line": int(variable.line),
        }
        if literal is not None:
            shown["literal"] = readable(literal)
        if variable.is_arg:
            shown["is_arg"] = True
        if variable.used_lines:
            shown["used_lines"] = [int(n) for n in variable.used_lines]
        if variable.phi:
            shown["phi"] = True
        variables.append(shown)
    return {"returns": readable(str(return_type)), "variables": variables}
