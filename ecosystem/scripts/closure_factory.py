import numpy as np
from numba import njit


def make_polynomial(coefficients):
    coeffs = np.asarray(coefficients, dtype=np.float64)

    @njit
    def evaluate(x):
        acc = 0.0
        for c in coeffs[::-1]:
            acc = acc * x + c
        return acc

    return evaluate


square_plus_one = make_polynomial([1.0, 0.0, 1.0])
print(square_plus_one(3.0))
