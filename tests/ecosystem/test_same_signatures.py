"""The ecosystem check's speed reference compiles the signatures `check` typed: each signature of
check's JSON carries its argument types (`arg_types`, types_codec's encoding), which decode back to the
types shown and which Numba compiles to the very signature shown (ecosystem/truth.py with ECO_SIGNATURES)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from pyserver.record import types_codec

ROOT = Path(__file__).resolve().parents[2]

KERNELS = """\
import numba
import numba.extending
import numpy as np


@numba.njit
def add(a, b):
    return a + b


@numba.njit
def total(*values):
    return values[0] + values[1]


@numba.njit
def scaled(a, factor=2.0):
    return a * factor


@numba.njit
def apply(f, x):
    return f(x)


@numba.njit
def one_more(x):
    return x + 1.0


@numba.njit
def caller(x):
    return add(x, 1.5).sum() + total(x[0], 2) + scaled(x).sum() + apply(one_more, x[0])


def halve(x):
    return x / 2


@numba.extending.overload(halve)
def ol_halve(x):
    def impl(x):
        return x * 0.5

    return impl


@numba.njit
def uses_halve(x):
    return halve(x) + 1.0


def main():
    caller(np.ones(3))
    add(1, 2)
    uses_halve(2.0)
"""

# Numba's str() of a jitted function's type names its heap address; check shows `dispatcher(name)`
_DISPATCHER = re.compile(r"type\(CPUDispatcher\(<function (\w+) at 0x[0-9a-fA-F]+>\)\)")


def _check(folder: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "--root", str(folder), "kernels.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _run_module() -> Any:
    spec = importlib.util.spec_from_file_location("ecosystem_run", ROOT / "ecosystem" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _shown(result: dict[str, Any]) -> dict[str, set[str]]:
    return {
        f["name"]: {"(" + ", ".join(s["args"]) + ")" for s in f["signatures"]} for f in result["functions"]
    }


def test_arg_types_decode_to_the_types_shown(tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text(KERNELS)
    result = _check(tmp_path)
    signatures = [s for f in result["functions"] for s in f["signatures"]]
    # nine of the jitted functions, and the implementation `ol_halve` returns for `uses_halve`'s call
    assert len(signatures) == 10, json.dumps(result["functions"], indent=1)
    sys.path.insert(0, str(tmp_path))  # a jitted function's type names it by its module: import it
    try:
        importlib.import_module("kernels")
        for signature in signatures:
            assert "arg_types" in signature, signature
            decoded = [types_codec.decode(t) for t in signature["arg_types"]]
            assert [types_codec.readable(t) for t in decoded] == signature["args"]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kernels", None)


def test_truth_compiles_exactly_the_signatures_check_typed(tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text(KERNELS)
    result = _check(tmp_path)
    wanted = _run_module().wanted_signatures(result)
    (tmp_path / "wanted.json").write_text(json.dumps(wanted))
    out = tmp_path / "same.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]),
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        ECO_IMPORT_FIRST=json.dumps(["kernels"]),
        ECO_SIGNATURES=str(tmp_path / "wanted.json"),
    )
    program = tmp_path / "kernels.py"  # imported, never run: the signatures come from check
    # BASE ROOT OUT PROGRAM: the functions under ROOT (the module), paths relative to BASE
    command = [sys.executable, str(ROOT / "ecosystem" / "truth.py"), str(tmp_path), str(program), str(out)]
    proc = subprocess.run(
        [*command, str(program)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.is_file(), proc.stderr
    same = json.loads(out.read_text())
    coverage = same["same_signatures"]
    assert coverage["not_compiled"] == []
    assert coverage["compiled"] == coverage["wanted"] == len(wanted) == 10
    compiled = {
        f["qualname"]: {
            "(" + ", ".join(_DISPATCHER.sub(r"dispatcher(\1)", a) for a in s["args"]) + ")"
            for s in f["signatures"]
        }
        for f in same["functions"]
    }
    shown = _shown(result)
    # an @overload's typing function has no dispatcher: its implementation compiled for its signatures
    shown["ol_halve.<locals>.impl"] = shown.pop("ol_halve")
    assert compiled == shown
    assert same["numba_compile_cpu_s"] > 0  # the compiles were timed
    # by pass, each exclusive of the passes inside it: they add up to no more than the compiles' CPU
    passes = same["numba_pass_cpu_s"]
    by_name = {name.split(" [")[0] for name in passes}
    assert {"translate_bytecode", "nopython_type_inference", "native_lowering"} <= by_name
    assert sum(passes.values()) <= same["numba_compile_cpu_s"] * 1.01
    front = same["numba_front_end_cpu_s"]
    lowering = sum(s for name, s in passes.items() if name.startswith("native_lowering"))
    assert 0 < front < same["numba_compile_cpu_s"] - lowering
