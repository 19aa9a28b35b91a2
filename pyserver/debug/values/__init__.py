"""Variables of jitted frames, read through gdb: the adapter's side of the values (gdb/inside/values_gdb.py
is the gdb side). The public API is what this module exports; the modules inside are its parts:

- reader.py: JitValueReader, the rules that keep a wrong value from being shown;
- report.py: the raw frame report from gdb and the source index that judges SSA versions;
- decoding.py, containers.py: values decoded from bytes and memory by Numba's data model;
- arguments.py, records.py: entry-call arguments and record scalars;
- live_versions.py, record_arguments.py: what the debuggee exports while compiling (debuggee/inside/boot.py);
- expressions.py: side-effect-free watch and hover expressions;
- bridge.py: ValuesBridge, the reader's results as DAP dicts, with a fallback when the reader fails.
"""

from pyserver.debug.values.bridge import ValuesBridge
from pyserver.debug.values.model import UNAVAILABLE, ChildrenHandle, JitValueError, JitVariable, Scope
from pyserver.debug.values.numba_types import NumbaType, decode_scalar, parse_numba_type
from pyserver.debug.values.reader import JitValueReader

__all__ = [
    "UNAVAILABLE",
    "ChildrenHandle",
    "JitValueError",
    "JitValueReader",
    "JitVariable",
    "NumbaType",
    "Scope",
    "ValuesBridge",
    "decode_scalar",
    "parse_numba_type",
]
