"""Linux system calls the sampler needs, through ctypes: ptrace stops and reads of another process's memory.

x86-64 only (the register layout below); `supported()` says why not elsewhere. No root is needed when
the sampled program is the profiler's child (Yama's ptrace_scope 1 allows tracing descendants).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
_libc.process_vm_readv.restype = ctypes.c_ssize_t
_libc.process_vm_readv.argtypes = [
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_ulong,
    ctypes.c_void_p,
    ctypes.c_ulong,
    ctypes.c_ulong,
]

PTRACE_GETREGS = 12
PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_INTERRUPT = 0x4207
PTRACE_EVENT_STOP = 128
WALL = 0x40000000

PAGE = 4096

# struct user_regs_struct on x86-64: 27 unsigned longs.
_REGS_COUNT = 27
REG_RBP = 4
REG_RIP = 16
REG_RSP = 19


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def supported() -> str | None:
    """None when sampling can work on this machine, else the reason it cannot."""
    if not platform.system() == "Linux":
        return f"sampling needs Linux (this is {platform.system()})"
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"sampling reads x86-64 registers (this machine is {platform.machine()})"
    return None


class Memory:
    """Reads another process's memory (or this one's, safely: a bad address gives None, not a crash)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._buffer = ctypes.create_string_buffer(1 << 16)
        self._local = _IoVec(ctypes.cast(self._buffer, ctypes.c_void_p), 0)
        self._remote = _IoVec(None, 0)

    def read(self, address: int, size: int) -> bytes | None:
        if address <= 0 or size <= 0:
            return None
        if size > len(self._buffer):
            self._buffer = ctypes.create_string_buffer(size)
            self._local.base = ctypes.cast(self._buffer, ctypes.c_void_p)
        self._local.length = size
        self._remote.base = address
        self._remote.length = size
        got = _libc.process_vm_readv(self.pid, ctypes.byref(self._local), 1, ctypes.byref(self._remote), 1, 0)
        if got != size:
            return None
        return self._buffer.raw[:size]

    def read_many(self, addresses: list[int], size: int) -> list[bytes | None]:
        """`size` bytes at each address, in one system call when all are readable (else one by one)."""
        count = len(addresses)
        if count == 0:
            return []
        if count > 1024 or any(a <= 0 for a in addresses):  # IOV_MAX; a bad address fails the batch
            return [self.read(a, size) for a in addresses]
        buffer = ctypes.create_string_buffer(size * count)
        base = ctypes.addressof(buffer)
        local = (_IoVec * count)(*[_IoVec(base + i * size, size) for i in range(count)])
        remote = (_IoVec * count)(*[_IoVec(a, size) for a in addresses])
        got = _libc.process_vm_readv(self.pid, local, count, remote, count, 0)
        if got == size * count:
            raw = buffer.raw
            return [raw[i * size : (i + 1) * size] for i in range(count)]
        return [self.read(a, size) for a in addresses]  # one failed: find which, keep the others

    def read_below(self, end: int, pages: int) -> tuple[int, bytes]:
        """(start, bytes) of the readable memory just below `end`, up to `pages` pages, in one system
        call: the remote pieces go from the top page down, so the read stops at the first unreadable
        page below and keeps what lies above it."""
        if end <= 0 or pages <= 0:
            return end, b""
        top_page = (end - 1) & ~(PAGE - 1)
        pieces = [(top_page, end - top_page)]
        pieces += [(top_page - i * PAGE, PAGE) for i in range(1, pages) if top_page - i * PAGE > 0]
        total = sum(length for _, length in pieces)
        buffer = ctypes.create_string_buffer(total)
        base = ctypes.addressof(buffer)
        local = (_IoVec * len(pieces))()
        remote = (_IoVec * len(pieces))()
        for i, (address, length) in enumerate(pieces):
            local[i] = _IoVec(base + address - (end - total), length)
            remote[i] = _IoVec(address, length)
        got = _libc.process_vm_readv(self.pid, local, len(pieces), remote, len(pieces), 0)
        if got <= 0:
            return end, b""
        return end - got, buffer.raw[total - got :]

    def pointer(self, address: int) -> int | None:
        data = self.read(address, 8)
        return None if data is None else int.from_bytes(data, "little")


class ThreadStop:
    """Stops one thread with PTRACE_SEIZE + PTRACE_INTERRUPT and lets it go with PTRACE_DETACH.

    Attaching for each sample (as py-spy does) means that nothing stays traced if the profiler dies,
    and that the program's own signals (a crash's SIGSEGV included) are passed on untouched.
    """

    def __init__(self) -> None:
        self._regs = (ctypes.c_ulong * _REGS_COUNT)()
        self._status = ctypes.c_int()

    def stop(self, tid: int) -> tuple[bool, int | None]:
        """(stopped, wait status if the thread ended meanwhile: the caller may have reaped its child)."""
        if _libc.ptrace(PTRACE_SEIZE, tid, None, None) != 0:
            return False, None
        if _libc.ptrace(PTRACE_INTERRUPT, tid, None, None) != 0:
            _libc.ptrace(PTRACE_DETACH, tid, None, None)
            return False, None
        while True:
            try:
                _, status = os.waitpid(tid, WALL)
            except ChildProcessError:
                return False, None
            except InterruptedError:
                continue
            break
        if os.WIFEXITED(status) or os.WIFSIGNALED(status):
            return False, status
        if os.WIFSTOPPED(status) and (status >> 16) == PTRACE_EVENT_STOP:
            return True, None
        # A signal reached the thread first (a signal-delivery-stop): hand it back untouched, no sample.
        signal_number = os.WSTOPSIG(status) if os.WIFSTOPPED(status) else 0
        _libc.ptrace(PTRACE_DETACH, tid, None, ctypes.c_void_p(signal_number))
        return False, None

    def registers(self, tid: int) -> tuple[int, int, int] | None:
        """(rip, rsp, rbp) of a stopped thread."""
        if _libc.ptrace(PTRACE_GETREGS, tid, None, ctypes.byref(self._regs)) != 0:
            return None
        return self._regs[REG_RIP], self._regs[REG_RSP], self._regs[REG_RBP]

    def resume(self, tid: int) -> None:
        if _libc.ptrace(PTRACE_DETACH, tid, None, None) != 0 and ctypes.get_errno() != errno.ESRCH:
            pass  # the thread is gone or was never stopped: nothing to resume


def words(data: bytes) -> tuple[int, ...]:
    return struct.unpack(f"<{len(data) // 8}Q", data[: len(data) // 8 * 8])
