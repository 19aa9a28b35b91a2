"""What every MI command shares: quoting (the one place arguments are quoted) and thread/frame options."""

from __future__ import annotations

# A command that gdb normally answers at once; exec/target commands that wait on the program pass more.
DEFAULT_TIMEOUT_S = 10.0


def c_string(text: str) -> str:
    """Quote text as an MI C string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def thread_frame_options(thread: str | int | None = None, frame: int | None = None) -> list[str]:
    """`--thread T --frame F` (gdb wants the thread before the frame); either may be left out."""
    options: list[str] = []
    if thread is not None:
        options.append(f"--thread {thread}")
    if frame is not None:
        options.append(f"--frame {int(frame)}")
    return options


def command_line(operation: str, *parts: str) -> str:
    """One MI command: the operation, then its non-empty options and arguments."""
    return " ".join([operation, *(part for part in parts if part)])
