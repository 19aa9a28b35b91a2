"""gdb's breakpoints of the session: line breakpoints in jitted functions (prange bodies and loop headers
included), function breakpoints, the temporary ones of a Step Into from Python, and the in-code one
(numba.gdb_breakpoint()). Hits are read on gdb's dispatcher thread: the table changes under the lock."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError
from pyserver.debug.gdb.backend import GdbBackend
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi.breakpoint import MIBreakpoint
from pyserver.debug.gdb.mi.console import console_output
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit.line_addresses import LoopHeaderBreakpoints
from pyserver.debug.session.common import GdbBreakpoint, SourceBreakpoints

if TYPE_CHECKING:
    from pyserver.debug.session.session import Session

# The ignore count that makes gdb never stop at a breakpoint again.
NEVER_AGAIN = 2147483647


def parse_hit_condition(hit_condition: str | None) -> tuple[str, int]:
    """`N` or `==N` (stop once, at the N-th hit, as debugpy does), `>=N`, `>N`, `%N`."""
    if not hit_condition or not hit_condition.strip():
        return "", 0
    match = re.fullmatch(r"\s*(==|>=|>|%)?\s*(\d+)\s*", hit_condition)
    if not match or int(match.group(2)) < 1:
        raise DapError(
            f"Hit count '{hit_condition}' in jitted code: use N or ==N (the N-th hit), >=N, >N or %N."
        )
    return match.group(1) or "==", int(match.group(2))


def ignore_count(mode: str, n: int) -> int:
    """gdb's ignore count for a hit condition (%N is counted by the adapter)."""
    return {"==": n - 1, ">=": n - 1, ">": n}.get(mode, 0)


def qualified_function_name(name: str) -> str:
    """gdb's qualified name of a jitted function as the editor names it (walk, mod.walk, mod::walk)."""
    if "::" in name:
        return name
    if "." not in name:
        return "::".join(["__main__", name])
    return name.replace(".", "::")


class GdbBreakpoints:
    def __init__(self, session: Session, gdb: GdbBackend) -> None:
        self._session = session
        self._gdb = gdb
        self._lock = session.lock
        self._by_number: dict[str, GdbBreakpoint] = {}
        self._deleted: set[str] = set()  # a hit read after the delete is no stop
        self._function_bps: list[GdbBreakpoint] = []
        self._step_in_temps: list[str] = []
        self._in_code_number: str | None = None
        self._loop_headers: LoopHeaderBreakpoints | None = None  # made at the first line breakpoint's hit

    def _new(self, bp: GdbBreakpoint) -> GdbBreakpoint:
        with self._lock:
            self._by_number[bp.number] = bp
        return bp

    def hit(self, number: str) -> GdbBreakpoint | None:
        with self._lock:
            return self._by_number.get(number)

    def was_deleted(self, number: str) -> bool:
        with self._lock:
            return number in self._deleted

    def delete(self, number: str) -> None:
        with self._lock:
            self._by_number.pop(number, None)
            self._deleted.add(number)
        try:
            mi_breakpoint.break_delete(self._gdb, number)
        except GdbCommandError as exc:
            self._session.client.log(f"delete gdb breakpoint {number}: {exc.message}")

    def forget(self, bp: GdbBreakpoint) -> None:
        """A temporary breakpoint that gdb deleted at its hit."""
        with self._lock:
            self._by_number.pop(bp.number, None)

    def counted_hit_stops(self, bp: GdbBreakpoint) -> bool:
        """A %N breakpoint's hit counted: whether this one stops."""
        with self._lock:
            bp.hits += 1
            return bp.hits % bp.hit_n == 0

    def never_again(self, bp: GdbBreakpoint) -> None:
        """Once: gdb's ignore count made this the N-th hit; never stop here again."""
        try:
            mi_breakpoint.break_after(self._gdb, bp.number, NEVER_AGAIN)
        except GdbCommandError as exc:
            self._session.client.log(f"ignore breakpoint {bp.number} from now on: {exc.message}")

    # --- line breakpoints ------------------------------------------------------------------------
    def clear_source(self, state: SourceBreakpoints) -> None:
        with self._lock:
            old, state.gdb = state.gdb, []
        for bp in old:
            self.delete(bp.number)

    def insert_line(
        self, path: str, bp: dict[str, Any], state: SourceBreakpoints, *, gdb_file: str | None = None
    ) -> dict[str, Any]:
        new_id = self._session.handles.new_id
        line = int(bp["line"])
        try:
            hit_mode, hit_n = parse_hit_condition(bp.get("hitCondition"))
        except DapError as exc:
            return {"id": new_id(), "verified": False, "line": line, "message": str(exc)}
        try:
            inserted = mi_breakpoint.break_insert(
                self._gdb,
                f"{path}:{line}" if gdb_file is None else None,
                source=gdb_file,
                line=line,
                allow_pending=True,
                condition=str(bp["condition"]) if bp.get("condition") else None,
                ignore_count=ignore_count(hit_mode, hit_n),
            )
        except GdbCommandError as exc:
            return {"id": new_id(), "verified": False, "line": line, "message": exc.message}
        created = GdbBreakpoint(new_id(), inserted.number, path, line, bp.get("logMessage"))
        created.hit_mode, created.hit_n = hit_mode, hit_n
        created.condition = str(bp["condition"]) if bp.get("condition") else None
        created.parfor_only = gdb_file is not None
        with self._lock:
            state.gdb.append(created)
        self._new(created)
        if self._loop_headers is not None:
            # Set again on a loop header whose code gdb already runs: its addresses are known (the hit of
            # gdb's own address that finds them may never come again, e.g. inside the loop).
            self.insert_loop_header_twins(created, self._loop_headers.known_addresses(path, line))
        return self.to_dap(created, inserted)

    def to_dap(self, bp: GdbBreakpoint, reported: MIBreakpoint) -> dict[str, Any]:
        pending = reported.pending
        line = reported.line if reported.line is not None else bp.line
        with self._lock:  # also from gdb's dispatcher thread (breakpoint-modified)
            bp.verified = not pending
        result: dict[str, Any] = {"id": bp.dap_id, "verified": bp.verified}
        if bp.path:
            result["source"] = {"path": bp.path, "name": os.path.basename(bp.path)}
            result["line"] = line
        if pending:
            what = bp.function or "this function"
            result["message"] = f"Pending: set when Numba compiles {what} (gdb)"
            result["reason"] = "pending"
        return result

    def on_modified(self, record: dict[str, Any]) -> None:
        """gdb's breakpoint-modified: a pending breakpoint that Numba's compilation resolved."""
        bp = self.hit(str(record.get("number")))
        if bp is None:
            return
        was = bp.verified
        dap = self.to_dap(bp, MIBreakpoint.from_mi(record))
        if bp.verified and not was:
            self._session.client.event("breakpoint", {"reason": "changed", "breakpoint": dap})

    def at_loop_header(self, bp: GdbBreakpoint, frame: dict[str, Any]) -> bool:
        """Whether this hit of a line breakpoint is where its line runs for Python: on a loop header, gdb's
        address may not be (line_addresses.py); the addresses that are get breakpoints of their own."""
        gdb = self._gdb
        with self._lock:
            if self._loop_headers is None:
                self._loop_headers = LoopHeaderBreakpoints(
                    lambda cli: console_output(gdb, cli), self._session.client.log
                )
            headers = self._loop_headers
        report, extra = headers.on_hit(bp.path, bp.line, int(str(frame.get("addr", "0")), 16))
        self.insert_loop_header_twins(bp, extra)
        return report

    def insert_loop_header_twins(self, bp: GdbBreakpoint, addresses: list[int]) -> None:
        """Breakpoints at `addresses` that are `bp` for the editor (same DAP id, condition, log message),
        deleted with it when its source's breakpoints are set again."""
        state = self._session.breakpoints.source(bp.path)
        for address in addresses:
            try:
                inserted = mi_breakpoint.break_insert(self._gdb, f"*{address:#x}", condition=bp.condition)
            except GdbCommandError as exc:
                self._session.client.log(f"loop header breakpoint at {address:#x}: {exc.message}")
                continue
            twin = GdbBreakpoint(
                bp.dap_id, inserted.number, bp.path, bp.line, bp.log_message, condition=bp.condition
            )
            twin.verified = True
            self._new(twin)
            if state is not None:
                with self._lock:
                    state.gdb.append(twin)

    # --- function breakpoints --------------------------------------------------------------------
    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for old in self._function_bps:
            self.delete(old.number)
        self._function_bps = []
        results = []
        for bp in bps:
            try:
                created, inserted = self.insert_function(bp)
            except (GdbCommandError, DapError) as exc:
                message = exc.message if isinstance(exc, GdbCommandError) else str(exc)
                results.append({"id": self._session.handles.new_id(), "verified": False, "message": message})
                continue
            self._function_bps.append(created)
            results.append(self.to_dap(created, inserted))
        return results

    def insert_function(
        self, bp: dict[str, Any], *, temporary: bool = False
    ) -> tuple[GdbBreakpoint, MIBreakpoint]:
        """A breakpoint on a jitted function (pending until Numba compiles it): ours and gdb's record."""
        name = str(bp.get("name", "")).strip()
        if not name:
            raise DapError(
                "A function breakpoint needs the jitted function's name, e.g. walk or __main__::walk."
            )
        hit_mode, hit_n = parse_hit_condition(bp.get("hitCondition"))
        inserted = mi_breakpoint.break_insert(
            self._gdb,
            qualified_function_name(name),
            temporary=temporary,
            allow_pending=True,
            qualified=True,
            condition=str(bp["condition"]) if bp.get("condition") else None,
            ignore_count=ignore_count(hit_mode, hit_n),
        )
        created = GdbBreakpoint(
            self._session.handles.new_id(), inserted.number, "", 0, None, name, temporary=temporary
        )
        created.hit_mode, created.hit_n = hit_mode, hit_n
        return self._new(created), inserted

    # --- the in-code breakpoint and Step Into's temporary ones ------------------------------------
    def insert_in_code(self) -> None:
        """`numba.gdb_breakpoint()` (and, under the adapter, `numba.gdb()`: see debuggee_boot.py) call the C
        function numba_gdb_breakpoint: break there (pending until Numba's helper library loads), then
        finish to the jitted caller, so the stop shows the user's line, not Numba's helper."""
        try:
            inserted = mi_breakpoint.break_insert(self._gdb, "numba_gdb_breakpoint", allow_pending=True)
            self._in_code_number = inserted.number
        except GdbCommandError as exc:
            self._session.client.log(f"no in-code breakpoints: {exc.message}")

    def is_in_code(self, number: str) -> bool:
        return number == self._in_code_number

    def arm_step_in(self, qualified_names: list[str]) -> None:
        """Temporary breakpoints on the jitted functions a Python line may call (a Step Into from Python)."""
        temps = []
        for qualified in qualified_names:
            try:
                inserted = mi_breakpoint.break_insert(
                    self._gdb, qualified, temporary=True, allow_pending=True, qualified=True
                )
                temps.append(inserted.number)
            except GdbCommandError as exc:
                self._session.client.log(f"step-in breakpoint {qualified}: {exc.message}")
        new_id = self._session.handles.new_id
        with self._lock:
            self._step_in_temps = temps
            for number in temps:
                self._by_number[number] = GdbBreakpoint(
                    new_id(), number, "", 0, None, temporary=True, step_in=True
                )

    def delete_step_in_temps(self) -> None:
        with self._lock:
            temps, self._step_in_temps = self._step_in_temps, []
        for number in temps:
            self.delete(number)
