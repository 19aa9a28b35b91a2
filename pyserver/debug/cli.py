"""`python -m pyserver dap`: the mixed gdb/debugpy debug adapter over stdio."""

from __future__ import annotations

import argparse
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log",
        metavar="FILE",
        default=os.environ.get("NUMBA_LENS_DAP_LOG"),
        help="append a trace of DAP, MI and debugpy traffic to FILE (or set NUMBA_LENS_DAP_LOG)",
    )


def run(args: argparse.Namespace) -> int:
    # Heavy imports stay here: `python -m pyserver --help` imports every cli module.
    from pyserver.debug.adapter import serve_stdio

    return serve_stdio(args.log)
