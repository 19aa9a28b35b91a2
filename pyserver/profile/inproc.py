"""The part of the profiler that runs inside the profiled program (imported by hook/sitecustomize.py).

Two jobs, both written to files in the profile folder so that they survive the program crashing:
- `write_layout`: where this interpreter keeps its threads and frames. The offsets are *measured* here,
  on live objects (never assumed from headers), and the file says "unavailable" with the reason when a
  measurement fails, so the sampler never reads Python frames through a wrong layout.
- `install_numba_listener`: line tables for jitted code (`numba_api.profile_lines`), the own time of
  every Numba compile, per function and signature, and a copy of each new JIT object registered with
  the GDB JIT interface (`__jit_debug_descriptor`): in-memory ELF objects whose code sections carry
  their load addresses, with DWARF line tables.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import struct
import sys
import threading
import time
import types
from typing import Any

from pyserver.profile.ptrace import Memory

# The first fields of the running frame (3.11+: _PyInterpreterFrame; f_executable in 3.13), checked below.
_FRAME_CODE_OFFSET = {(3, 11): 32, (3, 12): 0, (3, 13): 0}
_FRAME_PREVIOUS_OFFSET = {(3, 11): 48, (3, 12): 8, (3, 13): 8}
_FRAME_PREV_INSTR_OFFSET = {(3, 11): 56, (3, 12): 56, (3, 13): 56}
_FRAME_OWNER_OFFSET = {(3, 11): 69, (3, 12): 70, (3, 13): 70}
# 3.10: PyFrameObject (a heap object): f_back and f_code are measured, f_lasti (code units) checked.
_FRAME_OBJECT_LASTI_OFFSET = 96
SUPPORTED_PYTHONS = ((3, 10), (3, 11), (3, 12), (3, 13))


def _write_json(path: str, data: dict[str, Any]) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(temporary, path)


class _Probe:
    def __init__(self) -> None:
        self.memory = Memory(os.getpid())

    def words(self, address: int, count: int) -> tuple[int, ...]:
        data = self.memory.read(address, count * 8)
        if data is None:
            raise RuntimeError(f"cannot read {count * 8} bytes at {address:#x}")
        return struct.unpack(f"<{count}Q", data)

    def find_word(self, address: int, count: int, value: int, what: str) -> int:
        for index, word in enumerate(self.words(address, count)):
            if word == value:
                return index * 8
        raise RuntimeError(f"{what} not found")

    def caller_lasti(self) -> tuple[int | None, int]:
        """The caller's f_lasti as 3.10 keeps it (code units, read from memory) and as Python gives it
        (bytes), both while the caller waits on this call."""
        caller = sys._getframe(1)
        data = self.memory.read(id(caller) + _FRAME_OBJECT_LASTI_OFFSET, 4)
        return (None if data is None else struct.unpack("<i", data)[0]), caller.f_lasti

    def find_bytes(self, address: int, size: int, needle: bytes, what: str) -> int:
        data = self.memory.read(address, size)
        found = -1 if data is None else data.find(needle)
        if found < 0:
            raise RuntimeError(f"{what} not found")
        return found

    def running_codes(
        self, tstate: int, cframe_offset: int, frame_offset: int | None, code: int, previous: int
    ) -> list[int]:
        """The code objects of the three innermost frames that tstate says are running, through candidate
        offsets (`frame_offset` None: tstate points at the frame itself, as in 3.10 and 3.13). All reads
        happen at the same call depth, so that the frames read are still live."""
        cframe = self.memory.pointer(tstate + cframe_offset)
        if frame_offset is None:
            frame = cframe
        else:
            frame = self.memory.pointer(cframe + frame_offset) if cframe else None
        codes = []
        for _ in range(3):
            if not frame:
                break
            codes.append(self.memory.pointer(frame + code) or 0)
            frame = self.memory.pointer(frame + previous)
        return codes


def _probe_layout() -> dict[str, Any]:
    version = sys.version_info[:2]
    if version not in SUPPORTED_PYTHONS:
        supported = ", ".join(f"{major}.{minor}" for major, minor in SUPPORTED_PYTHONS)
        raise RuntimeError(f"Python {version[0]}.{version[1]} frames are not supported ({supported} are)")
    probe = _Probe()
    api = ctypes.pythonapi
    api.PyThreadState_Get.restype = ctypes.c_void_p
    api.PyInterpreterState_Main.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
    api.PyThreadState_Next.restype = ctypes.c_void_p
    api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
    tstate = api.PyThreadState_Get()
    interp = api.PyInterpreterState_Main()
    head = api.PyInterpreterState_ThreadHead(interp)
    # 3.13 keeps the thread list after the pending-calls table: several KiB into the interpreter.
    interp_head = probe.find_word(interp, 4096, head, "the interpreter's thread list")
    next_value = api.PyThreadState_Next(head) or 0
    if probe.words(head + 8, 1)[0] != next_value:
        raise RuntimeError("PyThreadState.next is not at offset 8")
    thread_ids = _probe_thread_ids(probe, tstate, version)
    frames = _probe_frames(probe, version)
    # The running frame, when the memory is read, is that of Memory.read (ctypes calls add no frame);
    # its caller is Memory.pointer, whose caller is running_codes.
    expected = [id(Memory.read.__code__), id(Memory.pointer.__code__), id(_Probe.running_codes.__code__)]
    found: tuple[int, int | None] | None = None
    # 3.11 and 3.12 reach the frame through tstate->cframe; 3.10 and 3.13 hold it in the thread state.
    frame_offsets: tuple[int | None, ...] = (None,) if version in ((3, 10), (3, 13)) else (0, 8)
    for cframe_offset in range(0, 64 * 8, 8):
        for frame_offset in frame_offsets:
            codes = probe.running_codes(
                tstate, cframe_offset, frame_offset, frames["frame_code"], frames["frame_previous"]
            )
            if codes == expected:
                found = (cframe_offset, frame_offset)
                break
        if found:
            break
    if found is None:
        raise RuntimeError("the running frame was not found through the thread state")
    return {
        "python": f"{version[0]}.{version[1]}",
        "interp": interp,
        "interp_threads_head": interp_head,
        "tstate_next": 8,
        **thread_ids,
        "tstate_cframe": found[0],
        "cframe_current_frame": found[1],  # None: tstate_cframe is the frame pointer itself
        **frames,
        **_probe_code_and_strings(probe, version),
        # Type objects' addresses (this process is the one sampled): an object read later is checked to
        # still be of its type, so freed memory is not decoded as a name or a line table.
        "object_type": 8,
        "type_code": id(types.CodeType),
        "type_str": id(str),
        "type_bytes": id(bytes),
    }


def _probe_thread_ids(probe: _Probe, tstate: int, version: tuple[int, int]) -> dict[str, int]:
    native = threading.get_native_id()
    if version >= (3, 11):
        return {
            "tstate_native_thread_id": probe.find_word(tstate, 64, native, "PyThreadState.native_thread_id")
        }
    # 3.10 keeps only pthread_self(): the address of glibc's thread descriptor, which holds the kernel's
    # thread id at an offset found here.
    thread_id = probe.find_word(tstate, 64, threading.get_ident(), "PyThreadState.thread_id")
    tid_offset = probe.find_bytes(threading.get_ident(), 4096, struct.pack("<i", native), "the pthread's tid")
    return {"tstate_thread_id": thread_id, "pthread_tid": tid_offset}


def _probe_frames(probe: _Probe, version: tuple[int, int]) -> dict[str, Any]:
    if version != (3, 10):
        return {
            "frame_code": _FRAME_CODE_OFFSET[version],
            "frame_previous": _FRAME_PREVIOUS_OFFSET[version],
            "frame_prev_instr": _FRAME_PREV_INSTR_OFFSET[version],
            "frame_owner": _FRAME_OWNER_OFFSET[version],
        }
    frame = sys._getframe()
    code = probe.find_word(id(frame), 8, id(frame.f_code), "PyFrameObject.f_code")
    previous = probe.find_word(id(frame), 8, id(frame.f_back), "PyFrameObject.f_back")
    lasti, lasti_bytes = probe.caller_lasti()
    if lasti is None or lasti != lasti_bytes // 2:  # the attribute is in bytes, the field in units
        raise RuntimeError(f"PyFrameObject.f_lasti is not at offset {_FRAME_OBJECT_LASTI_OFFSET}")
    return {
        "frame_object": True,
        "frame_code": code,
        "frame_previous": previous,
        "frame_lasti": _FRAME_OBJECT_LASTI_OFFSET,
    }


def _probe_code_and_strings(probe: _Probe, version: tuple[int, int]) -> dict[str, Any]:
    # Code objects: compiled here, never run, so that co_code_adaptive still equals co_code.
    source = "\n" * 12344 + "def numba_lens_probe(a):\n    return a + 1\n"
    module_code = compile(source, "/numba_lens/probe_file.py", "exec")
    code_object = next(c for c in module_code.co_consts if hasattr(c, "co_code"))
    size = sys.getsizeof(code_object) + 64
    words = size // 8
    # 3.10 has no co_qualname: the name is co_name.
    name = code_object.co_qualname if version >= (3, 11) else code_object.co_name
    fields: dict[str, Any] = {
        "code_filename": probe.find_word(id(code_object), words, id(code_object.co_filename), "co_filename"),
        "code_qualname": probe.find_word(id(code_object), words, id(name), "co_qualname"),
        "code_linetable": probe.find_word(
            id(code_object), words, id(code_object.co_linetable), "co_linetable"
        ),
        "code_firstlineno": probe.find_bytes(
            id(code_object), size, struct.pack("<i", code_object.co_firstlineno), "co_firstlineno"
        ),
    }
    if version == (3, 10):
        # The instructions are a bytes object of their own (co_code): its size is what the table covers.
        fields["code_bytecode"] = probe.find_word(id(code_object), words, id(code_object.co_code), "co_code")
        fields["linetable_format"] = "3.10"
    else:
        # The instructions (co_code_adaptive) end the object: the code type's basic size is their offset.
        # Checked on the first instruction (RESUME, which is never specialised before it runs).
        fields["code_instructions"] = types.CodeType.__basicsize__
        first = probe.memory.read(id(code_object) + types.CodeType.__basicsize__, 2)
        if first != code_object.co_code[:2]:
            raise RuntimeError("co_code_adaptive is not at the code type's basic size")
        fields["code_units"] = 16  # ob_size: the code's instructions, which its line table covers exactly
    ascii_text = "numba_lens_ascii_probe"
    latin_text = "numba_lens_\xe9_probe"
    bytes_value = b"numba_lens_bytes_probe"
    return {
        **fields,
        "unicode_length": 16,
        "unicode_state": 32,
        "unicode_ascii_data": probe.find_bytes(id(ascii_text), 128, ascii_text.encode("ascii"), "ASCII data"),
        "unicode_compact_data": probe.find_bytes(
            id(latin_text), 128, latin_text.encode("latin-1"), "compact string data"
        ),
        "bytes_size": 16,
        "bytes_data": probe.find_bytes(id(bytes_value), 64, bytes_value, "bytes data"),
    }


def write_layout(folder: str) -> None:
    try:
        layout: dict[str, Any] = {"available": True, **_probe_layout()}
    except Exception as exc:
        layout = {"available": False, "reason": str(exc)}
    path = os.path.join(folder, f"layout-{os.getpid()}.json")
    _write_json(path, layout)
    # A forked child has the same interpreter at the same addresses: it gets its own copy of the file.
    os.register_at_fork(
        after_in_child=lambda: _write_json(os.path.join(folder, f"layout-{os.getpid()}.json"), layout)
    )


# ---------------------------------------------------------------------------------------------- Numba


def elf_sections(data: Any) -> list[tuple[str, int, int, int, int, int]]:
    """(name, type, address, offset, size, link) of each section of a 64-bit little-endian ELF image."""
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset = raw[shstrndx][4]
    sections = []
    for name, kind, _flags, address, offset, size, link, _info, _align, _entsize in raw:
        end = data.find(b"\0", names_offset + name)
        sections.append((data[names_offset + name : end].decode(), kind, address, offset, size, link))
    return sections


def _symbol_value(
    data: Any, sections: list[tuple[str, int, int, int, int, int]], table: str, name: str
) -> int:
    import numpy as np

    section = next((s for s in sections if s[0] == table), None)
    if section is None:
        raise RuntimeError(f"no {table} in libllvmlite")
    strings = sections[section[5]]
    names = data[strings[3] : strings[3] + strings[4]]
    name_offset = names.find(b"\0" + name.encode() + b"\0") + 1
    if name_offset <= 0:
        raise RuntimeError(f"{name} not in {table}")
    entry = np.dtype(
        [
            ("name", "<u4"),
            ("info", "u1"),
            ("other", "u1"),
            ("shndx", "<u2"),
            ("value", "<u8"),
            ("size", "<u8"),
        ]
    )
    symbols = np.frombuffer(data[section[3] : section[3] + section[4]], dtype=entry)
    matches = np.nonzero(symbols["name"] == name_offset)[0]
    if len(matches) == 0:
        raise RuntimeError(f"{name} not in {table}")
    return int(symbols["value"][matches[0]])


def _jit_descriptor_address() -> int:
    """`__jit_debug_descriptor` is a local symbol of libllvmlite (not exported): found through .symtab."""
    import mmap

    from pyserver.numba_api import profile_lines

    path = profile_lines.llvmlite_library_path()
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        sections = elf_sections(mapped)
        descriptor = _symbol_value(mapped, sections, ".symtab", "__jit_debug_descriptor")
        exported = _symbol_value(mapped, sections, ".dynsym", "LLVMPY_GetVersionInfo")
    library = ctypes.CDLL(path)
    base = ctypes.cast(library.LLVMPY_GetVersionInfo, ctypes.c_void_p).value
    if base is None:
        raise RuntimeError("LLVMPY_GetVersionInfo has no address")
    return base - exported + descriptor


class _JitObjects:
    """Copies the GDB JIT interface's new entries (ELF images) to files, once each."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.descriptor = _jit_descriptor_address()
        self.copied: set[int] = set()
        self.lock = threading.Lock()

    def copy_new(self) -> list[str]:
        """The names of the files written: the objects registered since the last call."""
        written: list[str] = []
        with self.lock:
            # struct jit_descriptor { uint32 version, action; entry *relevant, *first; }
            # struct jit_code_entry { entry *next, *prev; const char *symfile_addr; uint64 symfile_size; }
            entry = ctypes.c_void_p.from_address(self.descriptor + 16).value
            while entry:
                next_entry, _previous, address, size = struct.unpack("<QQQQ", ctypes.string_at(entry, 32))
                if address not in self.copied:
                    self.copied.add(address)
                    path = os.path.join(self.folder, f"jit-{os.getpid()}-{address:x}.o")
                    with open(path + ".tmp", "wb") as handle:
                        handle.write(ctypes.string_at(address, size))
                    os.replace(path + ".tmp", path)
                    written.append(os.path.basename(path))
                entry = next_entry
        return written


# One slot per thread that has compiled: (native thread id, the id of the compile it is in or 0).
COMPILING_SLOTS = 256


class _CompilingTable:
    """Which compile each thread is in, in a file that the sampler maps too: it reads the table at each
    tick and takes a compiling thread's sample from it, without stopping the thread (a compile runs a
    deep Python stack, which is costly to stop and walk; where the compile was called from is known
    here, at its start). Each value is one aligned 8-byte store, which the sampler cannot see torn."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.lock = threading.Lock()
        self._open()
        os.register_at_fork(after_in_child=self._open)  # a forked child gets a table of its own

    def _open(self) -> None:
        path = os.path.join(self.folder, f"compiling-{os.getpid()}.bin")
        size = COMPILING_SLOTS * 16
        with open(path + ".tmp", "wb+") as handle:
            handle.write(b"\0" * size)
            handle.flush()
            self.map = mmap.mmap(handle.fileno(), size)
        os.replace(path + ".tmp", path)
        self.words = (ctypes.c_int64 * (2 * COMPILING_SLOTS)).from_buffer(self.map)
        self.slots: dict[int, int] = {}

    def set(self, compile_id: int) -> None:
        tid = threading.get_native_id()
        slot = self.slots.get(tid)
        if slot is None:
            with self.lock:
                if len(self.slots) >= COMPILING_SLOTS:
                    return  # this thread's compiles are sampled as any other code
                slot = self.slots[tid] = len(self.slots)
                self.words[2 * slot] = tid
        self.words[2 * slot + 1] = compile_id


def _calling_frames(package_dirs: tuple[str, ...]) -> list[list[Any]]:
    """[path, name, line] of the Python frames that led to a compile, outermost first, up to the first
    frame inside Numba (or llvmlite, or this hook): the code that called the function being compiled."""
    frames: list[types.FrameType] = []
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    result: list[list[Any]] = []
    for frame in reversed(frames):
        code = frame.f_code
        path = os.path.abspath(code.co_filename) if not code.co_filename.startswith("<") else code.co_filename
        if path.startswith(package_dirs):
            break
        result.append([path, getattr(code, "co_qualname", code.co_name), frame.f_lineno])
    return result


def _signature(args: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(a) for a in args) + ")"


def install_numba_listener(folder: str) -> None:
    from pyserver.numba_api import profile_lines

    if os.environ.get("NUMBA_LENS_LINE_TABLES", "1") != "0":
        try:
            profile_lines.line_tables_only()
        except Exception as exc:  # the jitted lines only: the rest of the profile stands
            print(f"numba-lens: jitted code will have no line tables: {exc!r}", file=sys.stderr)
    try:
        profile_lines.parse_each_file_once()
    except Exception as exc:  # an optimisation only
        print(f"numba-lens: compiles will be slower under the profiler: {exc!r}", file=sys.stderr)

    objects = _JitObjects(folder)
    objects.copy_new()
    compiling = _CompilingTable(folder)
    hook_package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    package_dirs = (*profile_lines.compiler_package_dirs(), hook_package)
    compile_ids = iter(range(1, 1 << 62))
    compiles_path = os.path.join(folder, f"compiles-{os.getpid()}.jsonl")
    local = threading.local()
    write_lock = threading.Lock()

    def stack() -> list[list[Any]]:
        if not hasattr(local, "stack"):
            local.stack = []
        result: list[list[Any]] = local.stack
        return result

    def record(
        data: dict[str, Any], seconds: float, objects_written: list[str], ids: tuple[int, int, Any]
    ) -> None:
        dispatcher = data.get("dispatcher")
        py_func = getattr(dispatcher, "py_func", None)
        code = getattr(py_func, "__code__", None)
        args = tuple(data.get("args") or ())
        overload = getattr(dispatcher, "overloads", {}).get(args)
        lines = [line for _, _, line in code.co_lines() if line is not None] if code is not None else []
        fndesc = getattr(overload, "fndesc", None)
        entry = {
            "pid": os.getpid(),
            "path": os.path.abspath(code.co_filename) if code is not None else None,
            "name": getattr(py_func, "__qualname__", None),
            "signature": _signature(args),
            "seconds": round(seconds, 6),
            "ok": overload is not None,
            "mangled": getattr(fndesc, "mangled_name", None),
            "first_line": code.co_firstlineno if code is not None else None,
            "last_line": max(lines) if lines else None,
            "kind": type(dispatcher).__name__,
            # Objects registered during this compile and not by a nested one: its prange bodies (gufuncs
            # compiled from generated source, whose line tables name "<string>" but hold the user's lines).
            "objects": objects_written,
            "body_lines": sorted(set(lines[1:])),
            # What the sampler's samples of this compile show: the code that called it (outermost
            # compile only) and the compile it is nested in.
            "id": ids[0],
            "parent": ids[1],
            "callers": ids[2],
        }
        with write_lock, open(compiles_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    def started(data: dict[str, Any]) -> None:
        frames = stack()
        compile_id = next(compile_ids)
        parent = frames[-1][2] if frames else 0
        callers = None
        if not frames:
            try:
                callers = _calling_frames(package_dirs)
            except Exception:  # profiling must never break the user's compile: no callers then
                callers = []
        frames.append([time.perf_counter(), 0.0, compile_id, parent, callers])
        compiling.set(compile_id)

    def ended(data: dict[str, Any]) -> None:
        try:
            frames = stack()
            if not frames:
                return
            start, nested, compile_id, parent, callers = frames.pop()
            compiling.set(parent)
            total = time.perf_counter() - start
            if frames:
                frames[-1][1] += total
            written = objects.copy_new()
            record(data, max(total - nested, 0.0), written, (compile_id, parent, callers))
        except Exception as exc:  # profiling must never break the user's program
            print(f"numba-lens: a compile was not recorded: {exc!r}", file=sys.stderr)

    profile_lines.on_compile(started, ended)
    import atexit

    atexit.register(objects.copy_new)  # objects compiled outside a dispatcher (cfunc, vectorize)
