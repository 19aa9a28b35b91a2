import numpy as np
from heat_equation import energy, step


def test_step_conserves_shape():
    u = np.zeros(16)
    u[8] = 1.0
    assert step(u, 0.1).shape == (16,)


def test_energy_positive():
    assert energy(np.linspace(0.0, 1.0, 11)) > 0
