"""How a signature's types read in the result (readable text, exact encoding, variables, typed calls),
kept across analyses: after an edit, the functions whose inference was reused show the same texts
without computing them again.

What is kept is a function of what it is kept by: the readable text of a type of its text; the exact
encoding of a type that refers to no Python object (a dispatcher's or a class's would name objects the
next run defines anew: those are encoded every time); the variables and calls of an inference of that
inference object, which the analyzer's memo hands out again unchanged when the function did not change
or move.
"""

from __future__ import annotations

from typing import Any

from pyserver import numba_api
from pyserver.analysis.model import CallType, VariableType
from pyserver.record import types_codec

LIMIT = 4000  # entries per table; a table that fills is emptied


class ShownTypes:
    def __init__(self, root: str, resolve: types_codec.Resolver) -> None:
        self.root = root
        self.resolve = resolve
        self._readable: dict[str, str] = {}
        self._encodings: dict[tuple[Any, str], Any] = {}  # (type, its text) -> its exact encoding
        # (id, def line, end line) of an inference -> (it, its VariableTypes, its CallTypes)
        self._details: dict[tuple[int, int, int], tuple[Any, list[VariableType], list[CallType]]] = {}

    def readable(self, ty: Any) -> str:
        """types_codec.readable(ty)."""
        text = str(ty)
        readable = self._readable.get(text)
        if readable is None:
            if len(self._readable) >= LIMIT:
                self._readable.clear()
            readable = self._readable[text] = types_codec.readable(ty)
        return readable

    def exact_encoding(self, args: tuple[Any, ...], py_func: Any = None) -> list[Any] | None:
        """types_codec.encode_all(args, root, resolve, py_func)."""
        encoded: list[Any] = []
        for index, ty in enumerate(args):
            default = types_codec.encode_default(py_func, index, ty, self.root, self.resolve)
            if default is not None:  # the function's own default object (an array, a NaN)
                encoded.append(default)
                continue
            key = (ty, str(ty))
            found = self._encodings.get(key)
            if found is None:
                found = types_codec.encode(ty, self.root, self.resolve)
                if found is None:
                    return None
                if not _refers_to_objects(found):
                    if len(self._encodings) >= LIMIT:
                        self._encodings.clear()
                    self._encodings[key] = found
            encoded.append(found)
        return encoded

    def signature_details(
        self, inference: numba_api.Inference, def_line: int, end_line: int
    ) -> tuple[list[VariableType], list[CallType]]:
        """The variables and the typed calls (those within the function's lines) of an inference."""
        key = (id(inference), def_line, end_line)
        found = self._details.get(key)
        if found is None or found[0] is not inference:
            call_types = [
                CallType(line, name, signature)
                for line, name, signature in sorted(set(inference.call_types))
                if def_line <= line <= end_line
            ]
            found = (inference, variables(inference, def_line), call_types)
            if len(self._details) >= LIMIT:
                self._details.clear()
            self._details[key] = found
        return list(found[1]), list(found[2])


def variables(inference: numba_api.Inference, def_line: int) -> list[VariableType]:
    shown = []
    for variable in inference.variables:
        text, literal = numba_api.shown_type(variable.type)
        # Numba places arguments on the decorator line; the contract puts them on the `def` line.
        line = def_line if variable.is_arg else variable.line
        shown.append(
            VariableType(
                variable.name,
                variable.ssa_name,
                text,
                line,
                variable.is_arg,
                literal,
                list(variable.used_lines),
                variable.phi,
            )
        )
    return shown


def _refers_to_objects(encoded: Any) -> bool:
    """Does a type's encoding name a Python object (`{"module": ..., "qualname": ...}`)?"""
    if isinstance(encoded, dict):
        return "module" in encoded or any(_refers_to_objects(v) for v in encoded.values())
    if isinstance(encoded, list):
        return any(_refers_to_objects(v) for v in encoded)
    return False
