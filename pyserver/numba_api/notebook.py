"""Numba's configuration for a profiled notebook kernel: line tables for the functions compiled from now
on (what NUMBA_DEBUGINFO=1 does for a profiled script, which a running kernel read too early)."""

from __future__ import annotations


def enable_line_tables() -> None:
    from numba.core import config

    config.DEBUGINFO_DEFAULT = True  # type: ignore[attr-defined]  # set from the environment at import


__all__ = ["enable_line_tables"]
