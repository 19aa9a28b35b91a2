"""Jitted frames as gdb shows them: demangled names back to Numba names, and what each frame is.

gdb names a jitted frame by its demangled C++-style symbol, e.g.
`__main__::kernel[abi:v1][abi:c8tJTC…](Array<double, 1, C, mutable, aligned>, long long)`.
Numba's Itanium mangler (numba/core/itanium_mangler.py) builds that name: dotted names become `::`
scopes, characters outside [A-Za-z0-9_] become `_xx` escapes, Numba types become template ids
(`Array<double, 1, C, mutable, aligned>`, `UniTuple<long long, 2>`) and the basic types become C types.
This module reverses that for display. Whatever it does not recognise stays as gdb's text: a raw name
is better than a guessed type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pyserver.debug.brackets import split_top_level

FrameKind = Literal["jit", "wrapper", "dispatcher", "cpython", "python-eval", "other"]

# Itanium builtin codes Numba uses (itanium_mangler.N2CODE), as gdb's demangler prints them.
_C_TO_NUMBA = {
    "long long": "int64",
    "unsigned long long": "uint64",
    "int": "int32",
    "unsigned int": "uint32",
    "short": "int16",
    "unsigned short": "uint16",
    "signed char": "int8",
    "char": "int8",
    "unsigned char": "uint8",
    "double": "float64",
    "float": "float32",
    "half": "float16",
    "bool": "bool",
    "void": "none",
}

_ABI_TAG = re.compile(r"\[abi:[^\]]*\]")
# An escape as the mangler writes it: "_" plus two hex digits of one UTF-8 byte.
_ESCAPE_RUN = re.compile(r"(?:_[0-9a-fA-F]{2})+")

# The kernel Numba generates for an array expression (`c = a * b + 1.0`), called once per element. Its
# debug info names the user's file, with lines of the generated code (1 or 2), not the user's line.
ARRAY_EXPR_KERNEL = "__numba_array_expr_"
# Helpers Numba's runtime or generated code calls; never user code.
_NUMBA_HELPER_PREFIXES = ("numba_", "NRT_", "nrt_", "_numba_", ARRAY_EXPR_KERNEL, "Numba_")
# Dispatcher machinery in numba/_dispatcher.cpp (and its helpers).
_DISPATCHER_FUNCS = {
    "compile_and_invoke",
    "Dispatcher_call",
    "call_cfunc",
    "find_named_args",
    "invoke_jitted",
}


@dataclass(frozen=True)
class JitFrameName:
    """A jitted frame's name, split and translated. `display` is what the call stack shows."""

    module: str  # "__main__", "pkg.mod"
    name: str  # bare function name, "kernel" (for methods the last part, e.g. "norm")
    qualified: str  # "Point.norm" when the symbol has class scopes, else the bare name
    arg_types: tuple[str, ...]  # Numba type names, or gdb's raw text where unknown
    display: str  # "kernel(array(float64, 1d, C), int64)"
    wrapper: bool  # the `cpython::` wrapper Numba generates around the function


def _decode_escapes(text: str) -> str:
    """Undo the mangler's `_xx` escapes where they decode to punctuation or non-ASCII UTF-8.

    `_xx` after an identifier character is ambiguous (`cache_da` could be an escape); only escapes
    that decode to characters the mangler must have escaped are undone."""

    def repl(match: re.Match[str]) -> str:
        chunk = match.group(0)
        raw = bytes(int(chunk[i + 1 : i + 3], 16) for i in range(0, len(chunk), 3))
        out: list[str] = []
        i = 0
        while i < len(raw):
            byte = raw[i]
            if byte < 0x80:
                char = chr(byte)
                if char.isalnum() or char == "_" or byte < 0x20:
                    out.append(chunk[i * 3 : i * 3 + 3])
                else:
                    out.append(char)
                i += 1
                continue
            # A UTF-8 sequence: take the longest prefix that decodes.
            for end in range(min(len(raw), i + 4), i, -1):
                try:
                    out.append(raw[i:end].decode("utf-8"))
                except UnicodeDecodeError:
                    continue
                i = end
                break
            else:
                out.append(chunk[i * 3 : i * 3 + 3])
                i += 1
        return "".join(out)

    return _ESCAPE_RUN.sub(repl, text)


def _matching_close(text: str, open_index: int) -> int:
    """Index of the bracket closing the one at open_index, or -1."""
    pairs = {"(": ")", "<": ">", "[": "]"}
    depth = 0
    for index in range(open_index, len(text)):
        char = text[index]
        if char in pairs:
            depth += 1
        elif char in pairs.values():
            depth -= 1
            if depth == 0:
                return index
    return -1


def c_type_to_numba(text: str) -> str:
    """One demangled argument type (`long long`, `Array<double, 2, C, mutable, aligned>`) as Numba
    writes it (`int64`, `array(float64, 2d, C)`). Unknown forms come back as gdb's text."""
    text = text.strip()
    if text in _C_TO_NUMBA:
        return _C_TO_NUMBA[text]
    lt = text.find("<")
    if lt > 0 and text.endswith(">") and _matching_close(text, lt) == len(text) - 1:
        head = text[:lt].strip()
        params = split_top_level(text[lt + 1 : -1])
        if head == "Array" and len(params) == 5 and params[1].isdigit():
            dtype, ndim, layout, mutability, alignment = params
            prefix = ""
            if mutability == "readonly":
                prefix += "readonly "
            if alignment == "unaligned":
                prefix += "unaligned "
            return f"{prefix}array({c_type_to_numba(dtype)}, {ndim}d, {layout})"
        if head == "UniTuple" and len(params) == 2 and params[1].isdigit():
            return f"UniTuple({c_type_to_numba(params[0])} x {params[1]})"
        if head == "Record" and len(params) == 1 and params[0].isdigit():
            # The number is the record type's `_code` (numba/core/types/abstract.py: handed out in
            # order as types are interned, per process), not a field count or a size: the mangled
            # name carries no fields, so say only that it is a record (record_arguments.py maps it).
            return "Record(...)"
        if head == "Tuple":
            return "Tuple(" + ", ".join(c_type_to_numba(p) for p in params) + ")"
        return text
    if "::" in text and "<" not in text and "(" not in text:
        # The mangler makes each dotted part a scope and puts "_" before a part that starts with a
        # digit (`1.0` -> `1::_0`); digits are never escaped, so `_<digit>` is that prefix.
        parts = [part[1:] if re.match(r"_\d", part) else part for part in text.split("::")]
        return _readable_type(_decode_escapes(".".join(parts)))
    if re.fullmatch(r"[A-Za-z0-9_]+", text):
        return _readable_type(_decode_escapes(text))
    return text


# A jitclass instance type: `instance.jitclass.Box#7fffe4442610<width:float64,height:float64>`.
_JITCLASS = re.compile(r"instance\.jitclass\.([A-Za-z_][\w.]*)#[0-9a-fA-F]+<.*>")
# An argument left to its default: `omitted(default=1.0)`.
_OMITTED = re.compile(r"omitted\(default=(.*)\)")


def _readable_type(text: str) -> str:
    """A type as the user wrote the thing: a jitclass by its class name (no heap address, no fields),
    an omitted argument by its default as in the source (`1.0`, `'a'`)."""
    jitclass = _JITCLASS.fullmatch(text)
    if jitclass:
        return jitclass.group(1).split(".")[-1]
    omitted = _OMITTED.fullmatch(text)
    if omitted:
        return omitted.group(1)
    return text


def parse_jit_frame_name(func: str) -> JitFrameName | None:
    """Parse a gdb frame name of a Numba-compiled function. None when it is not one (no `[abi:` tag
    and no `::` scope, or no argument list): C and CPython frames stay unparsed."""
    if not func or "(" not in func or not func.rstrip().endswith(")"):
        return None
    paren = func.find("(")
    head = func[:paren]
    if "[abi:" not in head and "::" not in head:
        return None
    close = _matching_close(func, paren)
    if close != len(func.rstrip()) - 1:
        return None
    args_text = func[paren + 1 : close]
    head = _ABI_TAG.sub("", head).strip()
    wrapper = False
    if head.startswith("cpython::"):
        wrapper = True
        head = head[len("cpython::") :]
    scopes = [_decode_escapes(part) for part in head.split("::") if part]
    if not scopes:
        return None
    name = scopes[-1]
    # Module path and class scopes cannot be told apart from the symbol alone; a scope whose name
    # starts with a capital letter right before the function is taken as a class (PEP 8 naming).
    module_parts = scopes[:-1]
    class_parts: list[str] = []
    while module_parts and module_parts[-1][:1].isupper() and len(module_parts) > 1:
        class_parts.insert(0, module_parts.pop())
    qualified = ".".join([*class_parts, name])
    raw_args = split_top_level(args_text) if args_text.strip() else []
    arg_types = tuple(c_type_to_numba(a) for a in raw_args if a != "void")
    display = f"{name}({', '.join(arg_types)})"
    return JitFrameName(
        module=".".join(module_parts),
        name=name,
        qualified=qualified,
        arg_types=arg_types,
        display=display,
        wrapper=wrapper,
    )


def jit_frame_name(func: str) -> str:
    """`__main__::walk[abi:v1][abi:c8t…](Array<double, 1, C, mutable, aligned>, long long)` ->
    `walk(array(float64, 1d, C), int64)`; gdb's own text when the name is not a Numba symbol."""
    parsed = parse_jit_frame_name(func)
    return parsed.display if parsed is not None else func


def _is_libpython_file(path: str) -> bool:
    return bool(
        re.search(r"(^|/)(Python|Objects|Modules|Parser|Programs|Include)/", path)
        or "python3" in path.split("/")[-1]
    )


def classify_frame(frame: Mapping[str, Any]) -> FrameKind:
    """What a frame of `-stack-list-frames` is:
    - "jit": a Numba-compiled user function (has a source line);
    - "wrapper": the `cpython::` wrapper Numba generates (no line);
    - "dispatcher": numba/_dispatcher.cpp (compile_and_invoke, Dispatcher_call, ...);
    - "python-eval": `_PyEval_EvalFrameDefault` (CPython's gdb support turns these into Python frames);
    - "cpython": other frames of libpython;
    - "other": everything else, including Numba's own helpers (numba_gdb_breakpoint, NRT_*) and the
      generated array-expression kernels (`__numba_array_expr_…`), which are not user code."""
    func = str(frame.get("func") or "")
    file = str(frame.get("fullname") or frame.get("file") or "")
    from_lib = str(frame.get("from") or "")
    bare = _ABI_TAG.sub("", func.split("(", 1)[0]).strip()
    last = bare.split("::")[-1]
    if func.startswith("cpython::"):
        return "wrapper"
    if bare in _DISPATCHER_FUNCS or file.endswith("_dispatcher.cpp") or file.endswith("_dispatcher.c"):
        return "dispatcher"
    if bare.startswith(_NUMBA_HELPER_PREFIXES) or last.startswith(_NUMBA_HELPER_PREFIXES):
        return "other"
    if bare in ("_PyEval_EvalFrameDefault", "_PyEval_EvalFrame"):
        return "python-eval"
    parsed = parse_jit_frame_name(func)
    if parsed is not None:
        if parsed.wrapper:
            return "wrapper"
        if not frame.get("line"):
            # A jitted symbol without line info: a generated helper, not user code.
            return "other"
        return "jit"
    if "libpython" in from_lib or _is_libpython_file(file) or bare.startswith(("_Py", "Py")):
        return "cpython"
    return "other"


def is_numba_library_frame(frame: Mapping[str, Any]) -> bool:
    """A frame of Numba's own library code compiled with the user's (`numba::np::npyimpl::_broadcast_onto`,
    the implementation of `a.sum()`...): it has debug info and a source line, in Numba's files."""
    parsed = parse_jit_frame_name(str(frame.get("func") or ""))
    return parsed is not None and (parsed.module == "numba" or parsed.module.startswith("numba."))
