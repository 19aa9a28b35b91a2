"""Record scalars of jitted frames, which Numba's DWARF types only as a pointer to N bytes: how to
recognise one, and its record type when the frame's source says exactly which array it comes from."""

from __future__ import annotations

from pyserver.debug.values.live_versions import function_name
from pyserver.debug.values.numba_types import NumbaType
from pyserver.debug.values.report import FrameReport, RawVar, SourceIndex


def record_pointer_size(raw: RawVar) -> int:
    """N when the variable is, in DWARF, an untyped pointer to N bytes (`[N x i8]*`): how Numba
    describes a record scalar (RecordModel's value is a pointer to the record's bytes); else 0."""
    layout = raw.layout
    target = layout.get("target") or {}
    element = target.get("elem") or {}
    if raw.numba_type.kind not in ("unknown", "record") or layout.get("code") != "ptr":
        return 0
    if target.get("code") != "array" or element.get("code") != "int" or str(element.get("size")) != "1":
        return 0
    return int(target.get("count", 0) or 0)


def record_type(
    report: FrameReport, base: str, groups: dict[str, list[RawVar]], source: SourceIndex | None
) -> NumbaType | None:
    """The record type of a variable DWARF types only as a pointer to bytes, when it is exact: every
    assignment to it in the function's source is `base = ARRAY[...]` or `for base in ARRAY:`, and every
    such ARRAY is a variable of this frame whose DWARF type is an array of one record type of that
    size (indexing or iterating an array of records gives that record type, or an array, which DWARF
    describes as a struct, not as a pointer). None otherwise."""
    if source is None or not report.function:
        return None
    if not all(source.mentions(v.line, base) for v in groups[base] if v.line):
        return None  # the file changed since the compile
    arrays = source.record_sources(function_name(report.function), base)
    if not arrays:
        return None
    found: set[NumbaType] = set()
    for array in arrays:
        versions = groups.get(array)
        if not versions:
            return None
        for version in versions:
            dtype = version.numba_type.dtype
            if version.numba_type.kind != "array" or dtype is None or dtype.kind != "record":
                return None
            found.add(dtype)
    if len(found) != 1:
        return None
    record = found.pop()
    if any(record_pointer_size(raw) != record.size for raw in groups[base]):
        return None
    return record
