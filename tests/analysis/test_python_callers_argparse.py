"""Values read from argparse (`args.n` after `add_argument("--n", type=int, default=...)`) are typed
without running parse_args: the type found statically must be numba.typeof of what argparse really
gives, and an argument that may be None (no default) or whose type depends on the default stays
unknown."""

from __future__ import annotations

import argparse
import textwrap

import numba
from analysis_helpers import signatures_of

PARSER = """\
parser = argparse.ArgumentParser(description="a benchmark")
parser.add_argument("size", type=int)
parser.add_argument("--n", type=int, default=100)
parser.add_argument("--scale", type=float, default=0.5)
parser.add_argument("--offset", type=float, default="-2")
parser.add_argument("--steps-per-run", type=int, default=-3)
parser.add_argument("--maybe", type=int)
parser.add_argument("--mixed", type=float, default=1)
"""

SOURCE = (
    """\
import argparse
import numpy as np
from numba import njit

@njit
def run(n, scale, offset, steps):
    return n * scale + offset + steps

@njit
def sized(size):
    return np.zeros(size)

@njit
def maybe(m):
    return m

@njit
def mixed(m):
    return m

def main():
"""
    + textwrap.indent(PARSER, "    ")
    + """\
    args = parser.parse_args()
    run(args.n, args.scale, args.offset, args.steps_per_run)
    sized(args.size)
    maybe(args.maybe)
    mixed(args.mixed)

if __name__ == "__main__":
    main()
"""
)


def test_argparse_values_get_the_types_argparse_gives(ws) -> None:
    namespace: dict[str, object] = {"argparse": argparse}
    exec(PARSER, namespace)
    parser = namespace["parser"]
    assert isinstance(parser, argparse.ArgumentParser)
    args = parser.parse_args(["7"])  # what the script gets run with no options

    def truth(*values: object) -> tuple[str, ...]:
        return tuple(str(numba.typeof(v)) for v in values)

    result = ws.analyze("pc_argparse.py", SOURCE)
    assert signatures_of(result, "run") == [
        ("python-caller", truth(args.n, args.scale, args.offset, args.steps_per_run))
    ]
    assert signatures_of(result, "sized") == [("python-caller", truth(args.size))]
    assert signatures_of(result, "maybe") == []  # None unless the option is given
    assert signatures_of(result, "mixed") == []  # an int default is not converted to float


def test_a_parser_used_in_other_ways_gives_nothing(ws) -> None:
    source = """\
        import argparse
        from numba import njit

        @njit
        def run(n):
            return n

        parser = argparse.ArgumentParser()
        group = parser.add_mutually_exclusive_group()
        parser.add_argument("--n", type=int, default=3)
        parser.set_defaults(n=2.5)
        args = parser.parse_args()
        run(args.n)
    """
    assert signatures_of(ws.analyze("pc_argparse_other.py", source), "run") == []
