"""A gufunc's layout string ("(n),()->(n)") as the checker and the analysis read it."""

from __future__ import annotations

import re


def layout_dimensions(layout: str) -> tuple[list[int], list[int]] | None:
    """The number of core dimensions of each input and output of a gufunc layout ("(n),()->(n)")."""
    inputs, arrow, outputs = layout.replace(" ", "").partition("->")
    if not arrow:
        return None

    def groups(text: str) -> list[int]:
        return [len([d for d in group.split(",") if d]) for group in re.findall(r"\(([^)]*)\)", text)]

    return groups(inputs), groups(outputs)
