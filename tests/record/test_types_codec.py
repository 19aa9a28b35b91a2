"""The exact type encoding round-trips every storable type and refuses the rest (never approximates)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba import from_dtype, typeof, types
from numba.typed import Dict, List

from pyserver.record import types_codec

STORABLE = [
    types.int64,
    types.float32,
    types.complex128,
    types.boolean,
    types.unicode_type,
    types.none,
    typeof(np.datetime64("2020-01-01", "D")),
    typeof(np.timedelta64(3, "ns")),
    typeof(np.zeros(3)),
    typeof(np.zeros((2, 2)).T),
    typeof(np.zeros((4, 4))[::2]),
    types.Array(types.float64, 1, "C", readonly=True),
    types.Array(types.int8, 3, "A", aligned=False),
    from_dtype(np.dtype([("a", np.float64), ("b", np.int32)], align=True)),
    typeof(np.zeros(2, dtype=np.dtype([("x", np.int16), ("y", np.float32)]))),
    types.UniTuple(types.int64, 3),
    types.Tuple((types.int64, types.float64, types.UniTuple(types.int8, 2))),
    # a `*args` tuple as typing sees it, mixed and of one type
    types.StarArgTuple.from_types((types.float64, types.literal(2))),
    types.StarArgTuple.from_types((types.int64, types.int64)),
    typeof(List([1.0])),
    typeof(Dict.empty(types.unicode_type, types.float64)),
    types.List(types.int64, reflected=True),
    types.Set(types.float64, reflected=True),
    types.optional(types.int64),
    types.literal(3),
    types.literal("text"),
    types.Omitted(None),
    types.Omitted(2),
    typeof(np.random.default_rng(0)),  # a numpy.random.Generator passed to a kernel
    types.Module(np),  # a module passed in, as `f(lib=numpy)` does
]


@pytest.mark.parametrize("ty", STORABLE, ids=str)
def test_round_trip_is_exact(ty) -> None:
    encoded = types_codec.encode(ty)
    assert encoded is not None
    again = types_codec.decode(json.loads(json.dumps(encoded)))
    assert again == ty and str(again) == str(ty)


def test_layout_and_readonly_are_kept_apart() -> None:
    c, a = types.Array(types.float64, 1, "C"), types.Array(types.float64, 1, "A")
    readonly = types.Array(types.float64, 1, "C", readonly=True)
    encodings = [types_codec.encode(t) for t in (c, a, readonly)]
    assert len({json.dumps(e, sort_keys=True) for e in encodings}) == 3


def test_unstorable_types_are_refused() -> None:
    assert types_codec.encode(types.Omitted(object())) is None
    assert types_codec.encode(types.Omitted(np.float64(1.0))) is None  # not the same default as 1.0
    assert types_codec.encode_all((types.int64, types.Omitted(object()))) is None


def test_classes_and_dtypes_passed_as_arguments_round_trip() -> None:
    for ty in (types.DType(types.float64), typeof(np.float64), typeof(np.zeros(2, dtype="U3"))):
        encoded = types_codec.encode(ty)
        assert encoded is not None and types_codec.decode(json.loads(json.dumps(encoded))) == ty


def test_a_module_decodes_only_where_it_is_imported() -> None:
    # decoding never imports: a signatures file cannot make the reader run a module's code
    import math
    import types as python_types

    assert types_codec.encode(types.Module(math)) == {"kind": "module", "name": "math"}
    with pytest.raises(ValueError, match="not imported here"):
        types_codec.decode({"kind": "module", "name": "numba_lens_no_such_module"})
    # a module object that is not the one imported under its name is refused
    assert types_codec.encode(types.Module(python_types.ModuleType("math"))) is None


def test_decode_rejects_unknown_encodings() -> None:
    with pytest.raises(ValueError):
        types_codec.decode({"kind": "named", "name": "not_a_type"})
    with pytest.raises(ValueError):
        types_codec.decode({"kind": "mystery"})


scalar_dtypes = st.sampled_from(
    ["int8", "int16", "int32", "int64", "uint8", "uint64", "float32", "float64", "complex64"]
)


@given(
    dtype=scalar_dtypes,
    ndim=st.integers(1, 4),
    layout=st.sampled_from(["C", "F", "A"]),
    readonly=st.booleans(),
)
def test_arrays_round_trip(dtype: str, ndim: int, layout: str, readonly: bool) -> None:
    ty = types.Array(getattr(types, dtype), ndim, layout, readonly=readonly)
    encoded = types_codec.encode(ty)
    assert encoded is not None and types_codec.decode(encoded) == ty
