"""interpolation: multilinear and spline interpolation on regular grids (the interpolation.py package)."""

import numpy as np
from interpolation import interp, mlinterp
from interpolation.splines import CGrid, eval_linear

x = np.linspace(0.0, 1.0, 20)
y = np.sin(x)
interp(x, y, 0.5)
interp(x, y, np.linspace(0.0, 1.0, 7))
grid = CGrid((0.0, 1.0, 20), (0.0, 1.0, 20))
values = np.random.default_rng(9).random((20, 20))
eval_linear(grid, values, np.array([0.3, 0.4]))
eval_linear(grid, values, np.random.default_rng(10).random((5, 2)))
mlinterp((x, x), values, np.random.default_rng(11).random((5, 2)))
print("interpolation ok")
