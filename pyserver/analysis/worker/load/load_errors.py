"""What a module's failure to load says: the exception, the line of the loaded file it came from, and a
message a person can read when the exception has none."""

from __future__ import annotations

import os
import traceback
import types
from dataclasses import dataclass, field

from pyserver.analysis.model import SkippedStatement
from pyserver.analysis.worker.load import skipped_effects


@dataclass
class LoadError:
    kind: str  # "exception" | "syntax"
    exc_type: str
    message: str
    line: int | None  # 1-based line in the loaded file (the top-level statement that failed)
    traceback_text: str
    # top-level statements the analysis never runs whose effects the failure may need (skipped_effects)
    needs_skipped: list[skipped_effects.SkippedEffect] = field(default_factory=list)


def line_in(exc: BaseException, path: str) -> int | None:
    lines = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == path]
    return lines[0] if lines else None


def load_error(
    exc: BaseException,
    path: str,
    module: types.ModuleType | None = None,
    skipped: list[SkippedStatement] | None = None,
    source: str = "",
) -> LoadError:
    """The error of a module that failed to load; with the module's `skipped` statements (definitions-only
    loading), the statements left out that the failure may need."""
    frames = traceback.extract_tb(exc.__traceback__)
    lines = [frame.lineno for frame in frames if frame.filename == path and frame.lineno]
    if isinstance(exc, SyntaxError) and exc.filename == path and exc.lineno:
        lines = [exc.lineno]  # a syntax error in the module itself (e.g. from exec of a string)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    message = describe_failure(exc, path)
    error = LoadError("exception", type(exc).__name__, message, lines[0] if lines else None, text)
    if skipped is not None:
        error.needs_skipped = skipped_effects.related(exc, module, skipped, source, path)
    return error


def describe_failure(exc: BaseException, path: str) -> str:
    """What a person needs to read a failure: the exception's message, or, when it has none (a bare
    `AssertionError`), the code that raised it and the module statement that led there."""
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}) at import"
    message = str(exc)
    if message:
        return message
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return f"{type(exc).__name__} with no message"
    innermost = frames[-1]
    raised = f"`{innermost.line}`" if innermost.line else "the code"
    where = f"{os.path.basename(innermost.filename)}:{innermost.lineno}"
    own = [frame for frame in frames if frame.filename == path]
    if own and own[0] is not innermost and own[0].line:  # the module's statement that led there
        return f"{raised} failed ({where}), reached from `{own[0].line}` (line {own[0].lineno})"
    return f"{raised} failed ({where})"
