"""`python -m pyserver check` (placeholder until its issue lands)."""

from __future__ import annotations

import argparse

from pyserver._stub import not_yet


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    return not_yet("check", args)
