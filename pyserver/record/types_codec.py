"""An exact, JSON-safe encoding of Numba types (no pickle: a signatures file is safe to commit and read).

`str()` of a Numba type does not parse back (`array(float64, 1d, C)`, `reflected list(int64)<iv=None>`),
so the signatures file stores the readable string beside this encoding. Every encoding is checked by
decoding it again: a type that would not round-trip exactly is refused (None), never approximated.
"""

from __future__ import annotations

from typing import Any

from numba.core import types as _types

# Numba's stubs are stricter than the values it accepts at run time (units, layouts from JSON).
types: Any = _types

Encoded = dict[str, Any]
# Names whose str() is not an attribute of numba.core.types on every supported Numba: Numba 0.59 has no
# `types.bool` (str(types.boolean) is "bool" there too).
_ALIASES = {"bool": "boolean"}


def _named(name: str) -> Any:
    found = getattr(types, name, None)
    return found if found is not None else getattr(types, _ALIASES.get(name, name), None)


def encode(ty: Any) -> Encoded | None:
    """The exact encoding of `ty`, or None when it cannot be stored exactly."""
    try:
        encoded = _encode(ty)
    except _Unsupported:
        return None
    try:
        if decode(encoded) != ty:
            return None
    except Exception:
        return None
    return encoded


def encode_all(args: tuple[Any, ...] | list[Any]) -> list[Encoded] | None:
    encoded = [encode(a) for a in args]
    return None if any(e is None for e in encoded) else [e for e in encoded if e is not None]


class _Unsupported(Exception):
    pass


def _encode(ty: Any) -> Encoded:
    if isinstance(ty, types.Array):
        return {
            "kind": "array",
            "dtype": _encode(ty.dtype),
            "ndim": ty.ndim,
            "layout": ty.layout,
            "readonly": not ty.mutable,
            "aligned": ty.aligned,
        }
    if isinstance(ty, types.NPDatetime):
        return {"kind": "datetime64", "unit": ty.unit}
    if isinstance(ty, types.NPTimedelta):
        return {"kind": "timedelta64", "unit": ty.unit}
    if isinstance(ty, types.Record):
        return {
            "kind": "record",
            "fields": [[name, _encode(field.type), field.offset] for name, field in ty.fields.items()],
            "size": ty.size,
            "aligned": ty.aligned,
        }
    if isinstance(ty, types.UniTuple) and type(ty) is types.UniTuple:
        return {"kind": "unituple", "dtype": _encode(ty.dtype), "count": ty.count}
    if isinstance(ty, types.Tuple) and type(ty) is types.Tuple:
        return {"kind": "tuple", "types": [_encode(t) for t in ty.types]}
    if isinstance(ty, types.ListType):
        return {"kind": "typed_list", "dtype": _encode(ty.dtype)}
    if isinstance(ty, types.DictType):
        return {"kind": "typed_dict", "key": _encode(ty.key_type), "value": _encode(ty.value_type)}
    if isinstance(ty, types.List):
        return {"kind": "list", "dtype": _encode(ty.dtype), "reflected": ty.reflected}
    if isinstance(ty, types.Set):
        return {"kind": "set", "dtype": _encode(ty.dtype), "reflected": ty.reflected}
    if isinstance(ty, types.Optional):
        return {"kind": "optional", "type": _encode(ty.type)}
    if isinstance(ty, types.Literal):
        value = ty.literal_value
        if isinstance(value, bool | int | float | str):
            return {"kind": "literal", "value": value, "python": type(value).__name__}
        raise _Unsupported(str(ty))
    if isinstance(ty, types.Omitted):
        value = ty.value
        if value is None or isinstance(value, bool | int | float | str):
            return {"kind": "omitted", "value": value}
        raise _Unsupported(str(ty))
    name = str(ty)
    if _named(name) == ty:
        return {"kind": "named", "name": name}
    raise _Unsupported(name)


def decode(encoded: Encoded) -> Any:
    """The Numba type of an encoding made by `encode`. Raises ValueError for anything else."""
    kind = encoded.get("kind")
    if kind == "named":
        ty = _named(str(encoded["name"]))
        if not isinstance(ty, types.Type):
            raise ValueError(f"not a Numba type name: {encoded['name']!r}")
        return ty
    if kind == "array":
        return types.Array(
            decode(encoded["dtype"]),
            int(encoded["ndim"]),
            str(encoded["layout"]),
            readonly=bool(encoded["readonly"]),
            aligned=bool(encoded.get("aligned", True)),
        )
    if kind == "datetime64":
        return types.NPDatetime(str(encoded["unit"]))
    if kind == "timedelta64":
        return types.NPTimedelta(str(encoded["unit"]))
    if kind == "record":
        fields = [
            (str(name), {"type": decode(field), "offset": int(offset), "alignment": None, "title": None})
            for name, field, offset in encoded["fields"]
        ]
        return types.Record(fields, int(encoded["size"]), bool(encoded["aligned"]))
    if kind == "unituple":
        return types.UniTuple(decode(encoded["dtype"]), int(encoded["count"]))
    if kind == "tuple":
        return types.Tuple([decode(e) for e in encoded["types"]])
    if kind == "typed_list":
        return types.ListType(decode(encoded["dtype"]))
    if kind == "typed_dict":
        return types.DictType(decode(encoded["key"]), decode(encoded["value"]))
    if kind == "list":
        return types.List(decode(encoded["dtype"]), reflected=bool(encoded["reflected"]))
    if kind == "set":
        return types.Set(decode(encoded["dtype"]), reflected=bool(encoded["reflected"]))
    if kind == "optional":
        return types.Optional(decode(encoded["type"]))
    if kind == "literal":
        return types.literal(encoded["value"])
    if kind == "omitted":
        return types.Omitted(encoded["value"])
    raise ValueError(f"unknown type encoding: {encoded!r}")
