"""Types that refer to objects of the program (a jitted function, a namedtuple class, a jitclass, an enum)
are stored by where those are defined, and found again there; a function defined inside another is refused."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import typeof, types

from pyserver.record import types_codec

MODULE = """
import enum
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.experimental import jitclass

Options = namedtuple("Options", ["tol", "max_iter"])
Mixed = namedtuple("Mixed", ["tol", "name"])


class Colour(enum.IntEnum):
    RED = 1


@jitclass([("x", types.float64)])
class Point:
    def __init__(self, x):
        self.x = x


@njit
def f(x):
    return x * 2.0


@njit
def bounded(x, bounds=np.array([0.0, 1.0])):
    return x


@njit
def shift(a, n, fill_value=np.nan):
    return a


def make():
    @njit
    def inner(x):
        return x

    return inner


def solve(g, a, options=Options(1e-8, 100)):
    return g(a)
"""


@pytest.fixture
def program(tmp_path: Path) -> Iterator[Any]:
    (tmp_path / "objects_program.py").write_text(textwrap.dedent(MODULE))
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("objects_program")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("objects_program", None)


def round_trip(ty: Any, root: Path) -> Any:
    encoded = types_codec.encode(ty, root=str(root))
    assert encoded is not None, ty
    return types_codec.decode(json.loads(json.dumps(encoded)))


def test_objects_are_stored_by_where_they_are_defined(program: Any, tmp_path: Path) -> None:
    dispatcher_type = typeof(program.f)
    encoded = types_codec.encode(dispatcher_type, root=str(tmp_path))
    assert encoded == {
        "kind": "dispatcher",
        "module": "objects_program",
        "qualname": "f",
        "path": "objects_program.py",
    }
    assert round_trip(dispatcher_type, tmp_path) == dispatcher_type
    assert types_codec.readable(dispatcher_type) == "dispatcher(f)"  # no heap address
    for ty in (
        typeof(program.Options(1e-8, 100)),
        typeof(program.Options(1e-8, 2.0)),  # NamedUniTuple: kept apart from NamedTuple
        typeof(program.Mixed(1.0, "x")),
        types.Omitted(program.Options(1e-8, 100)),  # an omitted namedtuple default
        types.Omitted((1, 2.5)),
        types.Tuple((dispatcher_type, types.int64)),
        typeof(program.Colour.RED),
        typeof(program.Point(1.0)),
        types.FunctionType(types.float64(types.float64)),
    ):
        again = round_trip(ty, tmp_path)
        assert again == ty and str(again) == str(ty)
    assert type(round_trip(typeof(program.Options(1.0, 2.0)), tmp_path)) is types.NamedUniTuple
    assert "#" not in types_codec.readable(typeof(program.Point(1.0)))


def test_another_process_finds_them_through_its_resolver(program: Any, tmp_path: Path) -> None:
    encoded = types_codec.encode(typeof(program.f), root=str(tmp_path))
    assert encoded is not None
    seen: list[tuple[str, str, str | None]] = []

    def resolve(module: str, qualname: str, path: str | None) -> Any:
        seen.append((module, qualname, path))
        return program.f  # as the analysis finds it in its own copy of the module

    assert types_codec.decode(encoded, resolve) == typeof(program.f)
    assert seen == [("objects_program", "f", "objects_program.py")]
    with pytest.raises(ValueError, match="cannot be found"):
        types_codec.decode(encoded, lambda module, qualname, path: None)


def test_functions_defined_inside_functions_are_refused(program: Any, tmp_path: Path) -> None:
    inner = program.make()
    assert types_codec.encode(typeof(inner), root=str(tmp_path)) is None
    assert types_codec.encode_all((types.int64, typeof(inner))) is None


def test_an_array_default_is_stored_as_the_functions_default(program: Any, tmp_path: Path) -> None:
    default = program.bounded.py_func.__defaults__[0]
    omitted = types.Omitted(default)  # Numba tells array defaults apart by identity
    assert types_codec.encode(omitted, root=str(tmp_path)) is None  # no value encoding for an array
    encoded = types_codec.encode_all(
        (types.float64, omitted), root=str(tmp_path), py_func=program.bounded.py_func
    )
    assert encoded is not None and encoded[1] == {
        "kind": "omitted_default",
        "function": {"module": "objects_program", "qualname": "bounded", "path": "objects_program.py"},
        "parameter": "bounds",
    }
    assert types_codec.decode(json.loads(json.dumps(encoded[1]))) == omitted
    other = types.Omitted(np.array([0.0, 1.0]))  # an equal array that is not the default: refused
    assert (
        types_codec.encode_all((types.float64, other), root=str(tmp_path), py_func=program.bounded.py_func)
        is None
    )


def test_a_nan_default_is_stored_as_the_functions_default(program: Any, tmp_path: Path) -> None:
    """No NaN equals another, so `omitted(default=nan)` read back from its value is another type than the
    one Numba compiled: it is stored as the function's default, the very object, as an array is."""
    omitted = types.Omitted(program.shift.py_func.__defaults__[0])
    assert types_codec.encode(omitted, root=str(tmp_path)) is None
    encoded = types_codec.encode_all(
        (types.float64[::1], types.int64, omitted), root=str(tmp_path), py_func=program.shift.py_func
    )
    assert encoded is not None and encoded[2] == {
        "kind": "omitted_default",
        "function": {"module": "objects_program", "qualname": "shift", "path": "objects_program.py"},
        "parameter": "fill_value",
    }
    assert types_codec.decode(json.loads(json.dumps(encoded[2]))) == omitted
    # a plain default keeps its value encoding
    plain = types_codec.encode_all((types.Omitted(0.0),), root=str(tmp_path), py_func=program.shift.py_func)
    assert plain == [{"kind": "omitted", "value": 0.0}]
