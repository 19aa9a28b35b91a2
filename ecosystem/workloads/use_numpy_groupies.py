"""numpy_groupies: the numba aggregate for many functions, dtypes, fill values and sizes."""

import numpy as np
import numpy_groupies as npg
import numpy_groupies.aggregate_numba as npg_nb

rng = np.random.default_rng(0)
group_idx = rng.integers(0, 7, size=200)
values = rng.normal(size=200)
ints = rng.integers(0, 100, size=200)
for func in ("sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "first", "last", "len", "all", "any", "nansum", "nanmean", "nanmax", "cumsum", "sort", "array"):
    try:
        npg_nb.aggregate(group_idx, values, func=func)
    except Exception as exc:  # a function the numba aggregate does not have
        print(func, type(exc).__name__)
npg_nb.aggregate(group_idx, ints, func="sum", fill_value=-1)
npg_nb.aggregate(group_idx, ints, func="max", size=9)
npg_nb.aggregate(group_idx, values.astype(np.float32), func="mean")
npg_nb.aggregate(np.vstack([group_idx % 3, group_idx % 2]), values, func="sum")
npg.sum(group_idx, values)
print("numpy_groupies ok")
