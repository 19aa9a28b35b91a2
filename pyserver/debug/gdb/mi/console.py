"""gdb's CLI through MI: -interpreter-exec console (cdt-gdb-adapter: mi/base.ts's console commands).

The CLI's printed text comes as console stream records between the command and its result; only an
executor that collects them (`ConsoleMIExecutor`, the back end) can return it."""

from __future__ import annotations

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, c_string, command_line
from pyserver.debug.gdb.mi_protocol import ConsoleMIExecutor, MIExecutor


def interpreter_exec_command(cli_command: str) -> str:
    return command_line("-interpreter-exec console", c_string(cli_command))


def interpreter_exec_console(mi: MIExecutor, cli_command: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """Run a CLI command (`source FILE`, `set ...`) whose output is not needed."""
    mi.execute(interpreter_exec_command(cli_command), timeout)


def console_output(mi: ConsoleMIExecutor, cli_command: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> str:
    """Run a CLI command and return the text it printed."""
    _payload, text = mi.execute_collecting_console(interpreter_exec_command(cli_command), timeout)
    return text
