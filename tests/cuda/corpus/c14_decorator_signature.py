"""Kernels with signatures in the decorator (compiled for those types only)."""

from numba import cuda


@cuda.jit("void(float32[:], float32[:])")
def copy32(src, dst):
    i = cuda.grid(1)
    if i < src.size:
        dst[i] = src[i]


@cuda.jit("void(int32[:, :], int32)")
def offset(matrix, by):
    x, y = cuda.grid(2)
    if x < matrix.shape[0] and y < matrix.shape[1]:
        matrix[x, y] += by
