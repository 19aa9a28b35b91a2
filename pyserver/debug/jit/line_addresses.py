"""Where a line breakpoint in jitted code must stop so that it stops each time Python's tracer reports the
line, and only then: the addresses, from the function's line table and its machine code.

gdb puts a line breakpoint at one address per function: the first is_stmt address of the line. That is
right for a line whose code is one piece, not for a loop header, whose code Numba spreads over blocks:
- `for x in it:` is the iterator's creation before the loop (once per loop entry), the loop's head
  (`iternext` and the exit test: once per iteration and once at the end) and `x = ...` at the top of
  the body. Python reports the line at the loop's entry and at each jump back: once per iteration and
  once when the loop ends, as many times as the head runs. gdb's address is the iterator's creation:
  one stop per loop entry.
- `while cond:` is the test before the loop and its copy at the end of the body (CPython 3.11 compiles
  the test twice, Numba keeps both blocks). Python reports the line at every test. gdb's address is the
  first test only: one stop per loop entry.

The rule, Python's (a line event when an instruction starts a line coming from another line, or by a
jump backward), applied to the machine code: an arrival at an is_stmt address of the line counts when
it comes from code of another line (falling through or jumping) or by a jump backward. An address
gets a breakpoint when some arrival there counts. An address whose code always flows into another
chosen address of the same line without leaving the line (the iterator's creation, which jumps to the
loop head) gives its breakpoint to that one: the head's stop stands for the loop's entry too.
Paths that leave the function without reaching another line (Numba's error returns) do not count.
When the code cannot be followed (an indirect jump), the answer is None: keep gdb's own address.
"""

from __future__ import annotations

import ast
import bisect
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyserver.debug.gdb.mi_protocol import GdbCommandError

_JUMP = re.compile(r"^\s*(j[a-z]+)\s+(0x[0-9a-fA-F]+)")
_ENDS = ("ret", "ud2", "hlt")


@dataclass(frozen=True)
class LineRow:
    """A row of the line table: from `address` on, code of `line` (0: the end of a sequence)."""

    line: int
    address: int
    is_stmt: bool


@dataclass(frozen=True)
class Instruction:
    address: int
    text: str  # the disassembly, e.g. "jmp    0x7fffe42f3224 <...+548>"


class FunctionCode:
    """One function's instructions and line table, with each instruction's successors."""

    def __init__(self, rows: Sequence[LineRow], instructions: Sequence[Instruction]) -> None:
        self.instructions = sorted(instructions, key=lambda i: i.address)
        self.addresses = [i.address for i in self.instructions]
        low, high = self.addresses[0], self.addresses[-1]
        self.rows = sorted((r for r in rows if low <= r.address <= high), key=lambda r: r.address)
        self.row_addresses = [r.address for r in self.rows]
        self._stmt_starts = {r.address for r in self.rows if r.is_stmt}
        self.followable = True
        self.successors: dict[int, list[tuple[int, bool]]] = {}  # address -> [(target, is_jump)]
        self.predecessors: dict[int, list[tuple[int, bool]]] = {}
        for index, instruction in enumerate(self.instructions):
            following = self.addresses[index + 1] if index + 1 < len(self.addresses) else None
            mnemonic = instruction.text.split()[0] if instruction.text.split() else ""
            out: list[tuple[int, bool]] = []
            match = _JUMP.match(instruction.text)
            if mnemonic.startswith("j"):
                if match is None:
                    self.followable = False  # an indirect jump: its targets are not known
                else:
                    out.append((int(match.group(2), 16), True))
                if mnemonic != "jmp" and following is not None:
                    out.append((following, False))
            elif mnemonic not in _ENDS and following is not None:
                out.append((following, False))
            self.successors[instruction.address] = out
            for target, is_jump in out:
                self.predecessors.setdefault(target, []).append((instruction.address, is_jump))

    def line_at(self, address: int) -> int:
        index = bisect.bisect_right(self.row_addresses, address) - 1
        return self.rows[index].line if index >= 0 else 0

    def starts(self, line: int) -> list[int]:
        """The line's is_stmt addresses that are instructions of this function."""
        known = set(self.addresses)
        return [r.address for r in self.rows if r.line == line and r.is_stmt and r.address in known]

    def counts(self, source: int, line: int) -> bool:
        """Whether arriving at an address of `line` from `source` can be a line event for Python's
        tracer: the last place a line started before `source` (an is_stmt address, looking back through
        code that starts no line, such as Numba's bookkeeping with another line's number) is of another
        line. (Python also counts a jump backward within one line; the machine code's order is not the
        bytecode's, so a loop on one line stops once, not per iteration.)"""
        return any(found != line for found in self.last_lines(source))

    def last_lines(self, address: int) -> set[int]:
        """The lines of the last is_stmt addresses executed up to `address`, over every path there."""
        starts = self._stmt_starts
        found: set[int] = set()
        seen = {address}
        todo = [address]
        while todo:
            current = todo.pop()
            if current in starts:
                found.add(self.line_at(current))
                continue
            predecessors = self.predecessors.get(current, [])
            if not predecessors:
                found.add(self.line_at(current))  # the function's entry
            for source, _ in predecessors:
                if source not in seen:
                    seen.add(source)
                    todo.append(source)
        return found

    def flows_only_into(self, start: int, target: int, line: int) -> bool:
        """Whether every path from `start` reaches `target` before a place where another line starts
        (an is_stmt address of another line), or leaves the function without one (an error return)."""
        row_starts = {r.address for r in self.rows if r.is_stmt}
        seen = {start}
        todo = [start]
        while todo:
            address = todo.pop()
            for following, _ in self.successors.get(address, []):
                if following == target or following in seen:
                    continue
                if following in row_starts and self.line_at(following) != line:
                    return False
                seen.add(following)
                todo.append(following)
        return True


def break_addresses(code: FunctionCode, line: int) -> list[int] | None:
    """The addresses where a breakpoint on `line` stops exactly when Python's tracer reports the line;
    None when the code cannot be followed or the line has no code here."""
    if not code.followable:
        return None
    starts = code.starts(line)
    if not starts:
        return None
    chosen = [
        start
        for start in starts
        if any(code.counts(source, line) for source, _ in code.predecessors.get(start, []))
        or not code.predecessors.get(start)
    ]
    absorbed: set[int] = set()
    for start in chosen:
        for other in chosen:
            if other != start and other not in absorbed and code.flows_only_into(start, other, line):
                absorbed.add(start)
                break
    return [start for start in chosen if start not in absorbed] or None


def loop_header_lines(source: str) -> set[int]:
    """The lines of `for` and `while` headers: the lines break_addresses is for (on other lines gdb's
    first address is the line's, and Numba's scattered bookkeeping code would add stops)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.lineno for node in ast.walk(tree) if isinstance(node, (ast.For, ast.While))}


_TABLE_ROW = re.compile(r"^\s*\d+\s+(\d+|END)\s+(0x[0-9a-fA-F]+)")


def parse_line_table(text: str) -> list[LineRow]:
    """The rows of gdb's `maint info line-table`, every symtab's. gdb 13 prints INDEX LINE ADDRESS IS-STMT
    PROLOGUE-END, gdb 16 INDEX LINE REL-ADDRESS UNREL-ADDRESS IS-STMT PROLOGUE-END EPILOGUE-BEGIN: the
    address is the first (relocated) one, and a flag is read in its header's column (a row may leave
    IS-STMT blank and mark a later column)."""
    rows = []
    stmt_column: int | None = None
    for raw in text.splitlines():
        if "IS-STMT" in raw:
            stmt_column = raw.index("IS-STMT")
            continue
        match = _TABLE_ROW.match(raw)
        if match and stmt_column is not None:
            line = 0 if match.group(1) == "END" else int(match.group(1))
            is_stmt = raw[stmt_column : stmt_column + len("IS-STMT")].strip() == "Y"
            rows.append(LineRow(line, int(match.group(2), 16), is_stmt))
    return rows


def parse_instructions(asm_insns: Sequence[dict[str, str]]) -> list[Instruction]:
    """The instructions of an MI disassembly (`asm_insns` of -data-disassemble, mode 0)."""
    return [Instruction(int(str(item["address"]), 16), str(item.get("inst", ""))) for item in asm_insns]


def header_addresses(table_text: str, asm_insns: Sequence[dict[str, str]], line: int) -> list[int] | None:
    """For a loop header line of one jitted function: where its breakpoint must be, from the function's
    disassembly and gdb's line table; None to keep gdb's own address."""
    instructions = parse_instructions(asm_insns)
    if not instructions:
        return None
    return break_addresses(FunctionCode(parse_line_table(table_text), instructions), line)


_DISASSEMBLY_LINE = re.compile(r"^(?:=>)?\s*(0x[0-9a-fA-F]+)(?: <[^>]*>)?:\s*(.*)$")


def parse_cli_disassembly(text: str) -> list[Instruction]:
    """The instructions of gdb's CLI `disassemble ADDRESS` ("   0x... <+4>:\\tmov ...", "=> " marks the pc)."""
    out = []
    for raw in text.splitlines():
        match = _DISASSEMBLY_LINE.match(raw)
        if match:
            out.append(Instruction(int(match.group(1), 16), match.group(2).strip()))
    return out


class LoopHeaderBreakpoints:
    """For the session: a line breakpoint on a loop header of a jitted function, gdb's own address
    replaced by break_addresses'. On a hit of gdb's breakpoint there, `on_hit` says whether to report the
    stop, and which addresses need a breakpoint of their own (once per function); the session inserts
    them (`*ADDRESS`, the same DAP breakpoint) and keeps gdb's (it is also what resolves in functions
    Numba compiles later). gdb is driven only through its CLI, by `console` (the MI layer's
    console_output)."""

    def __init__(self, console: Callable[[str], str], log: Callable[[str], None]) -> None:
        self.console = console
        self.log = log
        self._headers: dict[str, set[int]] = {}
        self._chosen: dict[tuple[str, int, int], list[int] | None] = {}  # (path, line, function start)

    def is_header(self, path: str, line: int) -> bool:
        if path not in self._headers:
            try:
                with open(path, encoding="utf-8") as handle:
                    self._headers[path] = loop_header_lines(handle.read())
            except (OSError, UnicodeDecodeError):
                self._headers[path] = set()
        return line in self._headers[path]

    def known_addresses(self, path: str, line: int) -> list[int]:
        """The addresses chosen so far for the line, in every function whose code was read: a breakpoint set
        again on it needs them at once."""
        return sorted(
            {a for key, chosen in self._chosen.items() if key[:2] == (path, line) for a in chosen or []}
        )

    def on_hit(self, path: str, line: int, address: int) -> tuple[bool, list[int]]:
        """(report this stop, addresses to add a breakpoint at) for a hit of the line's gdb breakpoint
        at `address`. Not a loop header, or code that cannot be followed: report it, add nothing."""
        if not self.is_header(path, line):
            return True, []
        try:
            instructions = parse_cli_disassembly(self.console(f"disassemble {address:#x}"))
            if not instructions:
                return True, []
            key = (path, line, instructions[0].address)
            new = key not in self._chosen
            if new:
                table = self.console(f"maint info line-table {re.escape(os.path.basename(path))}$")
                code = FunctionCode(parse_line_table(table), instructions)
                self._chosen[key] = break_addresses(code, line)
        except (GdbCommandError, ValueError, IndexError) as exc:  # keep gdb's own address
            self.log(f"loop header {path}:{line}: {exc}")
            return True, []
        chosen = self._chosen[key]
        if not chosen:
            return True, []
        return address in chosen, [a for a in chosen if a != address] if new else []
