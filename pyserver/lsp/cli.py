"""`python -m pyserver lsp`: the language server over stdio.

The protocol owns the process's real stdout. Before anything else runs, that stream is moved to a
private file descriptor and fd 1 is pointed at stderr, so no print() from a library, a C extension
or a child process can corrupt the protocol stream. stdin gets the same treatment: children read
/dev/null, not the client's messages.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log-level",
        default=os.environ.get("NUMBA_LENS_LOG_LEVEL", "info"),
        choices=["debug", "info", "warning", "error"],
        help="what goes to the client's log through window/logMessage (default: info)",
    )
    parser.add_argument(
        "--stdio", action="store_true", help="talk over stdio (the default; for clients that pass it)"
    )


def _protect_stdio() -> tuple[object, object]:
    """Return (protocol input, protocol output) binary streams; fds 0/1 no longer reach the client."""
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull)  # lives as long as the process
    return protocol_in, protocol_out


def run(args: argparse.Namespace) -> int:
    import logging

    protocol_in, protocol_out = _protect_stdio()
    level = getattr(logging, str(args.log_level).upper(), logging.INFO)
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )

    from pyserver.lsp.server import create_server, install_client_logging

    server = create_server()
    install_client_logging(server, level)
    code = 0
    try:
        server.start_io(protocol_in, protocol_out)  # type: ignore[arg-type]
        code = 0 if getattr(server.protocol, "_shutdown", False) else 1
    finally:
        # Stop the worker even when the client vanished without `shutdown` (stdin closed).
        closer = threading.Thread(target=server.close_engine, daemon=True)
        closer.start()
        closer.join(15.0)
        try:
            sys.stderr.flush()
            protocol_out.flush()  # type: ignore[attr-defined]
        except Exception:
            pass
        # Threads blocked in user-code analyses or on a pipe must not keep the process alive.
        os._exit(code)
    return code
