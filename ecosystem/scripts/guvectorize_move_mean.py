import numpy as np
from numba import guvectorize, int64


@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->(n)")
def move_mean(a, window_arr, out):
    window_width = window_arr
    asum = 0.0
    count = 0
    for i in range(window_width):
        asum += a[i]
        count += 1
        out[i] = asum / count
    for i in range(window_width, len(a)):
        asum += a[i] - a[i - window_width]
        out[i] = asum / count


arr = np.arange(20, dtype=np.float64).reshape(2, 10)
print(arr)
print(move_mean(arr, 3))
