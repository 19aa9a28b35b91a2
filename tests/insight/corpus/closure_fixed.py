from numba import njit


@njit
def add(acc: list[int], v: int):
    acc.append(v)
    return acc


@njit
def make_list(n: int):
    acc = [0]
    return add(acc, n)
