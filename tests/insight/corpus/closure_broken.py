from numba import njit


@njit
def make_adder(n: int):
    acc = [0]

    def add(v):
        acc.append(v)
        return acc

    return add
