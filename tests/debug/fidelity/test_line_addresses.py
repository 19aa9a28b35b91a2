"""Where a breakpoint on a loop header must be (pyserver/debug/jit/line_addresses.py), on machine code small
enough to read, and on the real code of the fidelity programs' jitted functions.

line_tables/*.json were recorded from real sessions (the adapter's environment, NUMBA_OPT=0): the line
table and the control flow of one function (other instructions as `mov`), the hits of a breakpoint on
every is_stmt address while the program ran, the Python trace's lines of that function, and the
program's source then. Stopping at the chosen addresses (gdb's own address on other lines) must give
exactly Python's line sequence; gdb's own address on the loop headers does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyserver.debug.jit.line_addresses import (
    FunctionCode,
    Instruction,
    LineRow,
    break_addresses,
    header_addresses,
    loop_header_lines,
    parse_line_table,
)

TABLES = Path(__file__).resolve().parent / "line_tables"


def _code(rows: list[tuple[int, int, bool]], instructions: list[tuple[int, str]]) -> FunctionCode:
    return FunctionCode([LineRow(*r) for r in rows], [Instruction(*i) for i in instructions])


def test_for_header_breaks_at_the_loop_head_not_at_the_iterator_creation() -> None:
    # 10: before the loop; 12: `for` (head at 0x200, iterator creation at 0x300 placed after the body,
    # body start `x = ...` at 0x20c); 13: body (jumps back); 14: after the loop.
    code = _code(
        [(10, 0x100, True), (12, 0x200, True), (12, 0x20C, True), (13, 0x210, True), (12, 0x300, True),
         (10, 0x320, False), (14, 0x400, True)],
        [(0x100, "mov"), (0x104, "jmp 0x300"), (0x200, "call"), (0x204, "je 0x400"), (0x20C, "mov"),
         (0x210, "add"), (0x214, "jmp 0x200"), (0x300, "call"), (0x304, "je 0x320"), (0x308, "jmp 0x200"),
         (0x320, "ret"), (0x400, "ret")],
    )  # fmt: skip
    assert code.starts(12)[0] == 0x200  # gdb's choice here happens to be the head...
    assert break_addresses(code, 12) == [0x200]  # ...and the creation (0x300) flows into it
    assert break_addresses(code, 13) == [0x210]


def test_while_header_breaks_at_both_tests() -> None:
    # 12: the test before the loop (0x104) and its copy at the end of the body (0x114).
    code = _code(
        [(9, 0x100, True), (12, 0x104, True), (13, 0x10C, True), (14, 0x110, True), (12, 0x114, True),
         (15, 0x11C, True)],
        [(0x100, "mov"), (0x104, "cmp"), (0x108, "je 0x11c"), (0x10C, "mov"), (0x110, "add"), (0x114, "cmp"),
         (0x118, "jne 0x10c"), (0x11C, "ret")],
    )  # fmt: skip
    assert break_addresses(code, 12) == [0x104, 0x114]


def test_an_indirect_jump_keeps_gdbs_address() -> None:
    code = _code([(12, 0x100, True), (13, 0x108, True)], [(0x100, "jmp *%rax"), (0x108, "ret")])
    assert break_addresses(code, 12) is None


def test_parsers_read_gdbs_output() -> None:
    table = (
        "INDEX  LINE   ADDRESS            IS-STMT PROLOGUE-END \n"
        "0      8      0x00007fffe42f2000 Y                    \n"
        "1      9      0x00007fffe42f2eb6 Y       Y            \n"
        "2      9      0x00007fffe42f2ec0                      \n"
        "3      END    0x00007fffe42f2f00 Y                    \n"
    )
    assert parse_line_table(table) == [
        LineRow(8, 0x7FFFE42F2000, True),
        LineRow(9, 0x7FFFE42F2EB6, True),
        LineRow(9, 0x7FFFE42F2EC0, False),
        LineRow(0, 0x7FFFE42F2F00, True),
    ]
    insns = [
        {"address": "0x00007fffe42f2000", "inst": "push   %rbp"},
        {"address": "0x7fffe42f2eb6", "inst": "ret"},
    ]
    assert header_addresses(table, insns, 8) == [0x7FFFE42F2000]
    assert header_addresses(table, [], 8) is None


def test_the_line_table_is_read_by_its_columns_in_gdb_13_and_16() -> None:
    """A row may leave IS-STMT blank and mark PROLOGUE-END or EPILOGUE-BEGIN; gdb 16 prints two addresses."""
    gdb13 = (
        "INDEX  LINE   ADDRESS            IS-STMT PROLOGUE-END \n"
        "0      9      0x00007fffe42f2eb6 Y       Y            \n"
        "1      9      0x00007fffe42f2ec0         Y            \n"
    )
    assert parse_line_table(gdb13) == [LineRow(9, 0x7FFFE42F2EB6, True), LineRow(9, 0x7FFFE42F2EC0, False)]
    gdb16 = (
        "INDEX  LINE   REL-ADDRESS        UNREL-ADDRESS      IS-STMT PROLOGUE-END EPILOGUE-BEGIN \n"
        "0      8      0x00007ffff7e04000 0x00007ffff7e04000 Y                                   \n"
        "1      9      0x00007ffff7e043f6 0x00007ffff7e043f6 Y       Y                           \n"
        "6      12     0x00007ffff7e049b7 0x00007ffff7e049b7                      Y              \n"
        "9      10     0x00007ffff7e049ee 0x00007ffff7e049ee                                     \n"
        "12     END    0x00007ffff7e04c7e 0x00007ffff7e04c7e Y                                   \n"
    )
    assert parse_line_table(gdb16) == [
        LineRow(8, 0x7FFFF7E04000, True),
        LineRow(9, 0x7FFFF7E043F6, True),
        LineRow(12, 0x7FFFF7E049B7, False),
        LineRow(10, 0x7FFFF7E049EE, False),
        LineRow(0, 0x7FFFF7E04C7E, True),
    ]


@pytest.mark.parametrize("name", ["nested_if", "while_break", "helper_loop", "records", "calls"])
def test_recorded_functions_stop_as_python_reports_the_lines(name: str) -> None:
    data = json.loads((TABLES / f"{name}.json").read_text())
    code = _code([tuple(r) for r in data["rows"]], [tuple(i) for i in data["instructions"]])
    lines = sorted({row[0] for row in data["rows"] if row[0]})
    headers = loop_header_lines(data["source"]) & set(lines)
    assert headers
    gdb_own = {line: code.starts(line)[:1] for line in lines}
    chosen = {
        line: (break_addresses(code, line) if line in headers else None) or gdb_own[line] for line in lines
    }

    def stops(choice: dict[int, list[int]]) -> list[int]:
        addresses = {address for found in choice.values() for address in found}
        return [line for line, address in data["hits"] if address in addresses]

    # The function's entry (its `def` line's address) is no line Python reports.
    python = [line for line in data["python_lines"] if line in lines]
    assert [line for line in stops(chosen) if line in python] == python
    assert [line for line in stops(gdb_own) if line in python] != python


def test_loop_header_breakpoints_drive_gdb_through_its_cli(tmp_path: Path) -> None:
    from pyserver.debug.jit.line_addresses import LoopHeaderBreakpoints, parse_cli_disassembly

    source = tmp_path / "prog.py"
    source.write_text("def f(a):\n    s = 0\n    for x in a:\n        s += x\n    return s\n")
    disassembly = (
        "Dump of assembler code for function f:\n"
        "   0x0000000000000100 <+0>:\tmov    %rdi,%rax\n"
        "   0x0000000000000104 <+4>:\tjmp    0x300 <f+512>\n"
        "   0x0000000000000200 <+256>:\tcall   0x900\n"
        "   0x0000000000000204 <+260>:\tje     0x400 <f+768>\n"
        "   0x0000000000000210 <+272>:\tadd    %rax,%rbx\n"
        "   0x0000000000000214 <+276>:\tjmp    0x200 <f+256>\n"
        "=> 0x0000000000000300 <+512>:\tcall   0x800\n"
        "   0x0000000000000308 <+520>:\tjmp    0x200 <f+256>\n"
        "   0x0000000000000400 <+768>:\tret\n"
        "End of assembler dump.\n"
    )
    table = (
        "INDEX  LINE   ADDRESS            IS-STMT\n"
        "0      2      0x0000000000000100 Y\n1      3      0x0000000000000200 Y\n"
        "2      4      0x0000000000000210 Y\n3      3      0x0000000000000300 Y\n4      5      0x0000000000000400 Y\n"
    )
    assert [i.address for i in parse_cli_disassembly(disassembly)][-3:] == [0x300, 0x308, 0x400]
    asked: list[str] = []

    def console(command: str) -> str:
        asked.append(command)
        return disassembly if command.startswith("disassemble") else table

    headers = LoopHeaderBreakpoints(console, lambda _message: None)
    # gdb's own address is the iterator's creation (0x300): not a stop; the head (0x200) gets one.
    assert headers.on_hit(str(source), 3, 0x300) == (False, [0x200])
    assert headers.on_hit(str(source), 3, 0x200) == (True, [])
    assert headers.on_hit(str(source), 4, 0x210) == (True, [])  # not a loop header: as gdb says
    assert sum(command.startswith("maint info line-table") for command in asked) == 1
