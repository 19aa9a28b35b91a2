"""The sampling loop: at each tick, every running thread of the program (and of the processes it forked)
is stopped for a few microseconds, its registers, the top of its stack and its Python frames are read,
and it is let go.

What a sample keeps, for `report` to resolve once the run is over (when every JIT object is known):
- the program counter;
- the words of the top of the stack that point into anonymous executable memory (where the JIT puts
  code), with their depth: candidate return addresses into jitted code, which is how a sample taken in
  libm or in Numba's runtime below a jitted function still lands on the jitted line that called it;
- the Python frames (code object and instruction), innermost first.
A thread that is inside a Numba compile (the hook keeps a table of them, `inproc._CompilingTable`) is
not stopped: its sample is the compile's id, and the report shows it under the code that called the
compile (known to the hook at the compile's start), on the compiled function's first line.
Threads that sleep (state other than R) are not sampled: the profile is of time on the CPU.

The workers of a parallel region (native threads of a thread pool: OpenMP's, TBB's, Numba's workqueue)
have no Python thread state. Stopping each of them at every tick would make the sampler's cost grow
with the number of cores, so at each tick one of a process's running native threads is sampled, chosen
at random, and its sample counts for all of them (`Sample.weight`): each running thread has the same
chance, 1/n, to be the one, and its sample then counts n, so every line's and function's count is
unbiased, an estimate rather than a tally (the report says how many samples were taken). The main
thread and every thread with a Python thread state are sampled at each tick, as before.
"""

from __future__ import annotations

import bisect
import json
import mmap
import os
import random
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pyserver.profile import DEFAULT_RATE_HZ as DEFAULT_RATE_HZ
from pyserver.profile.ptrace import Memory, ThreadStop
from pyserver.profile.pyframes import PythonStacks

STACK_SCAN_BYTES = 4096
MAX_OPEN_STAT_FILES = 512  # per process; threads past these are read with an open each tick


@dataclass
class Sample:
    pid: int
    tid: int
    time: float
    pc: int
    candidates: tuple[tuple[int, int], ...]  # (depth in bytes from the stack pointer, address)
    python: tuple[tuple[tuple[int, ...], int], ...]  # (code key, instruction index), innermost first
    compile_id: int = 0  # the Numba compile the thread was in (the process's own numbering), else 0
    weight: int = 1  # the running threads this sample stands for (one worker sampled for its pool)


@dataclass
class Process:
    pid: int
    memory: Memory
    stacks: PythonStacks | None = None
    python_unavailable: str | None = "no layout yet"
    thread_states: dict[int, int] = field(default_factory=dict)
    executable: list[tuple[int, int]] = field(default_factory=list)  # anonymous [start, end), sorted
    libraries: list[tuple[int, int, str]] = field(default_factory=list)
    compiling: mmap.mmap | None = None  # the hook's table of the compile each thread is in
    maps_read_round = -1  # the sampling round that last read the mappings
    maps_stale = True  # new code or a new process since: read them again before they are used
    # Each thread's /proc stat file, kept open: a read at each tick costs a quarter of an open-read-close.
    stat_files: dict[int, int] = field(default_factory=dict)

    def running(self, tid: int) -> bool:
        """Is the thread in state R (on a CPU, or waiting for one)?"""
        fd = self.stat_files.get(tid)
        if fd is None:
            if len(self.stat_files) >= MAX_OPEN_STAT_FILES:
                return _running(self.pid, tid)
            try:
                fd = self.stat_files[tid] = os.open(f"/proc/{self.pid}/task/{tid}/stat", os.O_RDONLY)
            except OSError:
                return False
        try:
            stat = os.pread(fd, 1024, 0)
        except OSError:  # the thread ended (its id may come back for another thread: open it anew then)
            os.close(self.stat_files.pop(tid))
            return False
        return _state(stat) == b"R"

    def keep_stat_files(self, tids: list[int]) -> None:
        """Close the stat files of threads that are no longer listed."""
        if len(self.stat_files) > len(tids) or not self.stat_files.keys() <= set(tids):
            for tid in self.stat_files.keys() - set(tids):
                os.close(self.stat_files.pop(tid))

    def close(self) -> None:
        for fd in self.stat_files.values():
            os.close(fd)
        self.stat_files.clear()

    def compiling_threads(self) -> dict[int, int]:
        """Thread id -> the id of the compile it is in, for the threads in one now."""
        if self.compiling is None:
            return {}
        words = struct.unpack(f"<{len(self.compiling) // 8}q", self.compiling[:])  # one moment's copy
        return {words[i]: words[i + 1] for i in range(0, len(words), 2) if words[i + 1]}

    def maps(self, address: int) -> bool:
        """Is `address` in an executable mapping seen so far?"""
        index = bisect.bisect_right(self.executable, (address, 1 << 64)) - 1
        return (index >= 0 and address < self.executable[index][1]) or self.library_at(address) is not None

    def library_at(self, address: int) -> str | None:
        index = bisect.bisect_right(self.libraries, (address, 1 << 64, "")) - 1
        if index >= 0 and address < self.libraries[index][1]:
            return self.libraries[index][2]
        return None


@dataclass
class ThreadInfo:
    pid: int
    tid: int
    name: str
    python: bool = False


class Sampler:
    def __init__(self, root_pid: int, folder: str, rate_hz: float, every_worker: bool = False) -> None:
        self.root_pid = root_pid
        self.every_worker = every_worker  # stop every running native worker at each tick (exact counts)
        self._choose = random.Random()
        self.folder = folder
        self.interval = 1.0 / rate_hz
        self.processes: dict[int, Process] = {}
        self.processes_seen: list[Process] = []  # ended ones, kept for their decoded code objects
        self.samples: list[Sample] = []
        self.threads: dict[int, ThreadInfo] = {}
        self.rounds = 0
        self.exit_status: int | None = None  # the root's wait status, when the sampler reaped it
        self._stopper = ThreadStop()
        self._last_refresh = 0.0
        self._folder_stamp = 0
        self._states_fresh = False
        self.held_s = 0.0  # time threads spent stopped by the sampler (from the stop request to the resume)
        # ... of which after the thread had stopped: the sampler's own work. The rest is the wait for the
        # thread to reach the stop, long only when it was waiting for a CPU anyway (a loaded machine).
        self.paused_s = 0.0
        self.pauses: list[float] = []
        self.stops = 0  # thread stops requested (each PTRACE_SEIZE + INTERRUPT)
        self.cpu_s = 0.0  # the sampler's own CPU time in its rounds (this thread's)
        # The ticks at which native workers ran: how many, the workers running at them (what stopping
        # every worker would stop) and the stops made at them (the main thread's and Python threads' too).
        self.worker_ticks = 0
        self.workers_running = 0
        self.worker_tick_stops = 0

    # ------------------------------------------------------------------------------------ processes

    def _descendants(self) -> list[int]:
        found, pending = [], [self.root_pid]
        while pending:
            pid = pending.pop()
            found.append(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:
                try:
                    with open(f"/proc/{pid}/task/{tid}/children") as handle:
                        pending.extend(int(child) for child in handle.read().split())
                except OSError:
                    continue
        return found

    def _refresh(self) -> None:
        self._last_refresh = time.monotonic()
        alive = self._descendants()
        for pid in list(self.processes):
            if pid not in alive:
                ended = self.processes.pop(pid)
                ended.close()
                self.processes_seen.append(ended)
        for pid in alive:
            process = self.processes.get(pid)
            if process is None:
                process = self.processes[pid] = Process(pid, Memory(pid))
            if process.stacks is None:
                self._load_layout(process)
            if process.compiling is None:
                process.compiling = _map_compiling_table(self.folder, pid)
            process.maps_stale = True  # read before the next stopped sample needs them

    def _read_mappings(self, process: Process) -> None:
        process.maps_read_round = self.rounds
        process.maps_stale = False
        anonymous, files = _executable_mappings(process.pid)
        if files:  # a process that is exiting has no mappings left: keep the last ones seen
            process.executable, process.libraries = anonymous, files

    def _load_layout(self, process: Process) -> None:
        path = os.path.join(self.folder, f"layout-{process.pid}.json")
        try:
            with open(path, encoding="utf-8") as handle:
                layout = json.load(handle)
        except (OSError, ValueError):
            process.python_unavailable = (
                "the profiling hook did not run in this process (not Python, or -S/-I)"
            )
            return
        if not layout.get("available"):
            process.python_unavailable = layout.get("reason", "unknown")
            return
        process.stacks = PythonStacks(process.memory, layout)
        process.python_unavailable = None

    def finish(self) -> None:
        for process in self.processes.values():
            process.close()
        self.processes_seen.extend(self.processes.values())
        self.processes.clear()

    def python_status(self) -> dict[str, str | None]:
        """Per process: None when its Python frames were read, else why not."""
        return {str(p.pid): p.python_unavailable for p in self.processes_seen}

    # -------------------------------------------------------------------------------------- sampling

    def run(self, is_running: Callable[[], bool]) -> None:
        next_tick = time.monotonic()
        while is_running():
            waiting_for_layout = any(p.stacks is None for p in self.processes.values()) and self.rounds < 200
            # The hook writes each new JIT object to the folder right after its compile, before the code
            # runs: a change there means new code pages, whose return addresses must count from now on.
            try:
                folder_stamp = os.stat(self.folder).st_mtime_ns
            except OSError:
                folder_stamp = 0
            new_code = folder_stamp != self._folder_stamp
            self._folder_stamp = folder_stamp
            if waiting_for_layout or new_code or time.monotonic() - self._last_refresh > 0.25:
                self._refresh()
            self.sample_once()
            if self.exit_status is not None:
                return
            next_tick += self.interval
            delay = next_tick - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                next_tick = time.monotonic()  # running late: skip ticks rather than bunch them up

    def sample_once(self) -> None:
        cpu_from, stops_from, running_from = time.thread_time(), self.stops, self.workers_running
        self.rounds += 1
        now = time.monotonic()
        for process in list(self.processes.values()):
            try:
                tids = [int(t) for t in os.listdir(f"/proc/{process.pid}/task")]
            except OSError:
                continue
            process.keep_stat_files(tids)
            self._states_fresh = False
            compiling = process.compiling_threads()
            workers = []
            for tid in tids:
                if not process.running(tid):
                    continue
                compile_id = compiling.get(tid)
                if compile_id is not None:
                    self._note_thread(process.pid, tid, python=True)
                    self.samples.append(Sample(process.pid, tid, now, 0, (), (), compile_id))
                    continue
                if self._native_worker(process, tid):
                    workers.append(tid)
                    if not self.every_worker:
                        continue
                sample = self._sample_thread(process, tid, now)
                if sample is not None:
                    self.samples.append(sample)
            self.workers_running += len(workers)
            if workers and not self.every_worker:
                self._sample_one_worker(process, workers, now)
        if self.workers_running > running_from:
            self.worker_ticks += 1
            self.worker_tick_stops += self.stops - stops_from
        self.cpu_s += time.thread_time() - cpu_from

    def _native_worker(self, process: Process, tid: int) -> bool:
        """Is this a thread with no Python thread state (a thread pool's worker), as far as is known now?
        Unknown (no Python layout for the process) counts as not: such threads are all sampled."""
        if process.stacks is None or tid == process.pid:
            return False
        if tid not in process.thread_states and not self._states_fresh:  # walk the list once a round
            process.thread_states = process.stacks.thread_states()
            self._states_fresh = True
        return tid not in process.thread_states

    def _sample_one_worker(self, process: Process, workers: list[int], now: float) -> None:
        """One of the process's running native threads, at random, for all of them (module docstring)."""
        order = self._choose.sample(workers, len(workers)) if len(workers) > 1 else workers
        for tid in order:  # one that ended meanwhile gives no sample: the next stands in for it
            sample = self._sample_thread(process, tid, now, len(workers))
            if sample is not None:
                self.samples.append(sample)
                return

    def _sample_thread(self, process: Process, tid: int, now: float, weight: int = 1) -> Sample | None:
        held_from = time.perf_counter()
        self.stops += 1
        stopped, status = self._stopper.stop(tid)
        if not stopped:
            if status is not None and tid == self.root_pid:
                self.exit_status = status
            return None
        paused_from = time.perf_counter()
        try:
            registers = self._stopper.registers(tid)
            if registers is None:
                return None
            pc, sp, _ = registers
            stack = process.memory.read(sp, STACK_SCAN_BYTES)
            if stack is None:  # near the top of the stack mapping: read what there is
                stack = process.memory.read(sp, 512) or b""
            python: tuple[tuple[tuple[int, ...], int], ...] = ()
            chain: list[tuple[int, int]] = []
            headers: list[bytes | None] = []
            if process.stacks is not None:
                tstate = process.thread_states.get(tid)
                if tstate is None and not self._states_fresh:  # a new thread: walk the list once a round
                    process.thread_states = process.stacks.thread_states()
                    self._states_fresh = True
                    tstate = process.thread_states.get(tid)
                if tstate is not None:
                    chain = process.stacks.frame_chain(tstate)
                    headers = process.stacks.code_headers(chain)
        finally:
            self._stopper.resume(tid)
            resumed = time.perf_counter()
            self.held_s += resumed - held_from
            self.paused_s += resumed - paused_from
            self.pauses.append(resumed - paused_from)
        if chain and process.stacks is not None:
            python = tuple(process.stacks.resolve_chain(chain, headers))
        self._note_thread(process.pid, tid, bool(python))
        if process.maps_stale or (not process.maps(pc) and process.maps_read_round != self.rounds):
            # Code mapped since the last refresh (a library the program just loaded, whose threads run
            # at once: a threading layer's workers): read the mappings again, or this sample has no name.
            self._read_mappings(process)
        return Sample(process.pid, tid, now, pc, _candidates(stack, process.executable), python, 0, weight)

    def _note_thread(self, pid: int, tid: int, python: bool) -> None:
        if tid not in self.threads:
            self.threads[tid] = ThreadInfo(pid, tid, _thread_name(pid, tid))
        if python:
            self.threads[tid].python = True


def _map_compiling_table(folder: str, pid: int) -> mmap.mmap | None:
    try:
        with open(os.path.join(folder, f"compiling-{pid}.bin"), "rb") as handle:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None  # not written yet (Numba not imported), or not a Python process


def _running(pid: int, tid: int) -> bool:
    try:
        with open(f"/proc/{pid}/task/{tid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return _state(stat) == b"R"


def _state(stat: bytes) -> bytes:
    """The state letter of a /proc stat line: after the name in parentheses (which may hold one)."""
    end = stat.rfind(b")")
    return stat[end + 2 : end + 3]


def _thread_name(pid: int, tid: int) -> str:
    try:
        with open(f"/proc/{pid}/task/{tid}/comm", encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return "?"


def _executable_mappings(pid: int) -> tuple[list[tuple[int, int]], list[tuple[int, int, str]]]:
    """The executable mappings: [start, end) of those backed by no file (where LLVM's JIT puts code),
    and (start, end, path) of the files (to name the library a native sample is in)."""
    anonymous = []
    files = []
    try:
        with open(f"/proc/{pid}/maps", "rb") as handle:
            text = handle.read()
    except OSError:
        text = b""
    for line in text.split(b"\n"):
        # "start-end perms offset device inode  name": the permissions' third letter is x or -.
        space = line.find(b" ")
        if space < 0 or line[space + 3 : space + 4] != b"x":
            continue
        fields = line.split(maxsplit=5)
        start, end = (int(v, 16) for v in fields[0].split(b"-"))
        name = fields[5].strip() if len(fields) == 6 else b""
        if name.startswith((b"/", b"[v")):  # a file, or the kernel's [vdso] and [vsyscall]
            files.append((start, end, name.decode(errors="replace")))
        else:
            anonymous.append((start, end))
    return sorted(anonymous), sorted(files)


def _candidates(stack: bytes, executable: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    if not stack or not executable:
        return ()
    low, high = executable[0][0], executable[-1][1]
    words = struct.unpack(f"<{len(stack) // 8}Q", stack[: len(stack) // 8 * 8])
    found = []
    for position, word in enumerate(words):
        if low <= word < high:  # most words (numbers, heap and stack pointers) stop here
            index = bisect.bisect_right(executable, (word, 1 << 64)) - 1
            if index >= 0 and word < executable[index][1]:
                found.append((position * 8, word))
    return tuple(found)
