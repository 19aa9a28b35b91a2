"""numbakit-ode: fixed-step solvers (Euler, Adams-Moulton) on jitted right-hand sides, with and without
parameters, stepping and running over a time grid. (Its adaptive solvers call a SciPy helper whose
signature changed since this release.)"""

import numba as nb
import numpy as np
import nbkode


@nb.njit
def decay(t, y, k):
    return -k * y


@nb.njit
def oscillator(t, y):
    return np.array([y[1], -y[0]])


y0 = np.array([1.0, 0.5])
for solver_class in (nbkode.ForwardEuler, nbkode.AdamsMoulton2):
    solver = solver_class(oscillator, 0.0, y0)
    solver.step()
    solver.run(np.linspace(0.0, 0.5, 4))
    with_params = solver_class(decay, 0.0, y0, params=(0.3,))
    with_params.run(np.linspace(0.0, 0.5, 4))
nbkode.list_solvers()
print("nbkode ok")
