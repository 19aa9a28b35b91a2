import numpy as np
from numba import njit

rt = np.dtype([('x', np.double), ('y', np.double)])


@njit
def centroid(points):
    sx = 0.0
    sy = 0.0
    for p in points:
        sx += p.x
        sy += p.y
    return sx / len(points), sy / len(points)


@njit
def shift(points, dx):
    for i in range(points.shape[0]):
        points[i].x += dx


pts = np.array([(1.0, 2.0), (3.0, 4.0), (5.0, 0.5)], dtype=rt)
shift(pts, 1.5)
print(centroid(pts))
