"""gdb and target set-up: -gdb-set, the executable, environment, tty, attach/detach, exit (cdt-gdb-adapter:
mi/target.ts, mi/info.ts)."""

from __future__ import annotations

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, c_string, command_line
from pyserver.debug.gdb.mi_protocol import MIExecutor

# Written by the back end as gdb's last command, without a token (no answer is awaited).
GDB_EXIT = "-gdb-exit"


def gdb_set(mi: MIExecutor, setting: str, value: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """One gdb setting, e.g. gdb_set(mi, "pagination", "off")."""
    mi.execute(command_line("-gdb-set", setting, value), timeout)


def file_exec_and_symbols(mi: MIExecutor, path: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute(command_line("-file-exec-and-symbols", c_string(path)), timeout)


def environment_cd(mi: MIExecutor, path: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute(command_line("-environment-cd", c_string(path)), timeout)


def inferior_tty_set(mi: MIExecutor, tty_name: str, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute(command_line("-inferior-tty-set", tty_name), timeout)


def target_attach(mi: MIExecutor, pid: int, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute(command_line("-target-attach", str(int(pid))), timeout)


def target_detach(mi: MIExecutor, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute("-target-detach", timeout)
