import ctypes

from numba import cfunc, njit, types

sig = types.double(types.double)


@cfunc(sig)
def square(x):
    return x * x


@njit
def integrate_square(a, b, n):
    h = (b - a) / n
    s = 0.0
    for i in range(n):
        x = a + (i + 0.5) * h
        s += x * x
    return s * h


proto = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)
f = proto(square.address)
print(f(3.0), integrate_square(0.0, 1.0, 1000))
