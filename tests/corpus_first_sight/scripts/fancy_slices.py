import numpy as np
from numba import njit


@njit
def col_total(v):
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i]
    return s


@njit
def trace_of(m):
    return np.trace(m)


def main():
    a = np.arange(20.0).reshape(5, 4)
    print(col_total(a[:, 0]))
    print(col_total(a[1]))
    print(col_total(a.ravel()[::3]))
    print(trace_of(a.T[:4]))
    print(trace_of(np.ascontiguousarray(a.T)))


main()
