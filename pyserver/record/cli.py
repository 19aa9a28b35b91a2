"""`python -m pyserver record [--signatures FILE] -- COMMAND [ARGS...]`.

Runs COMMAND with a `sitecustomize` hook on PYTHONPATH (chaining the user's own), so every Python
process it starts, children included, records the signatures Numba compiles for workspace functions,
failed compiles too. The file defaults to `.numba-lens/signatures.json` under the current directory
(the workspace root); `check` and the editor read the same file. Exits with COMMAND's exit code
(128 + N when signal N ended it, or ended record); ending `record` ends COMMAND (pyserver.record.child).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from pyserver.record.child import RecordedCommand

HOOK_DIR = Path(__file__).resolve().parent / "hook"
PACKAGE_PARENT = Path(__file__).resolve().parent.parent.parent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--signatures",
        default=None,
        metavar="FILE",
        help="where to record (default: .numba-lens/signatures.json under the current directory)",
    )
    parser.add_argument(
        "--print-env",
        action="store_true",
        help="print, as JSON, the environment variables that switch recording on (for editors) and exit",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")


def recording_environment(signatures: Path, root: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment that switches recording on (also used by the editor for terminals and debugging)."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HOOK_DIR), env.get("PYTHONPATH", "")) if p)
    env["NUMBA_LENS_RECORD"] = str(signatures)
    env["NUMBA_LENS_RECORD_ROOT"] = str(root)
    env["NUMBA_LENS_PYSERVER_PATH"] = str(PACKAGE_PARENT)
    return env


def run(args: argparse.Namespace) -> int:
    from pyserver.record import store

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if args.print_env:
        import json

        root = Path.cwd().resolve()
        target = Path(args.signatures).resolve() if args.signatures else root / store.DEFAULT_RELATIVE
        env = recording_environment(target, root, base={"PYTHONPATH": os.environ.get("PYTHONPATH", "")})
        print(json.dumps(env, indent=2, sort_keys=True))
        return 0
    if not command:
        print(
            "pyserver record: give a command after --, e.g. `python -m pyserver record -- python script.py`",
            file=sys.stderr,
        )
        return 2
    root = Path.cwd().resolve()
    signatures = Path(args.signatures).resolve() if args.signatures else root / store.DEFAULT_RELATIVE
    try:
        before = store.load(signatures)
    except ValueError as exc:
        print(f"pyserver record: {exc}", file=sys.stderr)
        return 2
    env = recording_environment(signatures, root)
    notebooks = [arg for arg in command[1:] if arg.lower().endswith(".ipynb") and Path(arg).is_file()]
    if notebooks:  # `jupyter nbconvert --execute nb.ipynb`: its kernel records its cells' functions under it
        env["NUMBA_LENS_NOTEBOOK"] = str(Path(notebooks[0]).resolve())
    recorded = RecordedCommand(command, env)
    try:
        code = recorded.run()
    except FileNotFoundError:
        print(f"pyserver record: command not found: {command[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if not signatures.exists():
        with store.locked(signatures):
            pass  # a run that compiled nothing still leaves a valid, empty file to check against
    try:
        summarize(signatures, before)
    except OSError:
        pass  # the terminal is gone (record was ended because it closed): nothing to tell
    return code


def summarize(signatures: Path, before: dict[str, Any]) -> None:
    """What the run added to the signatures file, on stderr."""
    from pyserver.record import store

    try:
        after = store.load(signatures)
    except ValueError:
        after = before
    entries = [e for v in after["functions"].values() for e in v]
    count_before = sum(len(v) for v in before["functions"].values())
    failed = sum(not e.get("ok", True) for e in entries)
    print(
        f"numba-lens: {len(entries) - count_before} new signature(s) recorded, {len(entries)} in all "
        f"({failed} from failed compiles) in {signatures}",
        file=sys.stderr,
    )
    for note in after.get("notes", []):
        if note not in before.get("notes", []):
            print(f"numba-lens: note: {note}", file=sys.stderr)
