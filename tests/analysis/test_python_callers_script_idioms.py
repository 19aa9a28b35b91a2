"""Script idioms typed at first sight (arrays whose dtype= and rank fix the type although Numba cannot
type what is inside, a dtype named once (`dtype = np.int64`), structured dtypes from literal field lists,
NumPy's legacy random functions, Python's `int(...)` and `float(...)` of what Numba cannot type): the type
found statically must be numba.typeof of the value NumPy really makes."""

from __future__ import annotations

from analysis_helpers import first_arguments_against_numpy

SETUP = [
    "n = 5",
    "rt = np.dtype([('x', np.double), ('y', np.double)])",
    "pt = np.dtype([('a', np.int32), ('b', np.float32)], align=True)",
    "kind = np.int64",
]

EXPRESSIONS = [
    "np.array(list(reversed(range(n))), dtype=np.int64)",
    "np.array(sorted([3, 1, 2]), dtype=np.float64)",
    "np.array(list(reversed(range(n))), dtype=kind)",
    "np.zeros(n, dtype=kind)",
    "np.asarray(list(map(float, range(n))), dtype=np.float32)",
    "np.array([[1, 2], [3, 4]], dtype=np.float64)",
    "np.array([(1.0, 2.0)], dtype=rt)",
    "np.array([(1.0, 2.0), (3.0, 4.0)], dtype=rt)",
    "np.zeros(3, dtype=rt)",
    "np.empty((2, 2), dtype=pt)",
    "np.random.ranf((n, 3))",
    "np.random.random_sample((n, 3))",
    "np.random.random_sample(n)",
    "np.random.rand(n, 2)",
    "np.random.randn(n)",
    "np.random.random((n, 2))",
    "np.empty((1, 2), dtype=complex)",
    "np.zeros((2, 3), dtype=float)",
    "np.ones(n, dtype=int)",
    "np.full((2, 2), 3, dtype=np.float32)",
    "np.empty(n, dtype='complex128')",
    # legacy random distributions with keywords: spelled positionally, NumPy's defaults filling in
    "np.random.normal(size=n)",
    "np.random.normal(0.0, 2.0, size=(n, 2))",
    "np.random.uniform(size=n)",
    "np.random.uniform(high=4.0, size=n)",
    "np.random.exponential(size=(2, n))",
    "np.random.poisson(size=n)",
    "np.random.binomial(10, 0.5, size=n)",
    "np.random.randint(0, 5, size=n)",
    # arrays joined from a list display, as from a tuple
    "np.concatenate([np.random.randn(n, 2), np.random.randn(n, 2) + 5])",
    "np.vstack([np.zeros((2, n)), np.ones((1, n))])",
    "np.hstack([np.zeros(n), np.arange(3.0)])",
    "np.stack([np.zeros(n), np.ones(n)])",
    # Python's conversions of what Numba cannot type (`int(sys.argv[1])`): an int or a float whatever
    "int(repr(n))",
    "int(repr(n), 10)",
    "float(repr(n))",
    "np.zeros(int(repr(n)))",
]

# dtypes whose scalar type loses their byte order or length: left to Numba's own typing, never derived
NOT_DERIVED = ["np.zeros(n, dtype='U10')", "np.zeros(n, dtype='S4')", "np.ones(n, dtype='U3')"]
# joined arrays of several dtypes (Numba unifies them, NumPy promotes them), a dtype= keyword
NOT_DERIVED += [
    "np.concatenate([np.zeros(n, dtype=np.float32), np.arange(n)])",
    "np.random.randint(0, 5, size=n, dtype=np.int32)",
]


def test_script_idioms_get_numpys_own_types(ws) -> None:
    wrong, missing, _found = first_arguments_against_numpy(ws, "pc_script_idioms.py", EXPRESSIONS, SETUP)
    assert wrong == {} and missing == []


def test_dtypes_whose_scalar_type_loses_information_are_not_derived(ws) -> None:
    wrong, _missing, _found = first_arguments_against_numpy(ws, "pc_script_idioms_not.py", NOT_DERIVED, SETUP)
    assert wrong == {}
