"""Sourced into gdb: `numba-lens-pyframes LWP` prints the Python frames of a thread as one JSON line.

While gdb holds the process, debugpy cannot answer, so the Python callers of a jitted frame are read
from CPython's own structures. Layouts decoded (chosen by the fields the debuggee's types have):
- 3.10: PyThreadState.frame, PyFrameObject.f_back, .f_lasti; 3.10's own line table and co_name;
- 3.11: PyThreadState.cframe->current_frame; _PyInterpreterFrame.f_code, .prev_instr;
- 3.12: as 3.11, plus shim frames owned by the C stack (skipped) and ints as long_value.lv_tag;
- 3.13: PyThreadState.current_frame; _PyInterpreterFrame.f_executable, .instr_ptr.
then _PyInterpreterFrame.previous; lines decoded from the code object's location table (the same format
in 3.11 to 3.13). Memory reads only: nothing runs in the debuggee. Any other layout prints
{"error": ...} and the adapter says so: never a guessed frame or value.
"""

import json
import os
import sys

import gdb  # type: ignore[import-not-found]

# gdb sources this file as a script: its sibling module is imported from this folder.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyobjects_gdb import (
    MAX_OBJECTS,
    bytes_value,
    describe,
    dict_items,
    fields_of,
    lookup_type,
    reset_budget,
    symbol_address,
    type_name,
    unicode_text,
)


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


FRAME_OWNED_BY_CSTACK = 3  # 3.12+: a shim frame of the C stack, not Python code


def _pthread_of(lwp):
    for thread in gdb.selected_inferior().threads():
        if thread.ptid[1] == lwp:
            return int.from_bytes(bytes(thread.handle()), "little")
    raise LookupError(f"no thread {lwp}")


def _interpreter_frames(lwp):
    """The thread's (_PyInterpreterFrame pointer, code object, lasti) that have started running, newest
    first. lasti is the index of the instruction in progress, in code units."""
    runtime = symbol_address("_PyRuntime")
    if runtime is None:
        raise LookupError("no _PyRuntime in the program")
    interp = gdb.Value(runtime).cast(lookup_type("_PyRuntimeState").pointer())["interpreters"]["head"]
    tstate = interp["threads"]["head"] if "threads" in fields_of(interp) else interp["tstate_head"]  # 3.10
    if "native_thread_id" in fields_of(tstate):  # 3.11+
        key, wanted = "native_thread_id", lwp
    else:  # 3.10: only the pthread_t, which gdb gives as the thread's handle
        key, wanted = "thread_id", _pthread_of(lwp)
    while int(tstate) != 0 and int(tstate[key]) != wanted:
        tstate = tstate["next"]
    if int(tstate) == 0:
        return []
    tstate_fields = fields_of(tstate)
    if "frame" in tstate_fields:  # 3.10: PyFrameObject.f_back; f_lasti in code units, -1 before start
        return _frames_310(tstate["frame"])
    if "cframe" in tstate_fields:  # 3.11, 3.12
        frame = tstate["cframe"]["current_frame"]
    elif "current_frame" in tstate_fields:  # 3.13
        frame = tstate["current_frame"]
    else:
        raise LookupError("unknown CPython thread-state layout")
    frame_fields = fields_of(frame)
    code_field = "f_code" if "f_code" in frame_fields else "f_executable"
    instr_field = "prev_instr" if "prev_instr" in frame_fields else "instr_ptr"
    if code_field not in frame_fields or instr_field not in frame_fields:
        raise LookupError("unknown CPython frame layout")
    unit = lookup_type("_Py_CODEUNIT")
    code_type = lookup_type("PyCodeObject").pointer()
    frames: list = []
    while int(frame) != 0 and len(frames) < 200:
        owner = int(frame["owner"]) if "owner" in frame_fields else 0
        code = frame[code_field].cast(code_type)
        if owner != FRAME_OWNED_BY_CSTACK and type_name(code) == "code":
            first_instr = code["co_code_adaptive"].address.cast(unit.pointer())
            lasti = int(frame[instr_field].cast(unit.pointer()) - first_instr)
            # Not started yet (3.11: before the first instruction; 3.12+: before _co_firsttraceable).
            first_traceable = (
                int(code["_co_firsttraceable"]) if "_co_firsttraceable" in fields_of(code) else 0
            )
            if lasti >= first_traceable and lasti >= 0:
                frames.append((frame, code, lasti))
        frame = frame["previous"]
    return frames


def _frames_310(frame):
    frames: list = []
    while int(frame) != 0 and len(frames) < 200:
        lasti = int(frame["f_lasti"])
        if lasti >= 0:
            frames.append((frame, frame["f_code"], lasti))
        frame = frame["f_back"]
    return frames


def _line_for_310(linetable, first_line, address):
    """CPython 3.10 line table (Objects/lnotab_notes.txt): (byte delta, signed line delta) pairs, one
    address range each; a line delta of -128 means no line. `address` is in bytes."""
    line = first_line
    end = 0
    for pos in range(0, len(linetable) - 1, 2):
        start, end = end, end + linetable[pos]
        delta = linetable[pos + 1] - 256 if linetable[pos + 1] > 127 else linetable[pos + 1]
        this_line = None
        if delta != -128:
            line += delta
            this_line = line
        if start <= address < end:
            return this_line
    return None


# Lines decoded, by (line table, first line, instruction): a pure function of what was read, kept so
# that each stop does not decode every caller's table again. Bounded.
_lines: dict = {}


def _line_of(linetable, first_line, lasti, new_layout):
    key = (linetable, first_line, lasti, new_layout)
    if key not in _lines:
        if len(_lines) >= 4096:
            _lines.clear()
        if new_layout:
            _lines[key] = _line_for(linetable, first_line, lasti)
        else:  # 3.10: addresses in bytes
            _lines[key] = _line_for_310(linetable, first_line, lasti * 2)
    return _lines[key]


def python_frames(lwp):
    frames = []
    for _frame, code, lasti in _interpreter_frames(lwp):
        linetable, first_line = bytes_value(code["co_linetable"]), int(code["co_firstlineno"])
        if "co_qualname" in fields_of(code):  # 3.11+
            name, line = unicode_text(code["co_qualname"]), _line_of(linetable, first_line, lasti, True)
        else:  # 3.10: no qualified name
            name, line = unicode_text(code["co_name"]), _line_of(linetable, first_line, lasti, False)
        frames.append({"file": unicode_text(code["co_filename"]), "name": name, "line": line})
    return frames


CO_FAST_LOCAL, CO_FAST_CELL = 0x20, 0x40


def python_locals(lwp, index):
    frames = _interpreter_frames(lwp)
    if index >= len(frames):
        return []
    frame, code, _lasti = frames[index]
    if "co_localsplusnames" not in fields_of(code):
        return _locals_310(frame, code)
    names = code["co_localsplusnames"].cast(lookup_type("PyTupleObject").pointer())
    kinds = bytes_value(code["co_localspluskinds"])
    out = []
    for slot in range(min(int(code["co_nlocalsplus"]), 500)):
        kind = kinds[slot]
        if not kind & (CO_FAST_LOCAL | CO_FAST_CELL):
            continue
        obj = frame["localsplus"][slot]
        if int(obj) == 0:
            continue
        if kind & CO_FAST_CELL and type_name(obj) == "cell":
            obj = obj.cast(lookup_type("PyCellObject").pointer())["ob_ref"]
            if int(obj) == 0:
                continue
        out.append({"name": unicode_text(names["ob_item"][slot]), **_shown(obj)})
    if not out and unicode_text(code["co_name"]) == "<module>":
        out = _module_globals(frame["f_globals"])
    return out


def _shown(obj):
    try:
        return _without_exact(describe(obj))
    except (gdb.error, gdb.MemoryError, ValueError, LookupError) as exc:
        # One object of a layout not decoded: that variable is unavailable, never guessed.
        return {"value": f"<unavailable: {exc}>", "type": ""}


def _without_exact(item):
    item.pop("exact", None)
    for child in item.get("children", ()):
        _without_exact(child)
    return item


def _module_globals(globals_dict):
    """A `<module>` frame's variables: its module's globals, dunder names left out (as Python's
    tracer and debugpy group them apart)."""
    out: list = []
    if int(globals_dict) == 0:
        return out
    for key, value in dict_items(globals_dict):
        if type_name(key) != "str":
            continue
        name = unicode_text(key)
        if not name.startswith("__"):
            out.append({"name": name, **_shown(value)})
    return out


def _locals_310(frame, code):
    """3.10: f_localsplus holds co_varnames' locals, then co_cellvars' cells."""
    tuple_type = lookup_type("PyTupleObject").pointer()
    varnames = code["co_varnames"].cast(tuple_type)
    cellvars = code["co_cellvars"].cast(tuple_type)
    nlocals = int(code["co_nlocals"])
    ncells = int(cellvars["ob_base"]["ob_size"])
    slots = [(slot, varnames["ob_item"][slot], False) for slot in range(min(nlocals, 500))]
    slots += [(nlocals + i, cellvars["ob_item"][i], True) for i in range(min(ncells, 100))]
    out = []
    for slot, name, is_cell in slots:
        obj = frame["f_localsplus"][slot]
        if int(obj) == 0:
            continue
        if is_cell and type_name(obj) == "cell":
            obj = obj.cast(lookup_type("PyCellObject").pointer())["ob_ref"]
            if int(obj) == 0:
                continue
        out.append({"name": unicode_text(name), **_shown(obj)})
    if not out and unicode_text(code["co_name"]) == "<module>":
        out = _module_globals(frame["f_globals"])
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
            reset_budget(MAX_OBJECTS)
            result = {"locals": python_locals(lwp, index)}
        except Exception as exc:  # any other CPython layout
            result = {"error": f"{type(exc).__name__}: {exc}"}
        gdb.write(json.dumps(result) + "\n")


PythonLocalsCommand()
