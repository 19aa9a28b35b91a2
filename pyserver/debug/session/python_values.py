"""Values of Python frames read by gdb while it holds the program (read-only): each item as gdb's
`numba-lens-pylocals` gives it, its children (items of containers, fields of instances, dtype, shape
and first items of arrays) behind a variables reference of their own. A numba.typed List or Dict comes
as its Numba type and address, and `TypedContainer` (the jitted side's decoder) shows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyserver.debug.session.handles import Handles

READ_ONLY = {"attributes": ["readOnly"]}

# (name, {"type": Numba type name, "address": NB_List/NB_Dict}) -> a DAP variable with its reference.
TypedContainer = Callable[[str, dict[str, Any]], dict[str, Any]]


@dataclass
class PythonChildren:
    """A variables reference to the children of one value read from memory."""

    handles: Handles
    children: list[dict[str, Any]]
    typed: TypedContainer

    def variables(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        start = int(args.get("start") or 0)
        count = args.get("count")
        chosen = self.children[start : start + int(count)] if count else self.children[start:]
        return dap_variables(self.handles, chosen, self.typed)


def dap_variables(
    handles: Handles, items: list[dict[str, Any]], typed: TypedContainer
) -> list[dict[str, Any]]:
    """DAP variables of gdb's items: those with children get a reference that lists them."""
    out = []
    for item in items:
        if isinstance(item.get("numba"), dict):
            variable = typed(str(item.get("name", "")), item["numba"])
            variable["presentationHint"] = READ_ONLY
            out.append(variable)
            continue
        children = item.get("children")
        variable = {key: value for key, value in item.items() if key != "children"}
        variable["variablesReference"] = (
            handles.variables_reference(PythonChildren(handles, list(children), typed)) if children else 0
        )
        if children:
            variable["namedVariables"] = len(children)
        variable["presentationHint"] = READ_ONLY
        out.append(variable)
    return out
