"""The profile as text (hot lines and functions), and in speedscope's file format (one sampled profile
per thread: https://www.speedscope.app/file-format-schema.json)."""

from __future__ import annotations

import linecache
import os
from typing import Any

from pyserver.profile.report import Frame, Resolved

SPEEDSCOPE_SCHEMA = "https://www.speedscope.app/file-format-schema.json"


def _where(path: str | None, line: int | None) -> str:
    if path is None:
        return "?"
    shown = (
        os.path.relpath(path) if os.path.isabs(path) and not os.path.relpath(path).startswith("..") else path
    )
    return f"{shown}:{line}" if line is not None else shown


def text(profile: dict[str, Any], top: int = 15) -> str:
    out: list[str] = []
    total = profile["samples"]
    out.append(
        f"{total} samples in {profile['duration_s']:.2f} s at {profile['rate_hz']:g} Hz "
        f"(time on the CPU, all threads); compiling: {profile['compiling_samples']} samples, "
        f"{profile['compile_seconds']:.2f} s of Numba compiles"
    )
    if profile.get("estimated_samples"):
        out.append(
            f"{profile['estimated_samples']} of these samples are estimates: at each tick, of a process's "
            "running worker threads (native threads: a parallel region's), one was sampled and counted once "
            f"for each of them ({profile['samples_taken']} samples taken in all; --every-worker stops each)"
        )
    unavailable = {pid: why for pid, why in profile["python_frames"].items() if why}
    for pid, why in unavailable.items():
        out.append(f"Python frames of process {pid} unavailable: {why}")
    if profile["unknown_line_samples"]:
        out.append(
            f"{profile['unknown_line_samples']} samples have no source line "
            "(native code, or jitted code without line tables: NUMBA_DEBUGINFO=0, or loaded from a Numba "
            "cache written outside the profiler)"
        )
    out.append("")
    out.append("Hot lines")
    out.append(f"{'%':>6} {'samples':>8}  {'where':<40} {'function':<28} source")
    for entry in profile["lines"][:top]:
        source = linecache.getline(entry["path"], entry["line"]).strip() if entry["path"] else ""
        name = entry["function"] + (" [jit]" if entry["jitted"] else "")
        out.append(
            f"{100 * entry['fraction']:6.1f} {entry['samples']:8d}  {_where(entry['path'], entry['line']):<40} "
            f"{name:<28} {source[:60]}"
        )
    out.append("")
    out.append("Hot functions (own samples)")
    for entry in profile["functions"][:top]:
        name = entry["name"] + (" [jit]" if entry["jitted"] else "")
        signature = entry["signature"] or ""
        out.append(
            f"{100 * entry['fraction']:6.1f} {entry['samples']:8d}  {name} {signature}  {_where(entry['path'], None)}"
        )
    out.append("")
    out.append("Threads")
    for thread in profile["threads"]:
        out.append(f"{thread['samples']:8d}  {thread['id']}  {thread['name']}")
    if profile["compile"]:
        out.append("")
        out.append("Compile time (apart from run time; each compile's own time)")
        for entry in profile["compile"][:top]:
            out.append(
                f"{entry['seconds']:8.3f} s  {entry['name']} {entry['signature']}  {_where(entry['path'], None)}"
            )
    return "\n".join(out) + "\n"


def speedscope(profile: dict[str, Any], resolved: list[Resolved], name: str) -> dict[str, Any]:
    frames: list[dict[str, Any]] = []
    index: dict[Frame, int] = {}

    def frame_index(frame: Frame) -> int:
        found = index.get(frame)
        if found is None:
            found = index[frame] = len(frames)
            entry: dict[str, Any] = {"name": frame.label()}
            if frame.path is not None:
                entry["file"] = frame.path
            if frame.line is not None:
                entry["line"] = frame.line
            frames.append(entry)
        return found

    weight = 1.0 / profile["rate_hz"] if profile["rate_hz"] else 0.0
    by_thread: dict[int, list[Resolved]] = {}
    for item in resolved:
        by_thread.setdefault(item.sample.tid, []).append(item)
    names = {t["id"]: t["name"] for t in profile["threads"]}
    profiles = []
    for tid, items in sorted(by_thread.items()):
        samples = [[frame_index(f) for f in item.frames] for item in items]
        weights = [weight * item.sample.weight for item in items]  # a worker's sample stands for its pool
        profiles.append(
            {
                "type": "sampled",
                "name": f"{names.get(tid, '?')} [{tid}]",
                "unit": "seconds",
                "startValue": 0,
                "endValue": round(sum(weights), 6),
                "samples": samples,
                "weights": weights,
            }
        )
    return {
        "$schema": SPEEDSCOPE_SCHEMA,
        "shared": {"frames": frames},
        "profiles": profiles,
        "name": name,
        "activeProfileIndex": 0,
        "exporter": "numba-lens profile",
    }
