"""How the session sees gdb frames: the values engineer's pyserver.debug.frames when it is there,
a minimal equivalent otherwise (so the adapter works while that module is being written)."""

from __future__ import annotations

import re
from typing import Any

try:  # pragma: no cover - depends on which modules have landed
    from pyserver.debug import frames as _frames  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    _frames = None  # type: ignore[assignment]

DISPATCHER_FUNCS = {"compile_and_invoke", "Dispatcher_call", "call_cfunc", "_PyObject_MakeTpCall"}

_CXX_TYPES = {
    "long long": "int64",
    "long": "int64",
    "int": "int32",
    "short": "int16",
    "signed char": "int8",
    "char": "int8",
    "unsigned long long": "uint64",
    "unsigned long": "uint64",
    "unsigned int": "uint32",
    "unsigned short": "uint16",
    "unsigned char": "uint8",
    "double": "float64",
    "float": "float32",
    "bool": "bool",
}


def classify_frame(frame: dict[str, Any]) -> str:
    """jit | wrapper | dispatcher | cpython | python-eval | other."""
    if _frames is not None and hasattr(_frames, "classify_frame"):
        try:
            return str(_frames.classify_frame(frame))
        except Exception:
            pass
    func = str(frame.get("func", ""))
    if func.startswith("cpython::"):
        return "wrapper"
    if func in DISPATCHER_FUNCS:
        return "dispatcher"
    if func.startswith("_PyEval_EvalFrame"):
        return "python-eval"
    fullname = str(frame.get("fullname") or frame.get("file") or "")
    if fullname.endswith(".py") and frame.get("line"):
        return "jit"
    if "libpython" in str(frame.get("from", "")) or func.startswith(("_Py", "Py")):
        return "cpython"
    return "other"


def _cxx_type(text: str) -> str:
    text = text.strip()
    match = re.match(r"Array<(.+?), (\d+), ([CFA]),", text)
    if match:
        return f"array({_cxx_type(match.group(1))}, {match.group(2)}d, {match.group(3)})"
    return _CXX_TYPES.get(text, text)


def _split_params(text: str) -> list[str]:
    params: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char in "<([":
            depth += 1
        elif char in ">)]":
            depth -= 1
        if char == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        params.append(current)
    return params


def jit_frame_name(func: str) -> str:
    """`__main__::walk[abi:v1][abi:c8t…](Array<double, 1, C, mutable, aligned>, long long)` ->
    `walk(array(float64, 1d, C), int64)`."""
    if _frames is not None and hasattr(_frames, "parse_jit_frame_name"):
        try:
            parsed = _frames.parse_jit_frame_name(func)
            display = getattr(parsed, "display", None) or getattr(parsed, "display_name", None)
            if isinstance(parsed, str):
                return parsed
            if display:
                return str(display)
        except Exception:
            pass
    name, paren, rest = func.partition("(")
    name = re.sub(r"\[abi:[^\]]*\]", "", name)
    if name.startswith("cpython::"):
        name = name[len("cpython::") :]
    short = name.split("::")[-1]
    if not paren:
        return short
    params = rest[:-1] if rest.endswith(")") else rest
    return f"{short}({', '.join(_cxx_type(p) for p in _split_params(params))})"
