"""py-pde: fields on Cartesian, polar, spherical and cylindrical grids, differential operators and
small PDE runs with the numba backend."""

import numpy as np
import pde

grid = pde.CartesianGrid([[0, 1], [0, 1]], [16, 16], periodic=[True, False])
field = pde.ScalarField.random_uniform(grid, rng=np.random.default_rng(0))
field.laplace("auto_periodic_neumann")
field.gradient("auto_periodic_neumann")
field.integral
field.average
field.interpolate([0.5, 0.5])
vector = pde.VectorField.random_normal(grid, rng=np.random.default_rng(1))
vector.divergence("auto_periodic_neumann")
vector.dot(vector)
polar = pde.PolarSymGrid(2.0, 12)
pde.ScalarField.from_expression(polar, "r**2").laplace({"value": 0})
sphere = pde.SphericalSymGrid(2.0, 12)
pde.ScalarField.from_expression(sphere, "r").gradient({"derivative": 0})
cylinder = pde.CylindricalSymGrid(2.0, [0, 2], [8, 8])
pde.ScalarField(cylinder, 1.0).laplace({"value": 0})
line = pde.CartesianGrid([[0, 1]], 32)
state = pde.ScalarField.from_expression(line, "sin(2 * pi * x)")
pde.DiffusionPDE(diffusivity=0.1, bc={"value": 0}).solve(
    state, t_range=0.01, dt=1e-4, backend="numba", tracker=None
)
pde.KPZInterfacePDE(bc="auto_periodic_neumann").solve(
    pde.ScalarField.random_uniform(pde.UnitGrid([16], periodic=True), rng=np.random.default_rng(2)),
    t_range=0.01,
    dt=1e-3,
    backend="numba",
    tracker=None,
)
pde.CahnHilliardPDE().solve(
    pde.ScalarField.random_uniform(pde.UnitGrid([8, 8], periodic=True), -1, 1, rng=np.random.default_rng(3)),
    t_range=0.01,
    dt=1e-3,
    backend="numba",
    tracker=None,
)
print("py-pde ok")
