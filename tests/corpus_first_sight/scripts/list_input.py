import warnings

from numba import njit
from numba.core.errors import NumbaPendingDeprecationWarning

warnings.simplefilter("ignore", category=NumbaPendingDeprecationWarning)


@njit
def mean_of(values):
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


weights = [0.5, 1.5, 2.5]
weights.append(3.5)
print(mean_of(weights))
print(mean_of([1, 2, 3]))
