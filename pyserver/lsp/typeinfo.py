"""Which Numba type a name occurrence has, per signature. Only what the analysis recorded is
returned: an occurrence that cannot be pinned to one IR version gives every candidate type, never
a guess between them."""

from __future__ import annotations

from dataclasses import dataclass

from pyserver.analysis.model import SignatureResult, VariableType
from pyserver.lsp.syntax import NameAt


@dataclass(frozen=True)
class OccurrenceType:
    signature: SignatureResult
    types: tuple[str, ...]  # display texts; empty: not recorded; several: one of them (path-dependent)

    @property
    def exact(self) -> str | None:
        return self.types[0] if len(self.types) == 1 else None


def display(variable: VariableType) -> str:
    """`int64 (literal 1)` for a literal, the plain type otherwise."""
    return variable.shown()


def _distinct(variables: list[VariableType]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for variable in variables:
        seen.setdefault(display(variable), None)
    return tuple(seen)


def _plain_distinct(variables: list[VariableType]) -> tuple[str, ...]:
    """Types without literal values: a use of `x` after `x = 1` may be literal or widened."""
    seen: dict[str, None] = {}
    for variable in variables:
        seen.setdefault(variable.type, None)
    return tuple(seen)


def _uses(variable: VariableType) -> list[int] | None:
    """Lines where this IR version is read (from Numba's IR; results cached by an older engine may lack it)."""
    value = getattr(variable, "used_lines", None)
    return list(value) if isinstance(value, (list, tuple)) else None


def _assigned(variable: VariableType) -> bool:
    """Defined by an assignment in the source (not an argument, not a phi merging versions at a join)."""
    return not variable.is_arg and not getattr(variable, "phi", False)


def occurrence_types(
    signature: SignatureResult,
    occurrence: NameAt,
    analysed_line: int,
    reaching: NameAt | None = None,
    reaching_line: int | None = None,
) -> OccurrenceType:
    """Types of one occurrence in one signature. For a use, `reaching` is the assignment that
    certainly reaches it (from the code's structure) and `reaching_line` its analysed line."""
    versions = [v for v in signature.variables if v.name == occurrence.name]
    if occurrence.role == "param":
        chosen = [v for v in versions if v.is_arg]
        return OccurrenceType(signature, _distinct(chosen))
    if occurrence.role == "store":
        chosen = [v for v in versions if v.line == analysed_line and _assigned(v)]
        return OccurrenceType(signature, _distinct(chosen))
    # A use: the version Numba's IR reads there (at a join, the phi version: Numba's merged type); else
    # the version that reaches it by the code's structure; else every version, one answer only when
    # they all agree.
    if any(_uses(v) for v in versions):
        read_here = [v for v in versions if analysed_line in (_uses(v) or [])]
        if read_here:
            return OccurrenceType(signature, _distinct(read_here))
    if reaching is not None and reaching_line is not None:
        if reaching.role == "param":
            chosen = [v for v in versions if v.is_arg]
        else:
            chosen = [v for v in versions if v.line == reaching_line and _assigned(v)]
        if len(_distinct(chosen)) == 1:
            return OccurrenceType(signature, _distinct(chosen))
    distinct = _plain_distinct(versions)
    if len(distinct) == 1 and len(_distinct(versions)) == 1:
        return OccurrenceType(signature, _distinct(versions))
    return OccurrenceType(signature, distinct)
