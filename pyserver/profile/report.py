"""Raw samples to the profile: each sample becomes a stack of frames, outermost first, Python callers
above jitted frames; then lines, functions, threads and compiles are counted (the JSON contract).
"""

from __future__ import annotations

import os
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from pyserver.profile.jitmap import Compile, JitFunction, JitMap
from pyserver.profile.pyframes import CodeInfo
from pyserver.profile.sampler import Sample, Sampler

# A return address found in the stack above a leaf outside jitted code must be this near the stack
# pointer to count as the jitted caller (deeper, a stale word is more likely than a live frame).
NEAREST_CALLER_BYTES = 1024
_CALL_LENGTHS = (5, 2, 3, 6, 7)  # call rel32; call *reg; call *reg (REX); call *[rip+d32]; REX + that


@dataclass(frozen=True)
class Frame:
    path: str | None
    line: int | None
    function: str
    jitted: bool
    signature: str | None = None

    def label(self) -> str:
        suffix = " [jit]" if self.jitted else ""
        return f"{self.function}{suffix}"


@dataclass
class Resolved:
    sample: Sample
    frames: list[Frame]  # outermost first; the last is where the thread was
    compiling: bool


class Resolver:
    def __init__(self, sampler: Sampler, jitmap: JitMap, cwd: str) -> None:
        self.sampler = sampler
        self.jitmap = jitmap
        self.cwd = cwd
        self.codes: dict[tuple[int, ...], CodeInfo | None] = {}
        self.processes = {p.pid: p for p in sampler.processes_seen}
        self.compiles = {(c.pid, c.id): c for c in jitmap.compiles if c.id}
        self._python_frames: dict[tuple[tuple[int, ...], int], Frame] = {}
        self._compile_frames: dict[Frame, bool] = {}
        for process in sampler.processes_seen:
            if process.stacks is not None:
                self.codes.update(process.stacks.codes)

    def _after_call(self, address: int) -> bool:
        """True when the bytes before `address` end with a call instruction (a real return address)."""
        code = self.jitmap.code_before(address, 8)
        if code is None:
            return False
        for length in _CALL_LENGTHS:
            if len(code) < length:
                continue
            opcode = code[-length:]
            if length == 5 and opcode[0] == 0xE8:
                return True
            if opcode[0] == 0xFF and length in (2, 6) and (opcode[1] >> 3) & 7 == 2:
                return True
            if (
                length in (3, 7)
                and 0x40 <= opcode[0] <= 0x4F
                and opcode[1] == 0xFF
                and (opcode[2] >> 3) & 7 == 2
            ):
                return True
        return False

    def jitted_frames(self, sample: Sample) -> list[Frame]:
        """Innermost first."""
        found: list[tuple[int, JitFunction, bool]] = []  # (address, function, exact pc)
        leaf = self.jitmap.function_at(sample.pc)
        if leaf is not None:
            found.append((sample.pc, leaf, True))
        for depth, address in sample.candidates:
            if not found and depth > NEAREST_CALLER_BYTES:
                break
            function = self.jitmap.function_at(address)
            if function is None or not self._after_call(address):
                continue
            if found and found[-1][1].wrapper and found[-1][1].symbol.startswith("_ZN7cpython"):
                break  # the cpython wrapper is the entry from Python: above it are Python frames
            found.append((address, function, False))
        frames: list[Frame] = []
        for address, function, exact in found:
            address = address if exact else address - 1
            if function.wrapper and self.jitmap.line_at(address) is None:
                continue  # a wrapper's own code; with a line, code it inlined (a ufunc's kernel, say)
            frames.append(self._jit_frame(function, address))
        return frames

    def _jit_frame(self, function: JitFunction, address: int) -> Frame:
        location = self.jitmap.line_at(address)
        if location is None:
            if function.path is None:
                # Code of no dispatcher's own (a prange body's gufunc, at an address with no line row):
                # jitted with no line, in the file of the function whose compile registered it.
                owner = self.jitmap.owner(function)
                if owner is not None and owner.path is not None:
                    signature = owner.signature
                    if "__numba_parfor_gufunc" in function.name:
                        signature = f"{owner.signature} prange body"
                    return Frame(owner.path, None, function.name, True, signature)
            return Frame(function.path, None, function.name, True, function.signature)
        path, line = location
        enclosing = self.jitmap.enclosing_compile(path, line)
        if enclosing is not None and enclosing.name:
            signature = enclosing.signature
            if "__numba_parfor_gufunc" in function.name:
                signature = f"{enclosing.signature} prange body"
            elif enclosing.name != function.name:  # a function inlined here
                signature = f"{enclosing.signature} inlined in {function.name}"
            return Frame(path, line, enclosing.name, True, signature)
        return Frame(path, line, function.name, True, function.signature)

    def python_frames(self, sample: Sample) -> list[Frame]:
        """Innermost first."""
        frames = []
        for key, instruction in sample.python:
            frame = self._python_frames.get((key, instruction))
            if frame is None:
                frame = self._python_frames[(key, instruction)] = self._python_frame(key, instruction)
            frames.append(frame)
        return frames

    def _python_frame(self, key: tuple[int, ...], instruction: int) -> Frame:
        info = self.codes.get(key)
        if info is None:
            return Frame(None, None, "<unknown Python frame>", False)
        path = info.path
        if not path.startswith("<") and not os.path.isabs(path):
            path = os.path.normpath(os.path.join(self.cwd, path))
        return Frame(path, info.line_of(instruction), info.name, False)

    def compile_frames(self, sample: Sample) -> list[Frame]:
        """Outermost first: the code that called the outermost compile, then each compile down to the
        sample's, each on its function's first line (the decorator's, or the `def`)."""
        chain: list[Compile] = []
        compile_id = sample.compile_id
        while compile_id and len(chain) < 64:
            compiled = self.compiles.get((sample.pid, compile_id))
            if compiled is None:  # ended with the program, before its compile was written
                chain.append(Compile(sample.pid, None, None, "", 0.0, None, None, None))
                break
            chain.append(compiled)
            compile_id = compiled.parent
        frames = [Frame(path, line, name, False) for path, name, line in chain[-1].callers]
        for compiled in reversed(chain):
            if compiled.name is None:
                frames.append(Frame(None, None, "<a Numba compile>", False))
            else:
                name = f"{compiled.name} [compile]"
                frames.append(Frame(compiled.path, compiled.first_line, name, False, compiled.signature))
        return frames

    def resolve(self, sample: Sample, phase: str | None = None) -> Resolved:
        """`phase`: "start-up" or "shut-down" for a main thread's sample with no Python frame, before
        its first Python frame or after its last (the interpreter starting or finalising)."""
        if sample.compile_id:
            return Resolved(sample, self.compile_frames(sample), True)
        python = self.python_frames(sample)
        jitted = self.jitted_frames(sample)
        frames = list(reversed(python)) + list(reversed(jitted))
        wrapper = self.jitmap.function_at(sample.pc) if not frames else None
        if wrapper is not None:
            # Only a wrapper's code (a prange body's gufunc loop, say): jitted, with no line of its own,
            # in the code compiled for the function whose compile registered it.
            owner = self.jitmap.owner(wrapper)
            path, signature = (owner.path, owner.signature) if owner is not None else (None, None)
            frames = [Frame(path, None, wrapper.name, True, signature)]
        if not frames:
            process = self.processes.get(sample.pid)
            library = process.library_at(sample.pc) if process is not None else None
            if library is None:
                frames = [Frame(None, None, "<native code>", False)]
            elif phase is not None:
                frames = [Frame(library, None, f"<Python {phase}: {os.path.basename(library)}>", False)]
            else:  # native code with no Python frame: a threading layer's wait, say
                frames = [Frame(library, None, f"<{os.path.basename(library)}>", False)]
        compiling = any(self._in_compile(f) for f in python)
        return Resolved(sample, frames, compiling)

    def _in_compile(self, frame: Frame) -> bool:
        """Is this Numba's dispatcher compiling (a sample from before its compile event, say)?"""
        found = self._compile_frames.get(frame)
        if found is None:
            found = self._compile_frames[frame] = (
                frame.path is not None
                and frame.path.endswith(os.path.join("numba", "core", "dispatcher.py"))
                and "compile" in frame.function
            )
        return found


def build(
    sampler: Sampler, jitmap: JitMap, cwd: str, duration: float, rate_hz: float
) -> tuple[dict[str, Any], list[Resolved]]:
    jitmap.finish(sampled_addresses(sampler.samples))
    resolver = Resolver(sampler, jitmap, cwd)
    resolved = []
    unresolved = 0
    python_seen: set[int] = set()  # threads that have had Python frames so far (samples are in order)
    readable = {p.pid for p in sampler.processes_seen if p.stacks is not None}
    for sample in sampler.samples:
        phase = None
        if sample.python or sample.compile_id:
            python_seen.add(sample.tid)
        elif sample.tid == sample.pid and sample.pid in readable:
            phase = "shut-down" if sample.tid in python_seen else "start-up"
        try:
            resolved.append(resolver.resolve(sample, phase))
        except Exception:  # one unreadable sample (memory read mid-change) must not lose the profile
            unresolved += 1
            resolved.append(Resolved(sample, [Frame(None, None, "<unresolved sample>", False)], False))
    total = sum(item.sample.weight for item in resolved)

    def fraction(count: int) -> float:
        return round(count / total, 6) if total else 0.0

    lines: Counter[tuple[str, int, str, bool]] = Counter()
    functions: Counter[tuple[str | None, str, str | None, bool]] = Counter()
    inclusive: Counter[tuple[str | None, str, str | None, bool]] = Counter()
    threads: Counter[int] = Counter()
    threads_attributed: Counter[int] = Counter()  # samples that landed on a source line
    threads_jitted: Counter[int] = Counter()  # samples in jitted code
    threads_jitted_unknown: Counter[int] = Counter()  # of which with no source line
    # Each count adds a sample's weight (the threads it stands for: more than one for a worker of a
    # parallel region sampled for its pool); `taken` counts the samples themselves, to show the estimate.
    lines_taken: Counter[tuple[str, int, str, bool]] = Counter()
    functions_taken: Counter[tuple[str | None, str, str | None, bool]] = Counter()
    threads_taken: Counter[int] = Counter()
    unknown_line = 0
    compiling = 0
    estimated = 0
    for item in resolved:
        leaf = item.frames[-1]
        tid, weight = item.sample.tid, item.sample.weight
        if weight > 1:
            estimated += weight
        threads[tid] += weight
        threads_taken[tid] += 1
        compiling += weight * item.compiling
        function = (leaf.path, leaf.function, leaf.signature, leaf.jitted)
        functions[function] += weight
        functions_taken[function] += 1
        for key in {(f.path, f.function, f.signature, f.jitted) for f in item.frames}:
            inclusive[key] += weight
        threads_jitted[tid] += weight * leaf.jitted
        if leaf.path is not None:  # a source line, or at least the native library the thread was in
            threads_attributed[tid] += weight
        if leaf.path is None or leaf.line is None:
            unknown_line += weight
            threads_jitted_unknown[tid] += weight * leaf.jitted
        else:
            line = (leaf.path, leaf.line, leaf.function, leaf.jitted)
            lines[line] += weight
            lines_taken[line] += 1
    compiles: dict[tuple[str | None, str | None, str], float] = defaultdict(float)
    for compiled in jitmap.compiles:
        compiles[(compiled.path, compiled.name, compiled.signature)] += compiled.seconds
    info = {t.tid: t for t in sampler.threads.values()}
    profile: dict[str, Any] = {
        "samples": total,
        "samples_taken": len(resolved),
        "estimated_samples": estimated,
        "duration_s": round(duration, 6),
        "rate_hz": rate_hz,
        "lines": [
            {
                "path": p,
                "line": ln,
                "function": fn,
                "jitted": j,
                "samples": n,
                "fraction": fraction(n),
                "taken": lines_taken[(p, ln, fn, j)],
            }
            for (p, ln, fn, j), n in lines.most_common()
        ],
        "functions": [
            {
                "path": p,
                "name": fn,
                "signature": sig,
                "jitted": j,
                "samples": n,
                "fraction": fraction(n),
                "total_samples": inclusive[(p, fn, sig, j)],
                "taken": functions_taken[(p, fn, sig, j)],
            }
            for (p, fn, sig, j), n in functions.most_common()
        ],
        "threads": [
            {
                "id": tid,
                "pid": info[tid].pid if tid in info else None,
                "name": _thread_label(info.get(tid), sampler.root_pid),
                "samples": n,
                "taken": threads_taken[tid],
                "attributed": threads_attributed[tid],
                "jitted": threads_jitted[tid],
                "jitted_without_line": threads_jitted_unknown[tid],
            }
            for tid, n in sorted(threads.items())
        ],
        "compile": [
            {"path": p, "name": fn, "signature": sig, "seconds": round(sec, 6)}
            for (p, fn, sig), sec in sorted(compiles.items(), key=lambda kv: -kv[1])
        ],
        "compile_seconds": round(sum(compiles.values()), 6),
        "compiling_samples": compiling,
        "unknown_line_samples": unknown_line,
        "python_frames": sampler.python_status(),
        "unresolved_samples": unresolved,
        "held_s": round(sampler.held_s, 6),
        "paused_s": round(sampler.paused_s, 6),
        "pause_median_us": round(1e6 * statistics.median(sampler.pauses), 1) if sampler.pauses else None,
        "sampler": {
            "rounds": sampler.rounds,
            "stops": sampler.stops,
            "cpu_s": round(sampler.cpu_s, 6),
            "every_worker": sampler.every_worker,
            "worker_ticks": sampler.worker_ticks,
            "workers_running": sampler.workers_running,
            "worker_tick_stops": sampler.worker_tick_stops,
        },
    }
    return profile, resolved


def sampled_addresses(samples: list[Sample]) -> set[int]:
    """The code addresses samples hold: each program counter and each candidate return address."""
    addresses = set()
    for sample in samples:
        if sample.pc:
            addresses.add(sample.pc)
        addresses.update(address for _, address in sample.candidates)
    return addresses


def _thread_label(thread: Any, root_pid: int) -> str:
    if thread is None:
        return "?"
    if thread.tid == thread.pid:
        return "MainThread" if thread.pid == root_pid else f"main thread of process {thread.pid}"
    kind = "Python thread" if thread.python else "native thread (no Python frames: a prange worker, say)"
    return f"{thread.name} ({kind})"
