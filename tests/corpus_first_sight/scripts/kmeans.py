import numpy as np
from numba import njit


@njit
def assign(points, centers):
    labels = np.empty(points.shape[0], dtype=np.int64)
    for i in range(points.shape[0]):
        best = 0
        best_d = np.inf
        for k in range(centers.shape[0]):
            d = ((points[i] - centers[k]) ** 2).sum()
            if d < best_d:
                best_d = d
                best = k
        labels[i] = best
    return labels


@njit
def update(points, labels, k):
    centers = np.zeros((k, points.shape[1]))
    counts = np.zeros(k)
    for i in range(points.shape[0]):
        centers[labels[i]] += points[i]
        counts[labels[i]] += 1
    for j in range(k):
        if counts[j] > 0:
            centers[j] /= counts[j]
    return centers


def kmeans(points, k, iterations=5):
    centers = points[:k].copy()
    for _ in range(iterations):
        labels = assign(points, centers)
        centers = update(points, labels, k)
    return centers


if __name__ == "__main__":
    pts = np.random.rand(200, 2)
    print(kmeans(pts, 3))
