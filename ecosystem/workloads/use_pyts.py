"""pyts: symbolic and image transforms of time series."""

import numpy as np
from pyts.approximation import SymbolicAggregateApproximation
from pyts.image import GramianAngularField, RecurrencePlot
from pyts.metrics import dtw

rng = np.random.default_rng(6)
series = rng.standard_normal((5, 64))
SymbolicAggregateApproximation(n_bins=4).fit_transform(series)
GramianAngularField().fit_transform(series)
RecurrencePlot().fit_transform(series)
dtw(series[0], series[1])
dtw(series[0], series[1], method="sakoechiba")
print("pyts ok")
