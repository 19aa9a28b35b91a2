"""fastdist: vector, matrix and pairwise distances with named metrics, and the scikit-learn-like scores."""

import numpy as np
from fastdist import fastdist

rng = np.random.default_rng(0)
u, v, w = rng.random(8), rng.random(8), rng.random(8)
a, b = rng.random((6, 8)), rng.random((5, 8))
for metric in (
    fastdist.euclidean,
    fastdist.cityblock,
    fastdist.cosine,
    fastdist.braycurtis,
    fastdist.chebyshev,
):
    metric(u, v)
fastdist.euclidean(u, v, w)
fastdist.correlation(u, v)
fastdist.minkowski(u, v, 3)
fastdist.sqeuclidean(u, v)
fastdist.jensenshannon(u / u.sum(), v / v.sum())
fastdist.cosine_vector_to_matrix(u, a)
fastdist.cosine_matrix_to_matrix(a, b)
fastdist.cosine_pairwise_distance(a, return_matrix=True)
fastdist.vector_to_matrix_distance(u, a, fastdist.euclidean, "euclidean")
fastdist.matrix_to_matrix_distance(a, b, fastdist.cityblock, "cityblock")
fastdist.matrix_pairwise_distance(a, fastdist.euclidean, "euclidean", return_matrix=True)
bits_u, bits_v = rng.random(10) > 0.5, rng.random(10) > 0.5
fastdist.hamming(bits_u, bits_v)
fastdist.jaccard(bits_u, bits_v)
fastdist.dice(bits_u, bits_v)
true, pred = rng.random(20), rng.random(20)
fastdist.r2_score(true, pred)
fastdist.mean_squared_error(true, pred)
fastdist.mean_absolute_error(true, pred)
targets, preds = rng.integers(0, 3, 30), rng.integers(0, 3, 30)
fastdist.confusion_matrix(targets, preds)
fastdist.accuracy_score(targets, preds)
fastdist.f1_score(targets, preds, average="macro")
print("fastdist ok")
