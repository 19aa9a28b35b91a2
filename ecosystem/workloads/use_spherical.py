"""spherical: Wigner d/D matrices, spin-weighted harmonics, rotations and 3j symbols."""

import numpy as np
import quaternionic
import spherical

ell_max = 6
wigner = spherical.Wigner(ell_max)
R = quaternionic.array.from_spherical_coordinates(0.3, 0.4)
Rs = quaternionic.array.from_spherical_coordinates(np.array([[0.1, 0.2], [0.5, 0.9]]))
wigner.d(np.exp(1j * 0.3))
wigner.D(R)
wigner.D(Rs)
wigner.sYlm(-2, R)
wigner.sYlm(0, Rs)
modes = spherical.Modes(
    np.random.default_rng(1).normal(size=spherical.Ysize(0, ell_max) * 2).view(complex),
    spin_weight=0,
)
wigner.rotate(modes, R)
wigner.evaluate(modes, Rs)
wigner.evaluate(modes, Rs, horner=True)
spherical.wigner_D(R, 0, 4)
spherical.clebsch_gordan(1, 0, 1, 0, 2, 0)
calc = spherical.Wigner3jCalculator(4, 4)
calc.calculate(2, 2, 1, -1)
spherical.Wigner3j(2, 2, 2, 0, 0, 0)
spherical.LM_index(3, 1, 0)
spherical.LM_range(0, 4)
spherical.modes.LM_deduce_ell_max(25)
spherical.Yrange(0, 4)
spherical.theta_phi(4, 5)
spherical.complex_powers(np.exp(1j * np.linspace(0, 1, 5)), 4)
modes.norm()
modes.bar
modes + modes
modes.multiply(modes)
modes.grid()
spherical.Grid(np.zeros((9, 17)), spin_weight=0).modes
print("spherical ok")
