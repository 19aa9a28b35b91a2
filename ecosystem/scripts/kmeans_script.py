import numpy as np
import numba


@numba.njit
def assign(points, centers):
    labels = np.empty(points.shape[0], dtype=np.int64)
    for i in range(points.shape[0]):
        best = 0
        best_d = np.inf
        for k in range(centers.shape[0]):
            d = 0.0
            for j in range(points.shape[1]):
                diff = points[i, j] - centers[k, j]
                d += diff * diff
            if d < best_d:
                best_d = d
                best = k
        labels[i] = best
    return labels


@numba.njit
def update(points, labels, k):
    centers = np.zeros((k, points.shape[1]))
    counts = np.zeros(k)
    for i in range(points.shape[0]):
        centers[labels[i]] += points[i]
        counts[labels[i]] += 1
    for c in range(k):
        if counts[c] > 0:
            centers[c] /= counts[c]
    return centers


def kmeans(points, k, iterations=10):
    centers = points[:k].copy()
    for _ in range(iterations):
        labels = assign(points, centers)
        centers = update(points, labels, k)
    return centers, labels


if __name__ == "__main__":
    pts = np.concatenate([np.random.randn(100, 2), np.random.randn(100, 2) + 5])
    c, l = kmeans(pts, 2)
    print(c)
