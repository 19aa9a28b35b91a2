"""sigpy: gridding and interpolation kernels, block reshaping, thresholds and MRI sampling patterns."""

import numpy as np
import sigpy
import sigpy.mri
import sigpy.mri.rf

rng = np.random.default_rng(0)
image = rng.normal(size=(16, 16))
coord = rng.uniform(-7, 7, size=(40, 2))
values = sigpy.interpolate(image, coord, kernel="spline", width=2, param=1)
sigpy.interpolate(image.astype(np.complex64), coord, kernel="kaiser_bessel", width=3, param=2.0)
sigpy.gridding(values, coord, (16, 16), kernel="spline", width=2)
sigpy.gridding(values.astype(np.complex128), coord, (16, 16), kernel="kaiser_bessel", width=4, param=1.5)
signal = rng.normal(size=64)
sigpy.interpolate(signal, rng.uniform(-30, 30, size=(9, 1)))
blocks = sigpy.array_to_blocks(image, [4, 4], [2, 2])
sigpy.blocks_to_array(blocks, (16, 16), [4, 4], [2, 2])
blocks1 = sigpy.array_to_blocks(signal, [8], [4])
sigpy.blocks_to_array(blocks1, (64,), [8], [4])
volume = rng.normal(size=(6, 6, 6))
sigpy.blocks_to_array(sigpy.array_to_blocks(volume, [2, 2, 2], [2, 2, 2]), (6, 6, 6), [2, 2, 2], [2, 2, 2])
sigpy.soft_thresh(0.1, image)
sigpy.hard_thresh(0.1, image + 1j * image)
sigpy.l1_proj(1.0, signal)
sigpy.mri.poisson((32, 32), 2, calib=(8, 8), seed=3)
sigpy.mri.radial((8, 16, 2), (16, 16))
sigpy.mri.rf.min_trap_grad(1e-5, 4.0, 15000.0, 4e-6)
sigpy.mri.rf.trap_grad(1e-5, 4.0, 15000.0, 4e-6)
print("sigpy ok")
