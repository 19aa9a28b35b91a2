"""quaternionic: quaternion arrays, products, exponentials, rotations."""

import numpy as np
import quaternionic

rng = np.random.default_rng(8)
q = quaternionic.array(rng.standard_normal((50, 4))).normalized
p = q * q.conjugate()
np.exp(q)
np.log(q)
rotations = q.to_rotation_matrix
quaternionic.array.from_rotation_vector(rng.standard_normal((10, 3)))
q.rotate(rng.standard_normal((3,)))
print("quaternionic", p.shape)
