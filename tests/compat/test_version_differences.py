"""The differences between supported Numba and Python releases, as `check` reports them. Runs on the
main venv and on every compat venv (make test-compat): each combination gets the answer it should, and
no difference ever shows up as a wrong diagnostic code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from pyserver.versions import numba_verdict, version_tuple

ROOT = Path(__file__).resolve().parent.parent.parent
NUMBA = version_tuple(numba.__version__)[:2]
COMPARED = {"kernels.py", "parallel_nothing.py", "typing_errors.py", "unify_return.py", "untyped_list.py"}


@pytest.fixture(scope="module")
def examples() -> dict:
    """`check examples/` once, as JSON."""
    proc = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "examples/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def in_file(payload: dict, name: str) -> list[dict]:
    return [d for d in payload["diagnostics"] if d["path"].endswith(name)]


def test_this_numba_is_supported_by_the_policy() -> None:
    assert numba_verdict(numba.__version__).status == "ok"


def test_object_mode_set_comprehension_gets_the_right_code_on_every_release(examples: dict) -> None:
    found = in_file(examples, "object_mode.py")
    codes = sorted(d["code"] for d in found)
    messages = " ".join(d["message"] for d in found)
    if NUMBA < (0, 63):
        # Numba 0.59 to 0.62 reject SET_ADD in object mode: an unsupported bytecode, never a typing error.
        assert codes == ["unsupported"] and "SET_ADD" in messages
    elif sys.version_info >= (3, 12):
        # Numba's loop lifting fails on Python 3.12+ for this function (Numba's own error, raised by the
        # real call too): reported as Numba's failure, never as the user's typing error.
        assert codes == ["analysis-failed"] and "Numba's compiler failed" in messages
    else:
        assert codes == ["loop-lifted", "object-mode"]


def test_the_other_examples_give_the_same_codes_on_every_release(examples: dict) -> None:
    """0.59 to 0.68 on Python 3.10 to 3.13: the same codes at the same lines (measured: identical)."""
    found = sorted(
        (d["path"].rsplit("/", 1)[-1], d["range"]["start"]["line"] + 1, d["code"])
        for d in examples["diagnostics"]
        if d["path"].rsplit("/", 1)[-1] in COMPARED
    )
    assert found == [
        ("parallel_nothing.py", 6, "performance"),
        ("typing_errors.py", 10, "typing-error"),
        ("typing_errors.py", 16, "unsupported"),
        ("typing_errors.py", 22, "typing-error"),
        ("typing_errors.py", 27, "typing-error"),
        ("unify_return.py", 10, "unify-return"),
        ("untyped_list.py", 9, "untyped-variable"),
    ]
    walk = next(f for f in examples["functions"] if f["name"] == "walk")
    assert [s["return_type"] for s in walk["signatures"]] == ["float64", "float64"]
