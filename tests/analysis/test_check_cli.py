"""`python -m pyserver check`: formats, exit codes, directories, --signatures, --timeout (real subprocesses)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyserver.record import store, types_codec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def check(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyserver", "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_text_format_on_a_directory_exits_1() -> None:
    proc = check("examples")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(
        line.startswith(
            "examples/typing_errors.py:10:14: error: No implementation of function Function(<built-in"
        )
        and line.endswith("[typing-error]")
        for line in lines
    )
    assert any(
        line.startswith("examples/unify_return.py:10:9: error: ") and line.endswith("[unify-return]")
        for line in lines
    )
    assert any(
        line.endswith("[untyped-variable]") and line.startswith("examples/untyped_list.py:9:5:")
        for line in lines
    )
    assert any(line.startswith("examples/parallel_nothing.py:6:7: warning:") for line in lines)
    assert not any(line.startswith("examples/kernels.py") for line in lines)  # cuda_kernels.py has one error
    assert "error(s)" in proc.stderr


def test_text_summary_comes_last_on_its_own_line_when_both_streams_are_one() -> None:
    # `check ... 2>&1 | less` or a CI log: stdout is a pipe (block-buffered), stderr is not; the summary
    # must still come after the last diagnostic, on a line of its own.
    proc = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "examples/typing_errors.py", "examples/unify_return.py"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},  # no PYTHONUNBUFFERED
    )
    assert proc.returncode == 1, proc.stdout
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"\d+ error\(s\), \d+ warning\(s\) in 2 file\(s\); .*type-checked", lines[-1]), lines
    diagnostic = re.compile(r"examples/\w+\.py:\d+:\d+: (error|warning|information|hint|note): .+")
    assert lines[:-1] and all(diagnostic.fullmatch(line) for line in lines[:-1]), lines


def test_clean_file_exits_0_and_json_shape() -> None:
    proc = check("examples/kernels.py", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["diagnostics"] == []
    walk = next(f for f in payload["functions"] if f["name"] == "walk")
    assert walk["path"] == "examples/kernels.py" and walk["line"] == 12
    assert walk["signatures"] == [
        {
            "args": ["array(float64, 1d, A)", "int64"],
            "return_type": "float64",
            "mode": "nopython",
            "source": "annotation",
            "ok": True,
            # what Numba's dispatcher compiles, in the signatures file's encoding
            "arg_types": [
                {
                    "kind": "array",
                    "dtype": {"kind": "named", "name": "float64"},
                    "ndim": 1,
                    "layout": "A",
                    "readonly": False,
                    "aligned": True,
                },
                {"kind": "named", "name": "int64"},
            ],
            "lifted_loops": [],
            "callers": [],
        },
        {  # main() passes a C-contiguous array: what Numba compiles when the file runs
            "args": ["array(float64, 1d, C)", "int64"],
            "return_type": "float64",
            "mode": "nopython",
            "source": "python-caller",
            "ok": True,
            # what Numba's dispatcher compiles, in the signatures file's encoding
            "arg_types": [
                {
                    "kind": "array",
                    "dtype": {"kind": "named", "name": "float64"},
                    "ndim": 1,
                    "layout": "C",
                    "readonly": False,
                    "aligned": True,
                },
                {"kind": "named", "name": "int64"},
            ],
            "lifted_loops": [],
            "callers": [{"path": "examples/kernels.py", "function": "main", "line": 39}],
        },
    ]


def test_json_diagnostics_carry_the_contract_fields() -> None:
    proc = check("examples/unify_return.py", "--format", "json")
    assert proc.returncode == 1
    (diagnostic,) = json.loads(proc.stdout)["diagnostics"]
    for key in (
        "path",
        "range",
        "severity",
        "code",
        "message",
        "source",
        "function",
        "signature",
        "relatedInformation",
    ):
        assert key in diagnostic
    assert diagnostic["path"] == "examples/unify_return.py"
    assert diagnostic["range"] == {"start": {"line": 9, "character": 8}, "end": {"line": 9, "character": 21}}
    assert diagnostic["severity"] == "error" and diagnostic["source"] == "numba"
    assert diagnostic["function"] == "choose" and diagnostic["signature"] == "(int64)"
    assert {r["message"] for r in diagnostic["relatedInformation"]} == {
        "returns UniTuple(int64 x 2)",
        "returns Literal[int](1)",
    }
    assert all(set(r) == {"path", "range", "message"} for r in diagnostic["relatedInformation"])


def test_sarif_is_2_1_0() -> None:
    proc = check("examples/typing_errors.py", "--format", "sarif")
    assert proc.returncode == 1
    sarif = json.loads(proc.stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "Numba Lens"
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    first = run["results"][0]
    assert rule_ids[first["ruleIndex"]] == first["ruleId"] == "typing-error"
    region = first["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (10, 14, 15)
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/typing_errors.py"
    assert first["level"] == "error"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert check("no/such/path.py").returncode == 2
    assert check("examples", "--format", "xml").returncode == 2
    assert check("examples", "--signatures", str(tmp_path / "missing.json")).returncode == 2


def test_signatures_option_and_timeout(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit
            def f(a):
                return a + (1, 2)
            """
        )
    )
    (tmp_path / "hangs.py").write_text(
        "from numba import njit\n\n@njit\ndef g(x):\n    return x\n\nwhile True:\n    pass\n"
    )
    (tmp_path / "plain.py").write_text("open('should-not-exist', 'w')\n")  # no jitted code: never executed
    signatures = tmp_path / "elsewhere.json"
    with store.locked(signatures) as data:
        encoded = types_codec.encode_all((types_codec.decode({"kind": "named", "name": "int64"}),))
        assert encoded is not None
        store.merge(data, store.function_key("pkg/mod.py", "f"), store.Entry(["int64"], encoded, False))
    # --loading full: the hang is top-level code, which the default definitions-only loading never runs
    proc = check(
        ".",
        "--signatures",
        str(signatures),
        "--timeout",
        "3",
        "--format",
        "json",
        "--loading",
        "full",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    payload = json.loads(proc.stdout)
    codes = {(d["path"], d["code"]) for d in payload["diagnostics"]}
    assert ("pkg/mod.py", "typing-error") in codes
    assert ("hangs.py", "analysis-failed") in codes
    f = next(f for f in payload["functions"] if f["name"] == "f")
    assert f["signatures"][0]["source"] == "recorded"
    assert not (tmp_path / "should-not-exist").exists()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_jitted_code_is_success(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "plain.py").write_text("x = 1\n")
    proc = check(".", "--format", fmt, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_without_numba_exit_2_with_the_install_command(tmp_path: Path) -> None:
    import venv

    venv.create(tmp_path / "bare", with_pip=False)
    bare_python = tmp_path / "bare" / "bin" / "python"
    proc = subprocess.run(
        [str(bare_python), "-m", "pyserver", "check", "examples/kernels.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert "pip install" in proc.stderr and "numba>=0.59,<0.69" in proc.stderr  # pyserver/versions.py
    assert proc.stdout == ""


def test_json_variables_gives_each_signatures_hover_types(tmp_path: Path) -> None:
    (tmp_path / "total.py").write_text(
        textwrap.dedent(
            """
            from numba import njit

            @njit("float64(float64[:])")
            def total(a):
                s = 0.0
                n = 3
                for x in a:
                    s += x
                return s * n
            """
        )
    )
    plain = json.loads(check("--format", "json", "total.py", cwd=tmp_path).stdout)
    assert "variables" not in plain["functions"][0]["signatures"][0]
    proc = check("--format", "json", "--variables", "total.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    variables = json.loads(proc.stdout)["functions"][0]["signatures"][0]["variables"]
    by_ssa = {v["ssa_name"]: v for v in variables}
    assert by_ssa["a"] == {
        "name": "a",
        "line": 5,
        "type": "array(float64, 1d, A)",
        "ssa_name": "a",
        "numba_type": "array(float64, 1d, A)",
        "is_arg": True,
    }
    assert (by_ssa["s"]["line"], by_ssa["s"]["type"]) == (6, "float64")
    # a literal: the hover's text, and Numba's own str() of the type
    assert (by_ssa["n"]["type"], by_ssa["n"]["numba_type"]) == ("int64 (literal 3)", "Literal[int](3)")
    assert {v["name"] for v in variables} >= {"a", "s", "n", "x"}
