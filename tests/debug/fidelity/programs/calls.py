"""Jitted to jitted calls with arguments and a default, early returns, called in a loop."""

from numba import njit


@njit(debug=True)
def classify(x, low, high=10.0):
    if x < low:
        return -1  # fid: break
    scaled = x * 2.0  # fid: out 2
    if scaled > high:
        return 1  # fid: break
    return 0


@njit(debug=True)
def count(n, low):
    below = 0
    above = 0
    for k in range(n):
        kind = classify(k * 1.5, low)  # fid: next 5, in 4
        if kind < 0:
            below += 1
        elif kind > 0:
            above += 1  # fid: break
    return below, above


def main():
    print(count(6, 2.0))


if __name__ == "__main__":
    main()
