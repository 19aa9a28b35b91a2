"""A benchmark script in the argparse style: sizes from the command line, a reversed index array,
structured records and a complex work array."""

import argparse

import numpy as np
from numba import njit

rt = np.dtype([("x", np.double), ("y", np.double)])


@njit
def scaled_sum(values, factor):
    total = 0.0
    for v in values:
        total += v * factor
    return total


@njit
def record_norms(points):
    out = np.empty(points.shape[0])
    for i in range(points.shape[0]):
        out[i] = np.sqrt(points[i].x ** 2 + points[i].y ** 2)
    return out


@njit
def rotate(work, angle):
    work[0, 0] = work[0, 1] * np.exp(1j * angle)
    return work


def main():
    parser = argparse.ArgumentParser(description="toy benchmark")
    parser.add_argument("--n", type=int, default=50, help="problem size")
    parser.add_argument("--factor", type=float, default=1.5)
    args = parser.parse_args()
    order = np.array(list(reversed(range(args.n))), dtype=np.int64)
    print(scaled_sum(order, args.factor))
    points = np.array([(1.0, 2.0), (3.0, 4.0)], dtype=rt)
    print(record_norms(points))
    work = np.empty((1, 2), dtype=complex)
    work[:] = 1.0
    print(rotate(work, 0.25))
    samples = np.random.ranf((args.n, 3))
    print(scaled_sum(samples[:, 0].copy(), 2.0))


if __name__ == "__main__":
    main()
