"""Runs inside gdb's Python (loaded with `source`): the MI command `-numba-lens-frame THREAD LEVEL`.

One round trip returns, for one jitted frame, every variable gdb knows with its DWARF type name, its
layout and its raw bytes as hex ("??" for bytes gdb cannot read: optimized out, synthetic pointers),
plus, when the frame was entered from Python, the Python arguments read from the dispatcher frame
(the `args` tuple of `compile_and_invoke`, or of CPython's call into `Dispatcher_call`). Interpretation (Numba types, liveness, folding) happens in
pyserver/debug/values/; this file only reads. It must import nothing but gdb and the standard
library: it runs in gdb's interpreter, not the adapter's.
"""

# mypy: ignore-errors
from __future__ import annotations

import re
import struct

import gdb  # type: ignore[import-not-found]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\$\d+)?$")
_MAX_VALUE_BYTES = 4096


def _code_name(code):
    names = {
        gdb.TYPE_CODE_STRUCT: "struct",
        gdb.TYPE_CODE_ARRAY: "array",
        gdb.TYPE_CODE_INT: "int",
        gdb.TYPE_CODE_FLT: "float",
        gdb.TYPE_CODE_BOOL: "bool",
        gdb.TYPE_CODE_PTR: "ptr",
        gdb.TYPE_CODE_CHAR: "int",
        gdb.TYPE_CODE_ENUM: "int",
        gdb.TYPE_CODE_UNION: "struct",
        gdb.TYPE_CODE_ERROR: "int",
    }
    return names.get(code, "other")


def _layout(gdb_type, depth=0, with_target_done=False):
    stripped = gdb_type.strip_typedefs()
    kind = _code_name(stripped.code)
    out = {"code": kind, "size": str(stripped.sizeof), "type": gdb_type.name or stripped.name or ""}
    if depth > 6:
        return out
    if kind == "struct":
        out["fields"] = [
            dict(
                _layout(field.type, depth + 1, with_target_done),
                name=field.name or "",
                offset=str(field.bitpos // 8),
            )
            for field in stripped.fields()
            if not field.is_base_class
        ]
    elif kind == "array":
        low, high = stripped.range()
        out["count"] = str(high - low + 1)
        out["elem"] = _layout(stripped.target(), depth + 1, True)
    elif kind == "ptr" and depth <= 1 and not with_target_done:
        target = stripped.target()
        # One level of pointee (a jitclass's `data` member points at its fields).
        out["target"] = _layout(target, depth + 1, True)
    return out


def _read_leaf(value, stripped):
    size = stripped.sizeof
    if stripped.code == gdb.TYPE_CODE_FLT:
        number = float(value)
        fmt = {8: "<d", 4: "<f", 2: "<e"}.get(size)
        if fmt is None:
            raise gdb.error("unsupported float size")
        return struct.pack(fmt, number)
    try:
        number = int(value)
    except gdb.error:
        # Numba's DWARF `bool` has no usable encoding (gdb's TYPE_CODE_ERROR): read it as bytes.
        unsigned = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long"}[size]
        number = int(value.cast(gdb.lookup_type(unsigned)))
    return (number & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _read_into(value, out, known, offset):
    """Fill out[offset:] with the value's bytes, marking known bytes; parts gdb cannot read stay
    unknown. Prefers one memory read when the value lives in memory."""
    stripped = value.type.strip_typedefs()
    size = stripped.sizeof
    if size <= 0 or offset + size > len(out):
        return
    try:
        if value.address is not None and not value.is_optimized_out:
            data = bytes(gdb.selected_inferior().read_memory(int(value.address), size))
            out[offset : offset + size] = data
            for index in range(offset, offset + size):
                known[index] = True
            return
    except gdb.error:
        pass
    except gdb.MemoryError:
        pass
    code = stripped.code
    if code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        for field in stripped.fields():
            if field.is_base_class or field.bitpos is None:
                continue
            try:
                _read_into(value[field], out, known, offset + field.bitpos // 8)
            except gdb.error:
                continue
        return
    if code == gdb.TYPE_CODE_ARRAY:
        low, high = stripped.range()
        elem_size = stripped.target().strip_typedefs().sizeof
        for index in range(low, high + 1):
            try:
                _read_into(value[index], out, known, offset + (index - low) * elem_size)
            except gdb.error:
                continue
        return
    try:
        data = _read_leaf(value, stripped)
    except (gdb.error, ValueError, OverflowError, KeyError):
        return
    out[offset : offset + len(data)] = data
    for index in range(offset, offset + len(data)):
        known[index] = True


def _hex_bytes(value):
    size = value.type.strip_typedefs().sizeof
    if size <= 0 or size > _MAX_VALUE_BYTES:
        return ""
    out = bytearray(size)
    known = [False] * size
    try:
        _read_into(value, out, known, 0)
    except gdb.error:
        pass
    return "".join(f"{byte:02x}" if ok else "??" for byte, ok in zip(out, known, strict=False))


def _read(address, size):
    return bytes(gdb.selected_inferior().read_memory(address, size))


def _u64(address):
    return int.from_bytes(_read(address, 8), "little")


def _i64(address):
    return int.from_bytes(_read(address, 8), "little", signed=True)


def _c_string(address, limit=80):
    data = _read(address, limit)
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


def _python_minor():
    """CPython's minor version of the inferior (Py_Version exists since 3.11), or None."""
    for expression in ("Py_Version", "*(unsigned int *)&Py_Version"):
        try:
            version = int(gdb.parse_and_eval(expression))
            return (version >> 16) & 0xFF
        except gdb.error:
            continue
    return None


def _py_int(address, minor):
    if minor is not None and minor >= 12:
        tag = _u64(address + 16)
        ndigits = tag >> 3
        sign = 1 - (tag & 3)
    else:
        size = _i64(address + 16)
        ndigits = abs(size)
        sign = (size > 0) - (size < 0)
    if ndigits > 8:
        raise ValueError("integer too large to show")
    raw = _read(address + 24, 4 * ndigits) if ndigits else b""
    value = 0
    for index in range(ndigits):
        digit = int.from_bytes(raw[4 * index : 4 * index + 4], "little")
        value |= digit << (30 * index)
    return sign * value


def _struct_size(name, fallback):
    try:
        return gdb.lookup_type(name).sizeof
    except gdb.error:
        return fallback


def _py_str(address, minor):
    """A compact str (every str made since 3.3 is compact; 3.12 dropped the legacy forms)."""
    length = _i64(address + 16)
    state = int.from_bytes(_read(address + 32, 4), "little")
    kind = (state >> 2) & 7
    compact = (state >> 5) & 1
    ascii_only = (state >> 6) & 1
    if not compact or kind not in (1, 2, 4) or not 0 <= length <= 100_000:
        return {}
    legacy = minor is None or minor < 12
    if ascii_only:
        header = _struct_size("PyASCIIObject", 48 if legacy else 40)
    else:
        header = _struct_size("PyCompactUnicodeObject", 72 if legacy else 56)
    raw = _read(address + header, length * kind)
    encoding = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind]
    return {"kind": "str", "value": raw.decode(encoding, "replace")}


_NUMPY_INT = re.compile(r"^numpy\.(u?int)(8|16|32|64)$")


def _py_object(address, minor, depth=0):
    """What the debuggee passed: {kind, tp, value, ...}, read from memory without running code."""
    type_address = _u64(address + 8)
    tp_name = _c_string(_u64(type_address + 24))
    out = {"tp": tp_name, "kind": "other"}
    if tp_name == "bool":
        out["kind"], out["value"] = "bool", "True" if _py_int(address, minor) else "False"
    elif tp_name == "int":
        out["kind"], out["value"] = "int", str(_py_int(address, minor))
    elif tp_name in ("float", "numpy.float64"):
        out["kind"], out["value"] = "float", repr(struct.unpack("<d", _read(address + 16, 8))[0])
    elif tp_name == "numpy.float32":
        out["kind"], out["value"] = "float", repr(struct.unpack("<f", _read(address + 16, 4))[0])
    elif tp_name in ("complex", "numpy.complex128", "numpy.complex64"):
        fmt, size = ("<ff", 8) if tp_name == "numpy.complex64" else ("<dd", 16)
        real, imag = struct.unpack(fmt, _read(address + 16, size))
        out["kind"], out["value"], out["real"], out["imag"] = (
            "complex",
            repr(complex(real, imag)),
            repr(real),
            repr(imag),
        )
    elif tp_name == "numpy.bool":
        out["kind"], out["value"] = "bool", "True" if _read(address + 16, 1) != b"\0" else "False"
    elif _NUMPY_INT.match(tp_name):
        match = _NUMPY_INT.match(tp_name)
        width = int(match.group(2)) // 8
        value = int.from_bytes(_read(address + 16, width), "little", signed=match.group(1) == "int")
        out["kind"], out["value"] = "int", str(value)
    elif tp_name == "str":
        out.update(_py_str(address, minor))
    elif tp_name == "tuple" and depth == 0:
        count = _i64(address + 16)
        if 0 <= count <= 64:
            out["kind"] = "tuple"
            out["items"] = [_py_object(_u64(address + 24 + 8 * i), minor, depth + 1) for i in range(count)]
    elif tp_name == "numpy.ndarray":
        # PyArrayObject_fields: data @16, nd @24 (int), dimensions @32, strides @40 (NumPy 1.x and 2.x).
        nd = int.from_bytes(_read(address + 24, 4), "little", signed=True)
        if not 0 <= nd <= 32:
            return out
        dims = _u64(address + 32)
        strides = _u64(address + 40)
        out["kind"] = "ndarray"
        out["data"] = str(_u64(address + 16))
        out["nd"] = str(nd)
        out["shape"] = [str(_i64(dims + 8 * i)) for i in range(nd)]
        out["strides"] = [str(_i64(strides + 8 * i)) for i in range(nd)]
    return out


DISPATCHER_FRAMES = ("compile_and_invoke", "call_cfunc", "Dispatcher_call")  # numba/_dispatcher.cpp


def _entry_args(frame):
    """The Python arguments of an entry call: the caller must be Numba's cpython:: wrapper, called
    from Numba's dispatcher (numba/_dispatcher.cpp) with the folded `args` tuple and no keywords."""
    wrapper = frame.older()
    if wrapper is None or not (wrapper.name() or "").startswith("cpython::"):
        return None, "not called from Python"
    if (wrapper.name() or "")[len("cpython::") :] != (frame.name() or ""):
        return None, "the wrapper above is not this function's"
    # The first call of a signature compiles it (Dispatcher_call -> compile_and_invoke -> call_cfunc);
    # later calls go Dispatcher_call -> call_cfunc, which the compiler inlines. Each of them holds the
    # folded `args` (find_named_args rewrote Dispatcher_call's through &args), but in Dispatcher_call
    # it is usually optimized out: then CPython's caller's tuple, when it is surely the same values.
    dispatcher = wrapper.older()
    hops = 0
    while dispatcher is not None and dispatcher.name() not in DISPATCHER_FRAMES and hops < 2:
        dispatcher = dispatcher.older()
        hops += 1
    if dispatcher is None or dispatcher.name() not in DISPATCHER_FRAMES:
        return None, "dispatcher frame not found"
    try:
        args = dispatcher.read_var("args")
        kws = dispatcher.read_var("kws")
    except (gdb.error, ValueError) as exc:
        return None, f"dispatcher arguments unreadable ({exc})"
    if (args.is_optimized_out or int(args) == 0) and dispatcher.name() == "Dispatcher_call":
        args, kws, why = _caller_args(dispatcher)
        if args is None:
            return None, why
    if args.is_optimized_out or int(args) == 0:
        return None, "dispatcher arguments optimized out"
    if not kws.is_optimized_out and int(kws) != 0:
        return None, "called with keyword arguments"
    minor = _python_minor()
    address = int(args)
    try:
        if _c_string(_u64(_u64(address + 8) + 24)) != "tuple":
            return None, "dispatcher args is not a tuple"
        count = _i64(address + 16)
        if not 0 <= count <= 256:
            return None, "dispatcher args tuple unreadable"
        items = []
        for index in range(count):
            item = _u64(address + 24 + 8 * index)
            try:
                items.append(_py_object(item, minor))
            except (gdb.error, gdb.MemoryError, ValueError, UnicodeDecodeError) as exc:
                items.append({"kind": "other", "tp": "", "error": str(exc)})
        return items, ""
    except (gdb.error, gdb.MemoryError) as exc:
        return None, f"dispatcher args unreadable ({exc})"


# CPython's callers of a type's tp_call, and the names of their (callable, args tuple, kwargs dict).
_TP_CALLERS = {
    "_PyObject_MakeTpCall": ("callable", "argstuple", "kwdict"),
    "_PyObject_Call": ("callable", "args", "kwargs"),
}


def _caller_args(dispatcher):
    """Dispatcher_call's `args` read from the CPython frame that called it: the tuple as Python passed
    it, before Numba folded it. Used only when folding changes nothing: no keywords and no *args (defaults
    would make it shorter than the parameters, which the adapter then refuses), and the callable is this
    dispatcher."""
    caller = dispatcher.older()
    names = _TP_CALLERS.get(caller.name() if caller is not None else "")
    if names is None:
        return None, None, "dispatcher arguments optimized out"
    try:
        self = dispatcher.read_var("self")
        callable_, args, kws = (caller.read_var(name) for name in names)
        if self.is_optimized_out or callable_.is_optimized_out or int(self) != int(callable_):
            return None, None, "dispatcher arguments optimized out"
        if int(self.dereference()["has_stararg"]) != 0:
            return None, None, "the function takes *args (Numba repacks them)"
    except (gdb.error, gdb.MemoryError, ValueError) as exc:
        return None, None, f"dispatcher arguments unreadable ({exc})"
    if args.is_optimized_out or kws.is_optimized_out:
        return None, None, "dispatcher arguments optimized out"
    return args, kws, ""


# gdb 13 prints INDEX LINE ADDRESS IS-STMT ..., gdb 16 and newer INDEX LINE REL-ADDRESS UNREL-ADDRESS
# IS-STMT ...: the address is the first (relocated) one, the flag is read in its header's column.
_TABLE_ROW = re.compile(r"^\s*\d+\s+(\d+)\s+(0x[0-9a-fA-F]+)")
_STMT_CACHE = {}


def _at_line_start(frame, sal):
    """Whether the frame's pc is where its line starts (an is_stmt address of the line in gdb's line
    table): a breakpoint's or a step's stop. A Step Out's (`finish`) or a pause's stands inside the
    line, where earlier statements of the line have run. None when the line table is not readable."""
    if sal is None or sal.symtab is None or not sal.line:
        return None
    key = (sal.symtab.objfile.filename, sal.symtab.fullname())
    rows = _STMT_CACHE.get(key)
    if rows is None:
        name = re.escape(sal.symtab.filename.rsplit("/", 1)[-1])
        try:
            text = gdb.execute(f"maint info line-table {name}$", to_string=True)
        except gdb.error:
            return None
        rows = set()
        stmt_column = None
        for raw in text.splitlines():
            if "IS-STMT" in raw:
                stmt_column = raw.index("IS-STMT")
                continue
            match = _TABLE_ROW.match(raw)
            if match and stmt_column is not None and raw[stmt_column : stmt_column + 7].strip() == "Y":
                rows.add((int(match.group(2), 16), int(match.group(1))))
        _STMT_CACHE[key] = rows
    return (frame.pc(), sal.line) in rows


def _find_frame(thread_num, level):
    thread = None
    for candidate in gdb.selected_inferior().threads():
        if candidate.global_num == thread_num:
            thread = candidate
            break
    if thread is None or not thread.is_valid():
        raise gdb.GdbError(f"no thread {thread_num} (the program is not stopped there)")
    thread.switch()
    frame = gdb.newest_frame()
    for _ in range(level):
        frame = frame.older()
        if frame is None:
            raise gdb.GdbError(f"no frame {level}")
    return frame


def frame_report(thread_num, level):
    previous_thread = gdb.selected_thread()
    try:
        previous_frame = gdb.selected_frame()
    except gdb.error:
        previous_frame = None
    try:
        frame = _find_frame(thread_num, level)
        frame.select()
        sal = frame.find_sal()
        variables = []
        seen = set()
        try:
            block = frame.block()
        except RuntimeError:
            block = None
        while block is not None and not block.is_global and not block.is_static:
            for symbol in block:
                if not (symbol.is_variable or symbol.is_argument) or symbol.name in seen:
                    continue
                if not _NAME.match(symbol.name):
                    continue
                seen.add(symbol.name)
                try:
                    value = symbol.value(frame)
                except (gdb.error, TypeError) as exc:
                    variables.append({"name": symbol.name, "error": str(exc)})
                    continue
                entry = {
                    "name": symbol.name,
                    "line": str(symbol.line),
                    "arg": "1" if symbol.is_argument else "0",
                    "layout": _layout(symbol.type),
                    "bytes": _hex_bytes(value),
                }
                variables.append(entry)
            if block.function is not None:
                break
            block = block.superblock
        result = {
            "pc": str(frame.pc()),
            "line": str(sal.line if sal else 0),
            "file": (sal.symtab.fullname() if sal and sal.symtab else ""),
            "function": frame.name() or "",
            "pid": str(gdb.selected_inferior().pid),
            "vars": variables,
        }
        if level == 0:
            at_start = _at_line_start(frame, sal)
            if at_start is not None:
                result["line_start"] = "1" if at_start else "0"
        entry_args, note = _entry_args(frame)
        if entry_args is not None:
            result["entry_args"] = entry_args
        result["entry_note"] = note
        return result
    finally:
        try:
            if previous_thread is not None and previous_thread.is_valid():
                previous_thread.switch()
            if previous_frame is not None and previous_frame.is_valid():
                previous_frame.select()
        except gdb.error:
            pass


class NumbaLensFrame(gdb.MICommand):
    """-numba-lens-frame THREAD LEVEL"""

    def __init__(self):
        super().__init__("-numba-lens-frame")

    def invoke(self, argv):
        if len(argv) != 2:
            raise gdb.GdbError("usage: -numba-lens-frame THREAD LEVEL")
        return frame_report(int(argv[0]), int(argv[1]))


try:
    NumbaLensFrame()
except RuntimeError:  # already registered by an earlier `source` in this gdb
    pass
