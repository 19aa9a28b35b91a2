import numpy as np
from numba import njit


@njit
def inside_unit_ball(points):
    count = 0
    for i in range(points.shape[0]):
        if points[i, 0] ** 2 + points[i, 1] ** 2 + points[i, 2] ** 2 <= 1.0:
            count += 1
    return count


n = 2000
pts = np.random.ranf((n, 3))
print(6.0 * inside_unit_ball(pts) / n)
