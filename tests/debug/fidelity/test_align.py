"""The harness's alignment of stops with Python's line events (fidelity.py `_align`)."""

from __future__ import annotations

from fidelity import _align


def test_equal_sequences_pair_one_to_one_whatever_the_values_say() -> None:
    assert _align([1, 2, 1], [1, 2, 1], lambda i, j: -10 if i == j else 10) == ([(0, 0), (1, 1), (2, 2)], 0)


def test_as_many_pairs_as_can_be_then_the_values_decide() -> None:
    # A stop on line 2 is missing: the remaining stop pairs with the run its values agree with.
    pairs, unpaired = _align([1, 2, 1, 2], [1, 2], lambda i, j: 5 if i >= 2 else 0)
    assert pairs == [(2, 0), (3, 1)] and unpaired == 2
    pairs, unpaired = _align([1, 2, 1, 2], [1, 2])
    assert len(pairs) == 2 and unpaired == 2


def test_extra_and_missing_stops_are_out_of_sequence() -> None:
    assert _align([12, 13, 12], [12, 12, 13, 12]) == ([(0, 0), (1, 2), (2, 3)], 1)
