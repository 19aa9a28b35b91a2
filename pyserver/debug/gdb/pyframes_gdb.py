"""Sourced into gdb: `numba-lens-pyframes LWP` prints the Python frames of a thread as one JSON line.

While gdb holds the process, debugpy cannot answer, so the Python callers of a jitted frame are read
from CPython's own structures (CPython 3.11 layout: PyThreadState.cframe->current_frame, then
_PyInterpreterFrame.previous; lines decoded from the code object's location table). Memory reads only:
nothing runs in the debuggee. Any other layout prints {"error": ...} and the adapter says so.
"""

import json

import gdb  # type: ignore[import-not-found]


def _read(address, size):
    return bytes(gdb.selected_inferior().read_memory(address, size))


def _unicode(obj):
    """Text of a compact str object (the only kind code objects hold)."""
    if int(obj) == 0:
        return ""
    ascii_type = gdb.lookup_type("PyASCIIObject")
    compact_type = gdb.lookup_type("PyCompactUnicodeObject")
    ascii_obj = obj.cast(ascii_type.pointer()).dereference()
    length = int(ascii_obj["length"])
    state = ascii_obj["state"]
    kind = int(state["kind"])
    if int(state["ascii"]):
        data = int(obj) + ascii_type.sizeof
        return _read(data, length).decode("ascii", errors="replace")
    data = int(obj) + compact_type.sizeof
    raw = _read(data, length * kind)
    codec = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}.get(kind, "latin-1")
    return raw.decode(codec, errors="replace")


def _bytes(obj):
    bytes_type = gdb.lookup_type("PyBytesObject")
    value = obj.cast(bytes_type.pointer()).dereference()
    size = int(value["ob_base"]["ob_size"])
    address = int(value["ob_sval"].address)
    return _read(address, size)


def _varint(data, pos):
    byte = data[pos]
    pos += 1
    value = byte & 63
    shift = 0
    while byte & 64:
        byte = data[pos]
        pos += 1
        shift += 6
        value |= (byte & 63) << shift
    return value, pos


def _line_for(linetable, first_line, lasti):
    """CPython 3.11 location table (Objects/locations.md): the line of code unit `lasti`."""
    line = first_line
    address = 0
    pos = 0
    while pos < len(linetable):
        first = linetable[pos]
        pos += 1
        code = (first >> 3) & 15
        length = (first & 7) + 1
        this_line = line
        if code == 15:
            this_line = None
        elif code == 14:
            delta, pos = _varint(linetable, pos)
            delta = -(delta >> 1) if delta & 1 else delta >> 1
            line += delta
            this_line = line
            _end, pos = _varint(linetable, pos)
            _col, pos = _varint(linetable, pos)
            _end_col, pos = _varint(linetable, pos)
        elif code == 13:
            delta, pos = _varint(linetable, pos)
            delta = -(delta >> 1) if delta & 1 else delta >> 1
            line += delta
            this_line = line
        elif code in (10, 11, 12):
            line += code - 10
            this_line = line
            pos += 2
        else:
            pos += 1
        if address <= lasti < address + length:
            return this_line
        address += length
    return None


def _interpreter_frames(lwp):
    """The thread's _PyInterpreterFrame pointers that have started running, newest first."""
    interp = gdb.parse_and_eval("_PyRuntime.interpreters.head")
    tstate = interp["threads"]["head"]
    while int(tstate) != 0 and int(tstate["native_thread_id"]) != lwp:
        tstate = tstate["next"]
    if int(tstate) == 0:
        return []
    frame = tstate["cframe"]["current_frame"]
    unit = gdb.lookup_type("_Py_CODEUNIT")
    frames: list = []
    while int(frame) != 0 and len(frames) < 200:
        code = frame["f_code"]
        first_instr = code["co_code_adaptive"].address.cast(unit.pointer())
        lasti = int(frame["prev_instr"] - first_instr)
        if lasti >= 0:
            frames.append((frame, lasti))
        frame = frame["previous"]
    return frames


def python_frames(lwp):
    frames = []
    for frame, lasti in _interpreter_frames(lwp):
        code = frame["f_code"]
        frames.append(
            {
                "file": _unicode(code["co_filename"]),
                "name": _unicode(code["co_qualname"]),
                "line": _line_for(_bytes(code["co_linetable"]), int(code["co_firstlineno"]), lasti),
            }
        )
    return frames


CO_FAST_LOCAL, CO_FAST_CELL = 0x20, 0x40


def _type_name(obj):
    return obj.cast(gdb.lookup_type("PyObject").pointer())["ob_type"]["tp_name"].string()


def _int_value(obj):
    value = obj.cast(gdb.lookup_type("PyLongObject").pointer()).dereference()
    size = int(value["ob_base"]["ob_size"])
    digits = value["ob_digit"]
    total = 0
    for index in range(min(abs(size), 40)):
        total |= int(digits[index]) << (30 * index)
    return -total if size < 0 else total


def _short_repr(obj):
    """repr() of simple objects read from memory; `<type object>` for the rest. Never runs code."""
    name = _type_name(obj)
    if name == "int":
        return str(_int_value(obj)), name
    if name == "bool":
        return str(bool(_int_value(obj))), name
    if name == "float":
        return repr(float(obj.cast(gdb.lookup_type("PyFloatObject").pointer())["ob_fval"])), name
    if name == "str":
        text = _unicode(obj)
        return repr(text if len(text) <= 200 else text[:200] + "…"), name
    if name == "NoneType":
        return "None", name
    return f"<{name} object>", name


def python_locals(lwp, index):
    frames = _interpreter_frames(lwp)
    if index >= len(frames):
        return []
    frame, _lasti = frames[index]
    code = frame["f_code"]
    names = code["co_localsplusnames"].cast(gdb.lookup_type("PyTupleObject").pointer())
    kinds = _bytes(code["co_localspluskinds"])
    out = []
    for slot in range(min(int(code["co_nlocalsplus"]), 500)):
        kind = kinds[slot]
        if not kind & (CO_FAST_LOCAL | CO_FAST_CELL):
            continue
        obj = frame["localsplus"][slot]
        if int(obj) == 0:
            continue
        if kind & CO_FAST_CELL and _type_name(obj) == "cell":
            obj = obj.cast(gdb.lookup_type("PyCellObject").pointer())["ob_ref"]
            if int(obj) == 0:
                continue
        value, type_name = _short_repr(obj)
        out.append({"name": _unicode(names["ob_item"][slot]), "value": value, "type": type_name})
    return out


class PythonFramesCommand(gdb.Command):
    """numba-lens-pyframes LWP: the Python frames of thread LWP as JSON."""

    def __init__(self):
        super().__init__("numba-lens-pyframes", gdb.COMMAND_DATA)

    def invoke(self, argument, from_tty):
        try:
            result = {"frames": python_frames(int(argument.strip()))}
        except Exception as exc:  # any other CPython layout
            result = {"error": f"{type(exc).__name__}: {exc}"}
        gdb.write(json.dumps(result) + "\n")


PythonFramesCommand()


class PythonLocalsCommand(gdb.Command):
    """numba-lens-pylocals LWP INDEX: the locals of a thread's INDEX-th Python frame as JSON."""

    def __init__(self):
        super().__init__("numba-lens-pylocals", gdb.COMMAND_DATA)

    def invoke(self, argument, from_tty):
        try:
            lwp, index = (int(part) for part in argument.split())
            result = {"locals": python_locals(lwp, index)}
        except Exception as exc:  # any other CPython layout
            result = {"error": f"{type(exc).__name__}: {exc}"}
        gdb.write(json.dumps(result) + "\n")


PythonLocalsCommand()
