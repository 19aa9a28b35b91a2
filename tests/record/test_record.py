"""`python -m pyserver record`: a real program, child processes, failed compiles, chained sitecustomize."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from pyserver.record import store, types_codec

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """
import multiprocessing as mp
import sys

import numpy as np
from numba import njit
from numba.typed import List


@njit
def walk(a, n):
    total = 0.0
    for i in range(n):
        total += a[i]
    return total


@njit
def broken(x):
    return x + (1, 2)


@njit
def containers(values, typed):
    return len(values) + len(typed)


def child():
    walk(np.ones(4, dtype=np.float32), 2)


if __name__ == "__main__":
    walk(np.ones(3), 2)
    walk(np.ones((3, 3))[:, 0], 2)
    frozen = np.ones(3)
    frozen.flags.writeable = False
    walk(frozen, 1)
    containers([1, 2], List([1.0]))
    try:
        broken(1)
    except Exception:
        print("broken failed as expected")
    process = mp.get_context("spawn").Process(target=child)
    process.start()
    process.join()
    sys.exit(3)
"""


def record(
    cwd: Path, *args: str, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "pyserver", "record", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_record_a_program_with_a_child_process(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    user_site = tmp_path / "usersite"
    user_site.mkdir()
    (user_site / "sitecustomize.py").write_text(
        "import os\nos.environ['USER_SITE_RAN'] = '1'\nprint('user sitecustomize ran')\n"
    )
    proc = record(
        tmp_path,
        "--",
        sys.executable,
        "prog.py",
        env_extra={"PYTHONPATH": f"{ROOT}:{user_site}"},
    )
    assert proc.returncode == 3, proc.stderr  # the command's own exit code
    assert "broken failed as expected" in proc.stdout
    assert proc.stdout.count("user sitecustomize ran") >= 2  # chained, in the child process too
    path = tmp_path / ".numba-lens" / "signatures.json"
    data = json.loads(path.read_text())
    recorded = {
        key: sorted((tuple(entry["args"]), entry["ok"]) for entry in entries)
        for key, entries in data["functions"].items()
    }
    assert recorded["prog.py::walk"] == sorted(
        [
            (("array(float32, 1d, C)", "int64"), True),  # from the spawned child
            (("array(float64, 1d, A)", "int64"), True),
            (("array(float64, 1d, C)", "int64"), True),
            (("readonly array(float64, 1d, C)", "int64"), True),
        ]
    )
    assert recorded["prog.py::broken"] == [(("int64",), False)]  # failed compiles are recorded
    assert recorded["prog.py::containers"] == [
        (("reflected list(int64)<iv=None>", "ListType[float64]"), True)
    ]
    for entries in data["functions"].values():
        for entry in entries:
            decoded = [types_codec.decode(e) for e in entry["types"]]
            assert [str(t) for t in decoded] == entry["args"]
    assert "new signature(s) recorded" in proc.stderr

    # Re-recording the same runs changes nothing (stable, safe to commit).
    before = path.read_text()
    again = record(tmp_path, "--", sys.executable, "prog.py")
    assert again.returncode == 3
    assert path.read_text() == before

    # check reads the same file by default and finds the failing signature.
    checked = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "prog.py", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert checked.returncode == 1, checked.stderr
    payload = json.loads(checked.stdout)
    assert [(d["function"], d["code"]) for d in payload["diagnostics"] if d["severity"] == "error"] == [
        ("broken", "typing-error")
    ]
    walk = next(f for f in payload["functions"] if f["name"] == "walk")
    assert {s["source"] for s in walk["signatures"]} == {"recorded"} and len(walk["signatures"]) == 4


def test_custom_file_and_merge_across_runs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from numba import njit\n\n@njit\ndef f(x):\n    return x\n\nf(1)\n")
    (tmp_path / "b.py").write_text("from a import f\nf(1.5)\n")
    target = tmp_path / "out" / "sigs.json"
    assert record(tmp_path, "--signatures", str(target), "--", sys.executable, "a.py").returncode == 0
    assert record(tmp_path, "--signatures", str(target), "--", sys.executable, "b.py").returncode == 0
    entries = store.entries(store.load(target), "a.py::f")
    assert sorted(e.args[0] for e in entries) == ["float64", "int64"]


def test_library_functions_are_not_recorded(tmp_path: Path) -> None:
    (tmp_path / "uses_numpy.py").write_text(
        "import numpy as np\nfrom numba import njit\n\n@njit\ndef s(a):\n    return np.sum(a)\n\ns(np.ones(2))\n"
    )
    assert record(tmp_path, "--", sys.executable, "uses_numpy.py").returncode == 0
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    assert list(data["functions"]) == ["uses_numpy.py::s"]


def test_functions_compiled_from_strings_are_not_recorded(tmp_path: Path) -> None:
    # co_filename "<string>": realpath() would put it under the current directory, but it is no file.
    (tmp_path / "builds.py").write_text(
        "from numba import njit\n\n"
        "namespace = {'njit': njit}\n"
        "exec('@njit\\ndef made_at_run_time(x):\\n    return x + 1\\n', namespace)\n"
        "print(namespace['made_at_run_time'](1))\n\n"
        "@njit\ndef written(x):\n    return x\n\nwritten(1)\n"
    )
    proc = record(tmp_path, "--", sys.executable, "builds.py")
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    assert list(data["functions"]) == ["builds.py::written"]


def test_usage_errors(tmp_path: Path) -> None:
    assert record(tmp_path).returncode == 2
    assert record(tmp_path, "--", "definitely-not-a-command-xyz").returncode == 2
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert record(tmp_path, "--signatures", str(bad), "--", sys.executable, "-c", "pass").returncode == 2


def test_store_is_stable_and_merges() -> None:
    data = store.empty()
    ints = types_codec.encode_all((types_codec.decode({"kind": "named", "name": "int64"}),))
    floats = types_codec.encode_all((types_codec.decode({"kind": "named", "name": "float64"}),))
    assert ints is not None and floats is not None
    assert store.merge(data, "m.py::f", store.Entry(["int64"], ints, ok=False))
    assert store.merge(data, "m.py::f", store.Entry(["float64"], floats, ok=True))
    assert not store.merge(data, "m.py::f", store.Entry(["float64"], floats, ok=True))
    assert store.merge(data, "m.py::f", store.Entry(["int64"], ints, ok=True))  # later success wins
    text = store.dumps(data)
    assert store.dumps(json.loads(text)) == text
    assert [e.args for e in store.entries(json.loads(text), "m.py::f")] == [["float64"], ["int64"]]
    assert all(e.ok for e in store.entries(json.loads(text), "m.py::f"))
    assert textwrap.dedent(text).startswith("{")


def test_print_env_switches_recording_on_for_editors(tmp_path: Path) -> None:
    proc = record(tmp_path, "--print-env")
    assert proc.returncode == 0, proc.stderr
    env = json.loads(proc.stdout)
    assert env["NUMBA_LENS_RECORD"] == str(tmp_path.resolve() / ".numba-lens" / "signatures.json")
    assert env["NUMBA_LENS_RECORD_ROOT"] == str(tmp_path.resolve())
    assert env["PYTHONPATH"].split(":")[0].endswith("pyserver/record/hook")
    # A process started with exactly these variables records.
    (tmp_path / "p.py").write_text("from numba import njit\n\n@njit\ndef f(x):\n    return x\n\nf(2)\n")
    subprocess.run(
        [sys.executable, "p.py"], cwd=tmp_path, env={**env, "PATH": "/usr/bin:/bin"}, check=True, timeout=120
    )
    assert store.entries(store.load(tmp_path / ".numba-lens" / "signatures.json"), "p.py::f")[0].args == [
        "int64"
    ]
