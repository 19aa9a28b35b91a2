from numba import njit


@njit
def table(n: int):
    d = {"a": 1}
    d["b"] = "two"
    return d
