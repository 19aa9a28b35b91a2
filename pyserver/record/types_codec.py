"""An exact, JSON-safe encoding of Numba types (no pickle: a signatures file is safe to commit and read).

`str()` of a Numba type does not parse back (`array(float64, 1d, C)`, `reflected list(int64)<iv=None>`),
so the signatures file stores the readable string beside this encoding. Every encoding is checked by
decoding it again: a type that would not round-trip exactly is refused (None), never approximated.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from numba.core import types as _types

# Numba's stubs are stricter than the values it accepts at run time (units, layouts from JSON).
types: Any = _types

Encoded = dict[str, Any]
_GENERATOR_TYPE = getattr(types, "NumPyRandomGeneratorType", None)  # Numba >= 0.56
# Names whose str() is not an attribute of numba.core.types on every supported Numba: Numba 0.59 has no
# `types.bool` (str(types.boolean) is "bool" there too).
_ALIASES = {"bool": "boolean"}


def _named(name: str) -> Any:
    found = getattr(types, name, None)
    return found if found is not None else getattr(types, _ALIASES.get(name, name), None)


# Finds a Python object (a jitted function, a namedtuple or jitclass class) from where it was defined:
# (module name, qualified name, path relative to the recording's root or None). Returns None if not found.
Resolver = Callable[[str, str, "str | None"], Any]


def encode(ty: Any, root: str | None = None, resolve: Resolver | None = None) -> Encoded | None:
    """The exact encoding of `ty`, or None when it cannot be stored exactly.

    Objects a type refers to (a dispatcher, a namedtuple class) are stored by where they are defined:
    module, qualified name, and their file relative to `root` (a script runs as `__main__`, which another
    process knows under another name). `resolve` finds them again for the round-trip check."""
    try:
        encoded = _Encoder(root).encode(ty)
    except _Unsupported:
        return None
    try:
        if decode(json.loads(json.dumps(encoded)), resolve) != ty:  # as another process will read it
            return None
    except Exception:
        return None
    return encoded


def encode_all(
    args: tuple[Any, ...] | list[Any],
    root: str | None = None,
    resolve: Resolver | None = None,
    py_func: Any = None,
) -> list[Encoded] | None:
    """`encode` of each argument type. With `py_func` (the function compiled), an omitted argument whose
    default is not a plain constant (an array, an object) is stored as "the default of parameter P of that
    function": Numba tells such defaults apart by identity, and only the function itself holds that object."""
    encoded = [
        encode_default(py_func, index, a, root, resolve) or encode(a, root, resolve)
        for index, a in enumerate(args)
    ]
    return None if any(e is None for e in encoded) else [e for e in encoded if e is not None]


def encode_default(
    py_func: Any, index: int, ty: Any, root: str | None, resolve: Resolver | None
) -> Encoded | None:
    """An omitted argument (`ty`, argument `index` of `py_func`) as the default of that parameter, where
    its value does not read back equal from JSON: an array, an object, a NaN (Numba's omitted types compare
    their defaults by value, and no NaN equals another); None for any other argument."""
    if py_func is None or not isinstance(ty, types.Omitted) or ty.value is None:
        return None
    if type(ty.value) in _PLAIN and ty.value == ty.value:
        return None
    try:
        parameters = list(inspect.signature(py_func).parameters.values())
        parameter = parameters[index]
        if parameter.default is not ty.value:
            return None
        encoded = {
            "kind": "omitted_default",
            "function": _Encoder(root).where(py_func),
            "parameter": parameter.name,
        }
        if decode(json.loads(json.dumps(encoded)), resolve) != ty:
            return None
    except Exception:
        return None
    return encoded


_ADDRESSED_FUNCTION = re.compile(
    r"type\((?:CPU|CUDA)?Dispatcher\(<function ([\w.<>]+) at 0x[0-9a-fA-F]+>\)\)"
)


_ADDRESSED_JITCLASS = re.compile(r"(jitclass\.\w+)#[0-9a-fA-F]+")


def readable(ty: Any) -> str:
    """`str(ty)` without heap addresses: a jitted function reads `dispatcher(name)`."""
    return _ADDRESSED_JITCLASS.sub(r"\1", _ADDRESSED_FUNCTION.sub(r"dispatcher(\1)", str(ty)))


def default_resolve(module: str, qualname: str, path: str | None) -> Any:
    """The object named `qualname` in an already imported module (the recording process's own view)."""
    loaded = sys.modules.get(module)
    return None if loaded is None else walk_qualname(loaded, qualname)


def walk_qualname(namespace: Any, qualname: str) -> Any:
    if "<locals>" in qualname:
        return None  # defined inside a function: not reachable from its module
    value = namespace
    for part in qualname.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


_PLAIN = (bool, int, float, str)


class _Unsupported(Exception):
    pass


class _Encoder:
    def __init__(self, root: str | None) -> None:
        self.root = os.path.realpath(root) if root else None

    def where(self, obj: Any) -> Encoded:
        """Where a function or class is defined; refused when no other process could find it again."""
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "<locals>" in qualname:
            raise _Unsupported(f"{obj!r} is not defined at the top of a module")
        place: Encoded = {"module": module, "qualname": qualname}
        filename = getattr(getattr(obj, "__code__", None), "co_filename", None)
        if filename is None:
            filename = getattr(sys.modules.get(module), "__file__", None)
        if self.root and filename and not filename.startswith("<"):
            real = os.path.realpath(filename)
            if real.startswith(self.root + os.sep):
                place["path"] = os.path.relpath(real, self.root).replace(os.sep, "/")
        return place

    def value(self, value: Any) -> Any:
        """A default's value (of an omitted argument), JSON-safe and exact, or _Unsupported."""
        if value is None or type(value) in _PLAIN:
            return value
        fields = getattr(type(value), "_fields", None)
        if isinstance(value, tuple) and isinstance(fields, tuple):
            return {"namedtuple": self.where(type(value)), "values": [self.value(v) for v in value]}
        if type(value) is tuple:
            return {"tuple": [self.value(v) for v in value]}
        raise _Unsupported(repr(value))

    def structref(self, ty: Any) -> Encoded:
        """A structref type as its class (importable) and the fields its constructor takes: a class may
        add fields of its own in `__init__` (a meminfo, a pointer), so the fields stored are the shortest
        tail of the type's fields that builds this very type again."""
        cls = type(ty)
        if cls is types.StructRef:
            raise _Unsupported(str(ty))
        fields = list(ty._fields)
        for start in range(len(fields) + 1):
            try:
                rebuilt = cls(fields[start:])
            except Exception:
                continue
            if rebuilt == ty:
                return {
                    "kind": "structref",
                    "class": self.where(cls),
                    "fields": [[name, self.encode(t)] for name, t in fields[start:]],
                }
        raise _Unsupported(str(ty))

    def encode(self, ty: Any) -> Encoded:
        if isinstance(ty, types.Dispatcher):
            return {"kind": "dispatcher", **self.where(ty.dispatcher.py_func)}
        if isinstance(ty, types.BaseNamedTuple):
            uniform = isinstance(ty, types.NamedUniTuple)
            return {
                "kind": "namedtuple",
                "class": self.where(ty.instance_class),
                "types": [self.encode(t) for t in ty.types],
                "uniform": uniform,
            }
        if isinstance(ty, types.Omitted) and not (ty.value is None or type(ty.value) in _PLAIN):
            return {"kind": "omitted", "value_encoded": self.value(ty.value)}
        if isinstance(ty, types.FunctionType):
            sig = ty.signature
            return {
                "kind": "function_type",
                "return": self.encode(sig.return_type),
                "args": [self.encode(a) for a in sig.args],
            }
        if isinstance(ty, types.ClassInstanceType):
            methods = [m.py_func for m in ty.class_type.jit_methods.values() if hasattr(m, "py_func")]
            if not methods:
                raise _Unsupported(str(ty))
            place = self.where(methods[0])  # the class is found through one of its methods
            place["qualname"] = str(place["qualname"]).rpartition(".")[0]
            return {"kind": "jitclass_instance", "class": place}
        if isinstance(ty, types.StructRef):
            return self.structref(ty)
        if isinstance(ty, types.NumberClass):
            return {"kind": "number_class", "dtype": self.encode(ty.instance_type)}
        if isinstance(ty, types.DType):
            return {"kind": "dtype", "dtype": self.encode(ty.dtype)}
        if isinstance(ty, types.UnicodeCharSeq):
            return {"kind": "unicode_charseq", "count": ty.count}
        if isinstance(ty, types.CharSeq):
            return {"kind": "charseq", "count": ty.count}
        if isinstance(ty, types.EnumMember):
            return {
                "kind": "enum_member",
                "class": self.where(ty.instance_class),
                "dtype": self.encode(ty.dtype),
                "int": isinstance(ty, types.IntEnumMember),
            }
        return _encode(ty, self)


def _encode(ty: Any, encoder: _Encoder) -> Encoded:
    nested = encoder.encode  # the types inside a container may refer to objects too
    if isinstance(ty, types.Array):
        return {
            "kind": "array",
            "dtype": nested(ty.dtype),
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
            "fields": [[name, nested(field.type), field.offset] for name, field in ty.fields.items()],
            "size": ty.size,
            "aligned": ty.aligned,
        }
    if isinstance(ty, (types.StarArgTuple, types.StarArgUniTuple)):  # a `*args` tuple as typing sees it
        return {"kind": "star_args", "types": [nested(t) for t in ty.types]}
    if isinstance(ty, types.UniTuple) and type(ty) is types.UniTuple:
        return {"kind": "unituple", "dtype": nested(ty.dtype), "count": ty.count}
    if isinstance(ty, types.Tuple) and type(ty) is types.Tuple:
        return {"kind": "tuple", "types": [nested(t) for t in ty.types]}
    if isinstance(ty, types.ListType):
        return {"kind": "typed_list", "dtype": nested(ty.dtype)}
    if isinstance(ty, types.DictType):
        return {"kind": "typed_dict", "key": nested(ty.key_type), "value": nested(ty.value_type)}
    if isinstance(ty, types.List):
        return {"kind": "list", "dtype": nested(ty.dtype), "reflected": ty.reflected}
    if isinstance(ty, types.Set):
        return {"kind": "set", "dtype": nested(ty.dtype), "reflected": ty.reflected}
    if isinstance(ty, types.Optional):
        return {"kind": "optional", "type": nested(ty.type)}
    if isinstance(ty, types.Literal):
        value = ty.literal_value
        if isinstance(value, bool | int | float | str):
            return {"kind": "literal", "value": value, "python": type(value).__name__}
        raise _Unsupported(str(ty))
    if isinstance(ty, types.Omitted):
        value = ty.value
        if value is None or type(value) in _PLAIN:  # np.float64 is a float, but not the same default
            return {"kind": "omitted", "value": value}
        raise _Unsupported(str(ty))
    if isinstance(ty, types.Module):
        name = getattr(ty.pymod, "__name__", None)
        if isinstance(name, str) and sys.modules.get(name) is ty.pymod:
            return {"kind": "module", "name": name}  # a module passed in (`lib=numpy`)
        raise _Unsupported(str(ty))
    if _GENERATOR_TYPE is not None and isinstance(ty, _GENERATOR_TYPE):
        return {"kind": "numpy_generator"}  # a numpy.random.Generator passed in: one type, no parameters
    name = str(ty)
    if _named(name) == ty:
        return {"kind": "named", "name": name}
    raise _Unsupported(name)


def decode(encoded: Encoded, resolve: Resolver | None = None) -> Any:
    """The Numba type of an encoding made by `encode`. Raises ValueError for anything else, and for an
    object (a jitted function, a class) that `resolve` cannot find here."""
    resolver = resolve or default_resolve

    def find(place: Encoded) -> Any:
        found = resolver(str(place["module"]), str(place["qualname"]), place.get("path"))
        if found is None:
            where = place.get("path") or place["module"]
            raise ValueError(f"{place['qualname']} (from {where}) cannot be found")
        return found

    def value(raw: Any) -> Any:
        if isinstance(raw, dict) and "namedtuple" in raw:
            return find(raw["namedtuple"])(*[value(v) for v in raw["values"]])
        if isinstance(raw, dict) and "tuple" in raw:
            return tuple(value(v) for v in raw["tuple"])
        return raw

    def decode(encoded: Encoded) -> Any:  # the nested types resolve the same way
        return _decode(encoded, decode, find, value)

    return decode(encoded)


def _decode(encoded: Encoded, decode: Callable[[Encoded], Any], find: Any, value: Any) -> Any:
    kind = encoded.get("kind")
    if kind == "dispatcher":
        dispatcher = find(encoded)
        if not hasattr(dispatcher, "py_func"):
            raise ValueError(f"{encoded['qualname']} is not a jitted function here")
        return types.Dispatcher(dispatcher)
    if kind == "namedtuple":
        cls = find(encoded["class"])
        members = [decode(e) for e in encoded["types"]]
        if encoded.get("uniform"):
            return types.NamedUniTuple(members[0], len(members), cls)
        return types.NamedTuple(members, cls)
    if kind == "omitted_default":
        found = find(encoded["function"])
        function = getattr(found, "py_func", found)  # the jitted function's Python function
        parameter = inspect.signature(function).parameters.get(str(encoded["parameter"]))
        if parameter is None or parameter.default is inspect.Parameter.empty:
            raise ValueError(
                f"{encoded['function']['qualname']} has no default for {encoded['parameter']!r} here"
            )
        return types.Omitted(parameter.default)
    if kind == "omitted" and "value_encoded" in encoded:
        return types.Omitted(value(encoded["value_encoded"]))
    if kind == "function_type":
        return types.FunctionType(decode(encoded["return"])(*[decode(a) for a in encoded["args"]]))
    if kind == "jitclass_instance":
        jitclass = find(encoded["class"])
        class_type = getattr(jitclass, "class_type", None)
        if class_type is None:
            raise ValueError(f"{encoded['class']['qualname']} is not a jitclass here")
        return class_type.instance_type
    if kind == "structref":
        cls = find(encoded["class"])
        if not (isinstance(cls, type) and issubclass(cls, types.StructRef)):
            raise ValueError(f"{encoded['class']['qualname']} is not a structref type here")
        return cls([(str(name), decode(field)) for name, field in encoded["fields"]])
    if kind == "number_class":
        return types.NumberClass(decode(encoded["dtype"]))
    if kind == "dtype":
        return types.DType(decode(encoded["dtype"]))
    if kind == "unicode_charseq":
        return types.UnicodeCharSeq(int(encoded["count"]))
    if kind == "charseq":
        return types.CharSeq(int(encoded["count"]))
    if kind == "enum_member":
        member_type = types.IntEnumMember if encoded.get("int") else types.EnumMember
        return member_type(find(encoded["class"]), decode(encoded["dtype"]))
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
    if kind == "star_args":
        return types.StarArgTuple.from_types(tuple(decode(e) for e in encoded["types"]))
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
    if kind == "module":
        # Only a module this process has imported: decoding never imports anything.
        module = sys.modules.get(str(encoded["name"]))
        if module is None:
            raise ValueError(f"module {encoded['name']} is not imported here")
        return types.Module(module)
    if kind == "numpy_generator" and _GENERATOR_TYPE is not None:
        return _GENERATOR_TYPE("NumPyRandomGeneratorType")  # the type numba.typeof gives a Generator
    raise ValueError(f"unknown type encoding: {encoded!r}")
