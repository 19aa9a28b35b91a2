from numba import njit

SCALE = 2.0


@njit
def describe(x: float, n: int):
    count = f"count {n}"
    return x, count


@njit
def negate(flag: bool):
    return not flag


@njit
def scaled(x: float, scale: float):
    return x * scale
