"""`python -m pyserver {lsp,check,record,dap,doctor,profile}`.

Each subcommand's module is imported only when it runs, so `--help` and `doctor` stay fast and
work even when Numba is broken.
"""

from __future__ import annotations

import os
import sys

# `python -m pyserver` puts the current directory (the workspace, for the language server and `check`)
# first on sys.path: a workspace file named like a standard module (typing.py) would then replace it in
# this process. pyserver itself is already imported, so the entry is not needed (imported as a library,
# e.g. by tests, nothing changes).
if __name__ == "__main__" and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

import argparse
import importlib
from collections.abc import Sequence

from pyserver import __version__

# subcommand -> (module, help); each module exposes add_arguments(parser) and run(args) -> int.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "lsp": ("pyserver.lsp.cli", "run the language server over stdio"),
    "check": ("pyserver.analysis.cli", "type-check the jitted functions of files or directories"),
    "record": ("pyserver.record.cli", "run a command and record the signatures Numba compiles"),
    "dap": ("pyserver.debug.cli", "run the mixed gdb/debugpy debug adapter over stdio"),
    "doctor": ("pyserver.doctor", "report versions and whether debugging can work here"),
    "profile": (
        "pyserver.profile.cli",
        "run a command and sample where its time goes, jitted lines included",
    ),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """`only`: import that subcommand's module alone (the others are listed, without their options):
    `profile` starts the user's program sooner without the language server's imports before it."""
    parser = argparse.ArgumentParser(
        prog="python -m pyserver",
        description="Numba Lens: diagnostics, types and debugging for Numba code.",
    )
    parser.add_argument("--version", action="version", version=f"numba-lens {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(SUBCOMMANDS) + "}")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)
        module.add_arguments(sub_parser)
        sub_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments and arguments[0] in SUBCOMMANDS else None)
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return 2
    result: int = args._module.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
