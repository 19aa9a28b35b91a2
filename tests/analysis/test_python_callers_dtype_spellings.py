"""A NumPy constructor's dtype spelled as NumPy reads it but Numba's typing does not (a string:
`np.arange(5, dtype='int32')`, `np.eye(3, dtype='f4')`; a structured dtype as a list of fields or an
inline `np.dtype([...])`), and the records of a structured array (`arr[0]`): the type found statically
must be numba.typeof of the value NumPy really makes, or nothing."""

from __future__ import annotations

import json

from analysis_helpers import Workspace, first_arguments_against_numpy, run_probe, signatures_of

SETUP = ["n = 5", "a = np.ones(3)", "recs = np.zeros(3, dtype=[('a', 'f8'), ('b', 'i4')])"]

EXPRESSIONS = [
    "np.arange(5, dtype='int32')",
    "np.arange(5, dtype='f8')",
    "np.arange(n, dtype='i8')",
    "np.arange(5.0, dtype='f4')",
    "np.arange(1, n, 2, 'i2')",
    "np.arange(n, dtype=np.dtype('u1'))",
    "np.eye(3, dtype='int32')",
    "np.eye(3, 4, 1, 'f4')",
    "np.identity(n, dtype='f4')",
    "np.zeros_like(a, dtype='i4')",
    "np.full_like(a, 2, 'u1')",
    "np.zeros(n, dtype=np.dtype('f4'))",
    # structured dtypes: a list of fields, an inline np.dtype, and their records
    "np.array([(1, 2)], dtype=[('a1', 'f8'), ('a2', 'f8')])",
    "np.array([(1, 2)], dtype=[('a1', 'f8'), ('a2', 'f8')])[0]",
    "np.zeros(3, dtype=np.dtype([('a', 'f8'), ('b', 'i4')]))",
    "np.zeros(3, dtype=np.dtype([('a', 'f8'), ('b', 'i4')], align=True))[1]",
    "np.zeros(2, dtype=[('x', 'f8', 3), ('y', 'i4')])",
    "np.empty(n, dtype=[('x', np.float32), ('y', 'i8')])[0]",
    "recs",
    "recs[2]",
]

# What Numba's typing refuses even with the dtype it takes (np.linspace's dtype=), a dtype whose scalar
# type loses its length, a view whose layout is decided at run time: never derived wrong
NOT_DERIVED = ["np.linspace(0, 1, n, dtype='f4')", "np.full(n, 'ab', dtype='U3')", "recs[1:]", "recs['a']"]


def test_dtypes_spelled_as_strings_or_field_lists_get_numpys_own_types(ws: Workspace) -> None:
    wrong, missing, _found = first_arguments_against_numpy(ws, "pc_dtype_spellings.py", EXPRESSIONS, SETUP)
    assert wrong == {} and missing == []


def test_what_numba_does_not_type_is_not_derived_wrong(ws: Workspace) -> None:
    wrong, _missing, _found = first_arguments_against_numpy(
        ws, "pc_dtype_spellings_not.py", NOT_DERIVED, SETUP
    )
    assert wrong == {}


RECORDS = """\
import numpy as np
from numba import njit

arr = np.array([(1, 2)], dtype=[('a1', 'f8'), ('a2', 'f8')])
arr2 = np.zeros(3, dtype=np.dtype([('a1', 'f8'), ('a2', 'i4')]))


@njit
def get_field_sum(rec):
    return rec['a1'] + rec['a2']


@njit
def whole(a):
    return a['a1'].sum()


@njit
def count(x):
    return x.sum()


get_field_sum(arr[0])
get_field_sum(arr2[1])
whole(arr)
whole(arr2)
count(np.arange(5, dtype='int32'))
"""

# The signatures each dispatcher compiled when the module really ran
COMPILED = """\
import json, runpy
namespace = runpy.run_path("pc_records_top.py")
print(json.dumps({name: sorted([str(t) for t in s] for s in namespace[name].signatures)
                  for name in ("get_field_sum", "whole", "count")}))
"""


def test_top_level_calls_with_records_and_string_dtypes_get_the_compiled_types(ws: Workspace) -> None:
    ws.write("pc_records_top.py", RECORDS)
    result = ws.analyze("pc_records_top.py", RECORDS)
    compiled = run_probe(ws.root, COMPILED)
    found = {name: sorted(list(args) for _source, args in signatures_of(result, name)) for name in compiled}
    assert found == compiled, json.dumps(found, indent=1)
