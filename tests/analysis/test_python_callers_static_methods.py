"""A jitted static method of a plain class (`@staticmethod` over `@njit`, lenstronomy's profiles) is
called on the class (`Profile.deflect(x, 2.0)`, after `from profiles import Profile` too) and on `self`
in the class's own methods: each call is a Python caller of the kernel and gives the types Numba compiles
for it, also where the caller's own parameters have no known types but the call does not read them. A
method of that name on anything else (another class's instance, a static method's parameter that happens
to be named `self`) is not a call of it."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

PROFILES = """\
import numba
import numpy as np


def grid(n):
    return np.ones((n, 3))


class Profile:
    def __init__(self, scale):
        self.scale = scale

    @staticmethod
    @numba.njit
    def deflect(x, k):
        return x * k

    def apply(self, n):
        points = grid(n)  # its types are unknown (nothing calls `apply` with one): not what `deflect` reads
        return self.deflect(np.ones((2, 3)), 0.5), points

    @staticmethod
    def not_a_receiver(self):
        return self.deflect(np.ones(4, dtype=np.int32), 1)


class Other:
    def deflect(self, x, k):
        return x


def summary(n):
    rows = grid(n)
    return Profile.deflect(np.zeros((2, 2)), 3), rows


def use():
    other = Other()
    other.deflect(np.ones(5, dtype=np.float32), 1)
    return Profile.deflect(np.ones(3), 2.0)
"""

USER = """\
import numpy as np

from profiles import Profile


def shifted():
    return Profile.deflect(np.arange(3), 2)
"""

NUMBA_RAN = """\
import json

import profiles
import user

profiles.use()
profiles.Profile(1.0).apply(3)
profiles.summary(2)
user.shifted()
print(json.dumps(sorted([str(a) for a in sig] for sig in profiles.Profile.deflect.signatures)))
"""


def test_a_static_jitted_method_is_typed_by_its_calls_on_the_class_and_on_self(tmp_path: Path) -> None:
    (tmp_path / "profiles.py").write_text(PROFILES)
    (tmp_path / "user.py").write_text(USER)
    report = check_json(tmp_path, "profiles.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    (deflect,) = [f for f in report["functions"] if f["name"] == "Profile.deflect"]
    numba_compiled = run_probe(tmp_path, NUMBA_RAN)
    assert numba_compiled == [
        ["array(float64, 1d, C)", "float64"],
        ["array(float64, 2d, C)", "float64"],
        ["array(float64, 2d, C)", "int64"],
        ["array(int64, 1d, C)", "int64"],
    ]
    assert sorted(s["args"] for s in deflect["signatures"]) == numba_compiled
    assert {s["source"] for s in deflect["signatures"]} == {"python-caller"}
    callers = {(c["path"], c["function"]) for s in deflect["signatures"] for c in s["callers"]}
    assert callers == {
        ("profiles.py", "use"),
        ("profiles.py", "Profile.apply"),
        ("profiles.py", "summary"),
        ("user.py", "shifted"),
    }
