"""
1D heat equation with Numba — a short tutorial
===============================================

We solve u_t = alpha * u_xx on [0, 1] with fixed ends, using the explicit
finite-difference scheme. First with NumPy slices, then with explicit loops
under ``@njit``, and we check that both agree.
"""

import time

import numpy as np
from numba import njit

# %%
# Step 1: the NumPy version
# --------------------------
# Vectorised over space, one Python iteration per time step.


def diffuse_numpy(u, alpha, dt, dx, steps):
    u = u.copy()
    coef = alpha * dt / (dx * dx)
    for _ in range(steps):
        u[1:-1] = u[1:-1] + coef * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


# %%
# Step 2: explicit loops, compiled
# --------------------------------
# With Numba, the loop over space can be written out. The first call compiles
# for the argument types it sees; later calls with the same types reuse the
# machine code.


@njit(cache=False)
def diffuse(u, alpha, dt, dx, steps):
    u = u.copy()
    n = u.shape[0]
    coef = alpha * dt / (dx * dx)
    for _ in range(steps):
        new = u.copy()
        for i in range(1, n - 1):
            new[i] = u[i] + coef * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = new
    return u


# %%
# Step 3: a stable time step
# --------------------------
# The explicit scheme is stable when alpha * dt / dx**2 <= 1/2.


@njit
def stable_dt(alpha, dx, safety=0.9):
    return safety * 0.5 * dx * dx / alpha


x = np.linspace(0.0, 1.0, 101)
u0 = np.exp(-100.0 * (x - 0.5) ** 2)
dx = x[1] - x[0]
alpha = 0.01
dt = stable_dt(alpha, dx)

start = time.perf_counter()
slow = diffuse_numpy(u0, alpha, dt, dx, 200)
numpy_s = time.perf_counter() - start

diffuse(u0, alpha, dt, dx, 1)  # compile once before timing
start = time.perf_counter()
fast = diffuse(u0, alpha, dt, dx, 200)
numba_s = time.perf_counter() - start

print("same result:", np.allclose(slow, fast))
print(f"numpy {numpy_s * 1e3:.2f} ms, numba {numba_s * 1e3:.2f} ms")
