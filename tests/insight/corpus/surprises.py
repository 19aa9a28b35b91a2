from numba import njit

SCALE = 2.0


@njit
def describe(x: float, n: int):
    text = f"value {x}"  # float-format
    count = f"count {n}"  # an integer formats fine: no warning
    return text + count


@njit
def negate(flag: bool):
    return ~flag  # bool-invert


@njit
def scaled(x: float):
    return x * SCALE  # frozen-global


SCALE = 3.0
