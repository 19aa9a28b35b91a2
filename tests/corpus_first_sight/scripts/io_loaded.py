"""Data read at run time: its types are never guessed."""

import io

import numpy as np
from numba import njit


@njit
def column_means(table):
    return np.array([table[:, j].mean() for j in range(table.shape[1])])


text = io.StringIO("1 2 3\n4 5 6\n")
table = np.loadtxt(text)
print(column_means(table))
