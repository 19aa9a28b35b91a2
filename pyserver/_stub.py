"""Shared helper for subcommands whose issue has not landed yet."""

from __future__ import annotations

import argparse
import sys


def not_yet(name: str, args: argparse.Namespace) -> int:
    print(f"pyserver {name}: not yet implemented", file=sys.stderr)
    return 2
