"""`np.array([0.1, 10])` in a Python caller: a list of Python scalars of several kinds (bool, int, float,
complex), which NumPy promotes to the same dtype as Numba unifies the items to, is typed as NumPy makes
it. The list itself, passed on as a list, stays unknown: Python keeps each item's type, Numba's typeof
of the list reads its first item. NumPy scalars of narrower types are not Python's, and stay unknown."""

from __future__ import annotations

from analysis_helpers import first_arguments_against_numpy

SETUP = ["lo = 0.1", "n = 10", "mixed = [lo, n]"]

EXPRESSIONS = [
    "np.array([0.1, 10])",
    "np.array([lo, n])",
    "np.asarray([1, 2.5, True])",
    "np.array([True, 2])",
    "np.array([1, 2j])",
    "np.array([[0.5, 1.5], [2.5, 3.5]])",
    "np.array(mixed)",
    # lists of one kind of item, passed on as lists (reflected lists, as numba.typeof makes them)
    "['m', 'M', 'a']",
    "[(1, 2.0), (3, 4.5)]",
    "[1.5, 2.5]",
]

# the list itself (Python keeps 0.1 and 10, Numba's typeof reads the first), a NumPy scalar of a
# narrower type (NumPy's promotion of float32 with a Python float is not Numba's unification)
NOT_DERIVED = ["[0.1, 10]", "mixed", "np.array([np.float32(0.5), 2.5])", "[(1, 2.0), (3, 4)]", "['a', 1]"]


def test_arrays_of_python_scalars_of_several_kinds_get_numpys_dtype(ws) -> None:
    wrong, missing, _found = first_arguments_against_numpy(ws, "pc_scalar_lists.py", EXPRESSIONS, SETUP)
    assert wrong == {} and missing == []


def test_lists_of_several_kinds_passed_on_stay_unknown(ws) -> None:
    _wrong, _missing, found = first_arguments_against_numpy(ws, "pc_scalar_lists_not.py", NOT_DERIVED, SETUP)
    assert found == {}
