"""Arguments of an entry call (a jitted frame called from Python), recovered from what the Python
caller passed (the dispatcher frame's `args` tuple), converted as Numba's unboxing converts them."""

from __future__ import annotations

import struct
from typing import Any

from pyserver.debug.values.decoding import ValueDecoder
from pyserver.debug.values.expressions import tuple_variable
from pyserver.debug.values.model import JitVariable
from pyserver.debug.values.numba_types import NumbaType, format_complex, format_float
from pyserver.debug.values.report import FrameReport, RawVar


def recover_argument(
    decoder: ValueDecoder, report: FrameReport, raw: RawVar, arg_names: list[str]
) -> JitVariable | None:
    args = report.entry_args
    if args is None or len(args) != len(arg_names) or raw.name not in arg_names:
        return None
    passed = args[arg_names.index(raw.name)]
    numba_type = raw.numba_type
    name = raw.base
    note = "value passed by the Python caller"
    try:
        scalar = recover_scalar(numba_type, passed)
        if scalar is not None:
            text, value = scalar
            return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=name, note=note)
        kind = numba_type.kind
        py_kind = passed.get("kind")
        if kind == "unicode" and py_kind == "str" and "value" in passed:
            text_value = str(passed["value"])
            return JitVariable(
                name, repr(text_value), numba_type.text, raw=text_value, evaluate_name=name, note=note
            )
        if kind == "tuple" and py_kind == "tuple":
            items = passed.get("items") or []
            if len(items) != len(numba_type.members):
                return None
            children = []
            for index, (member, item) in enumerate(zip(numba_type.members, items, strict=True)):
                member_value = recover_scalar(member, item)
                if member_value is None:
                    return None
                children.append(
                    JitVariable(
                        f"[{index}]",
                        member_value[0],
                        member.text,
                        raw=member_value[1],
                        evaluate_name=f"{name}[{index}]",
                    )
                )
            return tuple_variable(name, numba_type, report, children, note=note)
        if kind == "array" and py_kind == "ndarray" and int(passed["nd"]) == numba_type.ndim:
            shape = tuple(int(s) for s in passed["shape"])
            strides = tuple(int(s) for s in passed["strides"])
            variable = decoder.array_variable(
                report.thread_id,
                report.frame_level,
                name,
                numba_type,
                int(passed["data"]),
                shape,
                strides,
            )
            variable.note = note
            return variable
    except (KeyError, ValueError, TypeError):
        return None
    return None


def recover_scalar(numba_type: NumbaType, passed: dict[str, Any]) -> tuple[str, Any] | None:
    """(text, value) of a Python scalar the caller passed, converted as Numba's unboxing would for
    this parameter type; None when the pair is not one of the plain conversions."""
    kind = numba_type.kind
    py_kind = passed.get("kind")
    if "value" not in passed:
        return None
    if kind in ("int", "uint") and py_kind in ("int", "bool"):
        number = int(passed["value"] == "True") if py_kind == "bool" else int(passed["value"])
        return str(number), number
    if kind == "float" and py_kind in ("int", "float"):
        number_f = float(passed["value"])
        if numba_type.size == 4:
            number_f = struct.unpack("<f", struct.pack("<f", number_f))[0]
        return format_float(number_f, numba_type.size), number_f
    if kind == "bool" and py_kind == "bool":
        flag = passed["value"] == "True"
        return str(flag), flag
    if kind == "complex" and py_kind in ("complex", "float", "int"):
        if py_kind == "complex":
            number_c = complex(float(passed["real"]), float(passed["imag"]))
        else:
            number_c = complex(float(passed["value"]))
        if numba_type.size == 8:
            real, imag = struct.unpack("<ff", struct.pack("<ff", number_c.real, number_c.imag))
            number_c = complex(real, imag)
        return format_complex(number_c, numba_type.size), number_c
    return None
