"""The location-table walk that turns a sampled instruction into a line, checked against CPython's own
`co_positions()` on every instruction of many real code objects (no Numba needed)."""

from __future__ import annotations

import inspect
import json
import types

import pytest

from pyserver.profile.pyframes import line_from_table


def _code_objects() -> list[types.CodeType]:
    found: list[types.CodeType] = []
    pending = [
        f.__code__
        for module in (json.decoder, json.encoder, inspect)
        for f in vars(module).values()
        if inspect.isfunction(f)
    ]
    while pending:
        code = pending.pop()
        found.append(code)
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return found


@pytest.mark.parametrize("code", _code_objects()[:300], ids=lambda c: c.co_qualname)
def test_line_of_every_instruction_matches_cpython(code: types.CodeType) -> None:
    for index, (line, *_columns) in enumerate(code.co_positions()):
        assert line_from_table(code.co_linetable, code.co_firstlineno, index) == line, index


def test_a_table_cut_short_gives_no_line() -> None:
    code = inspect.getsource.__code__
    table = code.co_linetable
    assert line_from_table(table[:3], code.co_firstlineno, 10_000) is None
    long_form_without_its_numbers = bytes([0x80 | (14 << 3)])
    assert line_from_table(long_form_without_its_numbers, 1, 0) is None
