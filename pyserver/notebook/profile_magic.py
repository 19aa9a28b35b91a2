"""`%%numba_lens_profile [--rate HZ]`: sample the kernel while the cell runs; show the per-line heat of the
jitted functions (with their cells' source) and write a flame graph (speedscope JSON) beside the
notebook, in `.numba-lens/profiles/`.

The kernel keeps, from `%load_ext pyserver.notebook` on, what the sampler reads (pyserver.profile.inproc:
the interpreter's frame layout, every JIT object); functions compiled after it get line tables. The
sampler itself runs in a detached process (pyserver.notebook.cell_sampler)."""

from __future__ import annotations

import argparse
import ctypes
import html
import json
import linecache
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

STARTUP_TIMEOUT_S = 60.0
REPORT_TIMEOUT_S = 120.0
PR_SET_PTRACER = 0x59616D61
PR_SET_PTRACER_ANY = -1


class CellProfiler:
    def __init__(self) -> None:
        self.folder: str | None = None
        self.runs = 0

    def prepare(self) -> str | None:
        """Ready the kernel for sampling; why not, when it cannot be."""
        from pyserver.profile.ptrace import supported

        reason = supported()
        if reason is not None:
            return reason
        if self.folder is None:
            from pyserver.numba_api.notebook import enable_line_tables
            from pyserver.profile import inproc

            folder = tempfile.mkdtemp(prefix="numba-lens-kernel-profile-")
            inproc.write_layout(folder)
            inproc.install_numba_listener(folder)
            enable_line_tables()
            self.folder = folder
        try:  # Yama: let the sampler, which is not our parent, read this process
            ctypes.CDLL(None).prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0)
        except (OSError, AttributeError):
            pass
        return None

    def start_sampler(self, rate: float) -> Path:
        assert self.folder is not None
        out = Path(tempfile.mkdtemp(prefix="numba-lens-cell-"))
        command = [sys.executable, "-m", "pyserver.notebook.cell_sampler", str(os.getpid()), self.folder]
        command += [str(rate), str(out)]
        # Detached (its parent exits at once), so that it is not a child of the kernel it samples.
        launcher = "import subprocess, sys; subprocess.Popen(sys.argv[1:], start_new_session=True)"
        subprocess.run([sys.executable, "-c", launcher, *command], check=True, env=_sampler_env())
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not (out / "ready").exists() and not (out / "done").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        return out

    def profile(self, ipython: Any, line: str, cell: str) -> None:
        parser = argparse.ArgumentParser(prog="%%numba_lens_profile", add_help=False)
        from pyserver.profile import DEFAULT_RATE_HZ

        parser.add_argument("--rate", type=float, default=DEFAULT_RATE_HZ)
        options = parser.parse_args(shlex.split(line))
        why = self.prepare()
        if why is not None:
            print(f"Numba Lens cannot profile here: {why}. The cell runs unprofiled.")
            ipython.run_cell(cell)
            return
        out = self.start_sampler(options.rate)
        try:
            ipython.run_cell(cell)
        finally:
            (out / "stop").write_text("", encoding="utf-8")
        deadline = time.monotonic() + REPORT_TIMEOUT_S
        while not (out / "done").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        if (out / "error.txt").exists() or not (out / "profile.json").exists():
            error = (out / "error.txt").read_text() if (out / "error.txt").exists() else "no profile written"
            print(f"Numba Lens could not profile the cell: {error}")
            return
        profile = json.loads((out / "profile.json").read_text(encoding="utf-8"))
        self.runs += 1
        flame = self.keep_flame_graph(out / "speedscope.json")
        _display(profile, flame)

    def keep_flame_graph(self, speedscope: Path) -> Path:
        target_folder = Path.cwd() / ".numba-lens" / "profiles"
        target_folder.mkdir(parents=True, exist_ok=True)
        target = target_folder / f"cell-{os.getpid()}-{self.runs}.speedscope.json"
        target.write_bytes(speedscope.read_bytes())
        return target


def _sampler_env() -> dict[str, str]:
    env = dict(os.environ)
    package_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    return env


def jitted_lines(profile: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry for entry in profile.get("lines", []) if entry.get("jitted")]


def sample_count(entry: dict[str, Any]) -> str:
    """A line's samples; an estimate (one worker of a parallel region sampled for all) says so."""
    taken = entry.get("taken", entry["samples"])
    if taken == entry["samples"]:
        return str(entry["samples"])
    return f"~{entry['samples']} ({taken} taken)"


def heat_table(profile: dict[str, Any], top: int = 20) -> tuple[str, str]:
    """The per-line heat of the jitted functions, as (text, HTML), with each line's source."""
    rows = []
    for entry in jitted_lines(profile)[:top]:
        source = linecache.getline(entry["path"], entry["line"]).rstrip() if entry.get("path") else ""
        rows.append((100 * entry["fraction"], sample_count(entry), entry["function"], entry["line"], source))
    text = "\n".join(f"{pct:6.1f} % {n:>6}  {fn}:{ln}  {src.strip()}" for pct, n, fn, ln, src in rows)
    cells = "".join(
        f"<tr><td>{pct:.1f} %</td><td>{n}</td><td>{html.escape(fn)}</td><td>{ln}</td>"
        f"<td><code>{html.escape(src)}</code></td></tr>"
        for pct, n, fn, ln, src in rows
    )
    table = (
        "<table><tr><th>time</th><th>samples</th><th>function</th><th>line</th><th>source</th></tr>"
        f"{cells}</table>"
    )
    return text, table


def _display(profile: dict[str, Any], flame: Path) -> None:
    from IPython.display import HTML, display

    text, table = heat_table(profile)
    estimated = profile.get("estimated_samples")
    estimate_note = f" ({estimated} estimated from parallel workers)" if estimated else ""
    summary = (
        f"{profile['samples']} samples{estimate_note} in {profile['duration_s']:.2f} s; "
        f"{len(jitted_lines(profile))} jitted line(s); flame graph (speedscope): {flame}"
    )
    print("Numba Lens profile: " + summary)
    print(text or "no sample landed in a jitted function")
    display(HTML(f"<p>{html.escape(summary)}</p>{table}"))


PROFILER = CellProfiler()


def register(ipython: Any) -> None:
    def numba_lens_profile(line: str, cell: str) -> None:
        """%%numba_lens_profile [--rate HZ]: profile this cell: per-line heat of jitted code, flame graph."""
        PROFILER.profile(ipython, line, cell)

    ipython.register_magic_function(numba_lens_profile, "cell", "numba_lens_profile")
    why = PROFILER.prepare()  # now, so that the functions compiled from here on have line tables
    if why is not None:
        print(f"Numba Lens: %%numba_lens_profile is unavailable here: {why}")


__all__ = ["PROFILER", "CellProfiler", "heat_table", "register"]
