"""Execution commands (cdt-gdb-adapter: mi/exec.ts). A `Resume` names one resumption, so that code which
decides how to resume (stepping, the session) passes it on without building command strings."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, command_line
from pyserver.debug.gdb.mi_protocol import MIExecutor

ResumeKind = Literal["continue", "next", "step", "finish"]


@dataclass(frozen=True)
class Resume:
    """-exec-continue/-exec-next/-exec-step/-exec-finish with its options."""

    kind: ResumeKind
    thread: str | None = None
    frame: int | None = None  # -exec-finish: the frame to finish (gdb's level)
    all_threads: bool = False
    reverse: bool = False

    def command(self) -> str:
        return command_line(
            f"-exec-{self.kind}",
            f"--thread {self.thread}" if self.thread is not None else "",
            f"--frame {int(self.frame)}" if self.frame is not None else "",
            "--all" if self.all_threads else "",
            "--reverse" if self.reverse else "",
        )

    def __str__(self) -> str:
        return self.command()


def resume(mi: MIExecutor, how: Resume, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """Run the program on as `how` says; gdb answers ^running, the stop comes as *stopped."""
    mi.execute(how.command(), timeout)


def exec_continue(
    mi: MIExecutor,
    thread: str | None = None,
    *,
    all_threads: bool = False,
    reverse: bool = False,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> None:
    resume(mi, Resume("continue", thread, all_threads=all_threads, reverse=reverse), timeout)


def exec_next(
    mi: MIExecutor, thread: str | None = None, *, reverse: bool = False, timeout: float = DEFAULT_TIMEOUT_S
) -> None:
    resume(mi, Resume("next", thread, reverse=reverse), timeout)


def exec_finish(
    mi: MIExecutor, thread: str | None = None, frame: int | None = None, *, timeout: float = DEFAULT_TIMEOUT_S
) -> None:
    resume(mi, Resume("finish", thread, frame), timeout)


def exec_interrupt(mi: MIExecutor, *, all_threads: bool = True, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute(command_line("-exec-interrupt", "--all" if all_threads else ""), timeout)


def exec_run(mi: MIExecutor, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute("-exec-run", timeout)


def exec_arguments(mi: MIExecutor, argv: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """The program's arguments, quoted for the shell gdb starts it through."""
    mi.execute(command_line("-exec-arguments", *(shlex.quote(a) for a in argv)), timeout)
