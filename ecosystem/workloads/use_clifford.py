"""clifford: geometric algebra products, jitted multivector code and taylor expansions."""

import numba
import numpy as np
import clifford
from clifford import g3, taylor_expansions

layout, blades = clifford.Cl(3)
e1, e2, e3 = blades["e1"], blades["e2"], blades["e3"]
a = 1.0 + 2.0 * e1 + 3.0 * e2 * e3
b = 0.5 * e1 + e2
(a * b, a ^ b, a | b, ~a, a.inv(), a.dual(), a(1))


@numba.njit
def wedge_sum(x, y):
    return (x ^ y) + x * y


wedge_sum(a, b)
taylor_expansions.exp(e1 * e2 * 0.3)
print("clifford ok")
