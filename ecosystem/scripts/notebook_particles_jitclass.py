#!/usr/bin/env python
# coding: utf-8

# # Particles in a box
#
# A jitclass whose fields are declared with class annotations, stepped by a jitted loop.

# In[1]:


import numpy as np
from numba import float64, njit
from numba.experimental import jitclass


# In[2]:


@jitclass
class Particles:
    pos: float64[:, :]
    vel: float64[:, :]
    box: float64

    def __init__(self, n, box):
        self.pos = np.random.random((n, 2)) * box
        self.vel = np.random.random((n, 2)) - 0.5
        self.box = box

    def kinetic(self):
        return 0.5 * (self.vel**2).sum()

    def step(self, dt):
        for i in range(self.pos.shape[0]):
            for d in range(2):
                x = self.pos[i, d] + dt * self.vel[i, d]
                if x < 0.0 or x > self.box:
                    self.vel[i, d] = -self.vel[i, d]
                    x = min(max(x, 0.0), self.box)
                self.pos[i, d] = x


# In[3]:


@njit
def simulate(particles, dt, steps):
    energies = np.empty(steps)
    for s in range(steps):
        particles.step(dt)
        energies[s] = particles.kinetic()
    return energies


# In[4]:


p = Particles(200, 1.0)
energies = simulate(p, 0.01, 100)
energies[:5]


# In[5]:


# %timeit simulate(p, 0.01, 100)
print("energy drift:", energies[-1] - energies[0])
