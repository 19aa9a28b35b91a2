import numpy as np
from numba import njit


@njit
def insertion_sort(a):
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


@njit
def is_sorted(a):
    for i in range(len(a) - 1):
        if a[i] > a[i + 1]:
            return False
    return True


def test_sort():
    data = np.random.randint(0, 1000, 200)
    assert is_sorted(insertion_sort(data.copy()))
    floats = np.random.random(50)
    assert is_sorted(insertion_sort(floats))


if __name__ == "__main__":
    test_sort()
    print("sorted")
