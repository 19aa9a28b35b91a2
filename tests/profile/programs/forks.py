"""Forks a child that runs a jitted loop while the parent runs another; both must be profiled."""

import math
import os
import sys

from numba import njit

print(os.getpid(), flush=True)


@njit
def parent_loop(n):
    s = 0.0
    for i in range(n):
        s += math.sin(i * 0.001)  # PARENT
    return s


@njit
def child_loop(n):
    s = 0.0
    for i in range(n):
        s += math.cos(i * 0.001)  # CHILD
    return s


parent_loop(10)
child_loop(10)
pid = os.fork()
if pid == 0:
    for _ in range(int(sys.argv[1])):
        child_loop(2_000_000)
    os._exit(0)
for _ in range(int(sys.argv[1])):
    parent_loop(2_000_000)
os.waitpid(pid, 0)
