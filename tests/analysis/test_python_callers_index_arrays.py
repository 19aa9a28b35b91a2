"""Index arrays in a Python caller: `np.nonzero`/`np.where(mask)` of a 1-d array are contiguous int64
arrays in NumPy as in Numba, and a boolean mask does not make them uncertain; of an N-d array they are
views into one (N, k) array (any layout in NumPy, C in Numba's typing), and `np.argwhere` is C or F in
NumPy by the input's rank and any layout in Numba: those stay unknown rather than typed C. Joining index
arrays of one dtype keeps it (`np.vstack(np.where(mask))` of a 1-d mask)."""

from __future__ import annotations

from analysis_helpers import first_arguments_against_numpy

SETUP = [
    "n = 6",
    "line = np.arange(6.0)",
    "grid = np.ones((3, 4))",
    "mask = line > 2.5",
    "flags = grid > 0.5",
]

EXPRESSIONS = [
    "np.nonzero(line)[0]",
    "np.where(mask)[0]",
    "np.where(mask)",
    "np.vstack(np.where(mask))",
    "np.hstack([np.where(mask)[0], np.nonzero(line)[0]])",
    "np.flatnonzero(flags)",
    "np.zeros_like(flags)",
    "np.unique(np.zeros(n, dtype=np.int8))",
]

NOT_DERIVED = [
    "np.nonzero(grid)[0]",
    "grid.nonzero()[1]",
    "np.where(flags)[0]",
    "np.where(flags)",
    "np.argwhere(line)",
    "np.argwhere(flags)",
]


def test_index_arrays_of_one_dimension_are_typed_as_numpy_makes_them(ws) -> None:
    wrong, missing, _found = first_arguments_against_numpy(ws, "pc_index_arrays.py", EXPRESSIONS, SETUP)
    assert wrong == {} and missing == []


def test_index_arrays_whose_layout_numpy_decides_otherwise_stay_unknown(ws) -> None:
    _wrong, _missing, found = first_arguments_against_numpy(ws, "pc_index_arrays_not.py", NOT_DERIVED, SETUP)
    assert found == {}
