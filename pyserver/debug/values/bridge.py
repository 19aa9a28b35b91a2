"""Variables in jitted frames, as the session needs them.

`JitValueReader` (reader.py) does the real work (SSA versions folded, argument values
recovered, arrays/tuples/records expanded); this bridge maps its results to DAP dicts. If the reader
fails, a fallback over `-stack-list-variables` shows names and marks what it cannot trust unavailable:
never a wrong value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pyserver.debug.dap import DapError
from pyserver.debug.gdb.mi import data as mi_data
from pyserver.debug.gdb.mi import stack as mi_stack
from pyserver.debug.gdb.mi.stack import MIVariable
from pyserver.debug.gdb.mi_protocol import GdbCommandError, MIExecutor
from pyserver.debug.values.live_versions import LiveVersions
from pyserver.debug.values.reader import JitValueReader

# Side-effect free expressions for hover/watch: names, members, indexing, arithmetic, comparisons.
_UNSAFE = re.compile(r"(?<![=!<>])=(?!=)|\+\+|--|\(\s*\)|\b\w+\s*\(")


def _dap_from_reader_item(item: Any) -> dict[str, Any]:
    """A Scope or JitVariable of the values module as a DAP dict; `_handle` is what expands it."""
    data: dict[str, Any] = dict(item.to_dap()) if hasattr(item, "to_dap") else dict(item)
    data.pop("variablesReference", None)
    handle = getattr(item, "children", None) if not hasattr(item, "variables") else item.handle
    if handle is not None:
        data["_handle"] = handle
    return data


class ValuesBridge:
    def __init__(self, gdb: MIExecutor, log: Callable[[str], None], live_versions: str | None = None) -> None:
        self.gdb = gdb
        self.log = log
        self.reader: Any = None
        try:
            self.reader = JitValueReader(
                gdb, log=log, live_versions=LiveVersions(live_versions) if live_versions else None
            )
        except Exception as exc:  # the fallback below still shows names, never wrong values
            self.log(f"values module unavailable: {exc!r}")
        self._fallback: dict[tuple[str, int, str], list[dict[str, Any]]] = {}

    def reset(self) -> None:
        self._fallback.clear()
        if self.reader is not None and hasattr(self.reader, "reset"):
            try:
                self.reader.reset()
            except Exception as exc:
                self.log(f"values reset failed: {exc!r}")

    def frame_scopes(self, gdb_thread: str, level: int) -> list[dict[str, Any]]:
        if self.reader is not None:
            try:
                return [
                    _dap_from_reader_item(s)
                    for s in self.reader.frame_scopes(self._thread_arg(gdb_thread), level)
                ]
            except Exception as exc:
                self.log(f"values.frame_scopes failed, using the fallback: {exc!r}")
        return self._fallback_scopes(gdb_thread, level)

    def children(self, handle: Any, start: Any = None, count: Any = None) -> list[dict[str, Any]]:
        if isinstance(handle, tuple) and handle and handle[0] == "fallback":
            return list(self._fallback.get(handle[1:], []))
        if self.reader is None:
            return []
        items = self.reader.children(handle, int(start or 0), int(count) if count else None)
        return [_dap_from_reader_item(v) for v in items]

    def typed_container(self, gdb_thread: str, type_text: str, address: int, name: str) -> dict[str, Any]:
        """A numba.typed List or Dict that a Python frame holds, shown as in a jitted frame; a reason
        in place of the value when it cannot be decoded."""
        if self.reader is None:
            return {"name": name, "value": "<unavailable: values module unavailable>", "type": type_text}
        try:
            variable = self.reader.typed_container(self._thread_arg(gdb_thread), type_text, address, name)
        except Exception as exc:  # JitValueError: unreadable, or a type not decoded
            return {"name": name, "value": f"<unavailable: {exc}>", "type": type_text}
        return _dap_from_reader_item(variable)

    def evaluate(self, gdb_thread: str, level: int, expression: str, context: str) -> dict[str, Any]:
        if context in ("hover", "watch", "variables") and _UNSAFE.search(expression):
            return {"result": "unavailable (hover and watch evaluate side-effect free expressions only)"}
        if self.reader is not None and hasattr(self.reader, "evaluate"):
            try:
                variable = self.reader.evaluate(
                    self._thread_arg(gdb_thread), level, expression, context=context
                )
                data = _dap_from_reader_item(variable)
                data["result"] = data.pop("value", "")
                data.pop("name", None)
                return data
            except GdbCommandError as exc:
                raise DapError(f"unavailable: {exc.message}") from None
            except Exception as exc:  # JitValueError: refused, unknown or untrustworthy
                raise DapError(str(exc)) from None
        try:
            value = mi_data.data_evaluate_expression(self.gdb, expression, thread=gdb_thread, frame=level)
        except GdbCommandError as exc:
            return {"result": f"unavailable: {exc.message}"}
        return {"result": value}

    @staticmethod
    def _thread_arg(gdb_thread: str) -> Any:
        return int(gdb_thread) if gdb_thread.isdigit() else gdb_thread

    def _fallback_scopes(self, gdb_thread: str, level: int) -> list[dict[str, Any]]:
        arguments: list[dict[str, Any]] = []
        versions: dict[str, list[MIVariable]] = {}
        for item in mi_stack.stack_list_variables(self.gdb, gdb_thread, level):
            name = str(item.get("name", ""))
            if item.get("arg"):
                # Numba's debug info reads a dead argument as 0 at NUMBA_OPT=0: never show them.
                arguments.append({"name": name, "value": "unavailable", "variablesReference": 0})
                continue
            base = name.split("$", 1)[0]
            versions.setdefault(base, []).append(item)
        local_vars = []
        for base, items in versions.items():
            if base.startswith(("$", "arg.")) or not base:
                continue
            # Several SSA copies: which one is live is not known without Numba's IR, so unavailable.
            value = str(items[0].get("value", "")) if len(items) == 1 else "unavailable"
            local_vars.append({"name": base, "value": value, "variablesReference": 0})
        self._fallback[(gdb_thread, level, "Arguments")] = arguments
        self._fallback[(gdb_thread, level, "Locals")] = local_vars
        return [
            {"name": "Arguments", "presentationHint": "arguments", "expensive": False,
             "_handle": ("fallback", gdb_thread, level, "Arguments")},
            {"name": "Locals", "presentationHint": "locals", "expensive": False,
             "_handle": ("fallback", gdb_thread, level, "Locals")},
        ]  # fmt: skip
