"""What a launch or an attach asked for, read once from the request's arguments (launch.json).

A `LaunchSpec` is built by the session (pyserver/debug/session/launch.py: `read_launch_spec`, which also
checks the interpreter and prepares the debuggee's environment) and handed whole to the launch code; an
`AttachSpec` likewise for attach. Both are frozen: nothing changes them after the request is read.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyserver.debug.dap import DapError


class LaunchMode(str, enum.Enum):
    MIXED = "mixed"  # gdb + debugpy
    PYTHON = "python"  # NUMBA_DISABLE_JIT: the jitted functions run as Python, debugpy alone
    CUDASIM = "cudasim"  # Numba's CUDA simulator: kernels run as Python, debugpy alone

    @property
    def jitted_function_word(self) -> str:
        """What the user calls a jitted function in this mode."""
        return "kernel" if self is LaunchMode.CUDASIM else "jitted function"


MODES: tuple[LaunchMode, ...] = tuple(LaunchMode)


@dataclass(frozen=True)
class LaunchSpec:
    mode: LaunchMode  # mixed: gdb + debugpy; python: NUMBA_DISABLE_JIT; cudasim: Numba's CUDA simulator
    python: str  # the debuggee's interpreter
    program: str | None  # an absolute path
    module: str | None  # run with -m (it wins over program, which is then only checked)
    args: tuple[str, ...]
    env: Mapping[str, str | None]  # the debuggee's environment changes (None: unset)
    cwd: str
    port: int  # where debugpy listens inside the debuggee
    stop_at_jit_function: str | None  # stopAtJitFunction
    gdb_path: str | None  # gdbPath as given (resolved when gdb starts)
    console: str  # internalConsole | integratedTerminal
    show_internal: bool  # showInternalFrames
    just_my_code: bool
    stop_on_entry: bool
    reverse: bool  # gdb records jitted code for stepping back (mode mixed only)

    @property
    def target(self) -> str:
        """The program's path or module name (a terminal's title)."""
        return self.program or self.module or ""


def launch_mode(args: Mapping[str, Any]) -> LaunchMode:
    mode = str(args.get("mode") or "mixed")
    for known in MODES:
        if mode == known.value:
            return known
    raise DapError(f'Unknown "mode": {mode!r}. Use "mixed", "python" or "cudasim".')


@dataclass(frozen=True)
class AttachSpec:
    process_id: int | None  # attach gdb and an injected debugpy to this process (when no port)
    host: str  # ... or connect to a debugpy that listens here
    port: int | None
    python: str  # the interpreter that injects debugpy
    gdb_path: str | None
    show_internal: bool
    just_my_code: bool

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> AttachSpec:
        connect = args.get("connect") or {}
        port = args.get("port") or connect.get("port")
        process_id = args.get("processId")
        return cls(
            # A port wins over a process id (connect to that debugpy; gdb stays out).
            process_id=int(process_id) if process_id and not port else None,
            host=str(args.get("host") or connect.get("host") or "127.0.0.1"),
            port=int(port) if port else None,
            python=str(args.get("python") or sys.executable),
            gdb_path=args.get("gdbPath"),
            show_internal=bool(args.get("showInternalFrames", False)),
            just_my_code=bool(args.get("justMyCode", True)),
        )

    @property
    def mode(self) -> LaunchMode:
        """To a process, gdb attaches too; to a debugpy port, debugpy alone."""
        return LaunchMode.MIXED if self.process_id is not None else LaunchMode.PYTHON

    # What a launch may ask and an attach never does.
    stop_on_entry = False
    reverse = False
