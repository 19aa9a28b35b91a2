"""numbagg: moving windows, nan-aggregations and grouped aggregations."""

import numbagg
import numpy as np

rng = np.random.default_rng(3)
values = rng.standard_normal((4, 200))
values[0, 5] = np.nan
numbagg.nanmean(values)
numbagg.nansum(values, axis=1)
numbagg.nanstd(values)
numbagg.move_mean(values, window=10)
numbagg.move_exp_nanmean(values, alpha=0.3)
numbagg.bfill(values)
numbagg.ffill(values)
labels = rng.integers(0, 5, 200)
numbagg.group_nanmean(values, labels, axis=-1)
numbagg.group_nansum(values[0], labels)
print("numbagg ok")
