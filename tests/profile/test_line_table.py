"""The line-table walk that turns a sampled instruction into a line, checked against CPython's own
`co_positions()` (3.11+) or `co_lines()` (3.10) on every instruction of many real code objects (no Numba
needed)."""

from __future__ import annotations

import inspect
import json
import sys
import types

import pytest

from pyserver.profile.pyframes import line_from_pairs, line_from_table, pairs_are_sound

LOCATION_TABLE = sys.version_info >= (3, 11)  # 3.10: PEP 626's (byte delta, line delta) pairs
needs_location_table = pytest.mark.skipif(not LOCATION_TABLE, reason="3.11+'s location table")
needs_pairs = pytest.mark.skipif(LOCATION_TABLE, reason="3.10's line table")


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


@pytest.mark.parametrize("code", _code_objects()[:300], ids=lambda c: getattr(c, "co_qualname", c.co_name))
def test_line_of_every_instruction_matches_cpython(code: types.CodeType) -> None:
    if not LOCATION_TABLE:
        for start, end, line in code.co_lines():
            for address in range(start, end, 2):
                assert line_from_pairs(code.co_linetable, code.co_firstlineno, address // 2) == line, address
        return
    for index, (line, *_columns) in enumerate(code.co_positions()):
        assert line_from_table(code.co_linetable, code.co_firstlineno, index) == line, index


@needs_pairs
def test_every_real_pairs_table_is_sound_and_garbage_is_not() -> None:
    import random

    codes = _code_objects()
    assert all(pairs_are_sound(c.co_linetable, c.co_firstlineno, len(c.co_code)) for c in codes)
    assert line_from_pairs(b"\x06", 1, 10) is None  # cut short: no line
    rng = random.Random(0)
    garbage = [bytes(rng.randrange(256) for _ in range(rng.randrange(2, 64, 2))) for _ in range(5000)]
    assert len([g for g in garbage if pairs_are_sound(g, 100, 80)]) <= 5


@needs_location_table
def test_a_table_cut_short_gives_no_line() -> None:
    code = inspect.getsource.__code__
    table = code.co_linetable
    assert line_from_table(table[:3], code.co_firstlineno, 10_000) is None
    long_form_without_its_numbers = bytes([0x80 | (14 << 3)])
    assert line_from_table(long_form_without_its_numbers, 1, 0) is None


@needs_location_table
def test_every_real_table_is_sound_and_garbage_is_not() -> None:
    """A code object freed between its sample and its decoding leaves bytes that are no table: they
    must give no line, never a wrong one (a profile once showed line -20121435708990947256747860321)."""
    import random

    from pyserver.profile.pyframes import table_is_sound

    codes = _code_objects()
    assert all(table_is_sound(c.co_linetable, c.co_firstlineno, len(c.co_code) // 2) for c in codes)
    module = compile("x = 1\ny = 2\n", "<probe>", "exec")  # a module's first instruction is on line 0
    assert table_is_sound(module.co_linetable, module.co_firstlineno, len(module.co_code) // 2)
    rng = random.Random(0)
    garbage = [bytes(rng.randrange(256) for _ in range(rng.randrange(4, 64))) for _ in range(5000)]
    # Random bytes that end up covering a given code size are rare; most fail sooner.
    accepted = [g for g in garbage if table_is_sound(g, 100, 40)]
    assert len(accepted) <= 5, accepted
    assert sum(table_is_sound(g, 100) for g in garbage) < 100  # without the size, under 2%
    huge = bytes([0x80 | (13 << 3)]) + bytes([0x7F] * 6) + b"\x01"  # a line delta of about 2**35
    assert line_from_table(huge, 1, 0) is None and not table_is_sound(huge, 1)
