"""Threads, stacks and values: one thread list keyed by native id, one call stack (jitted frames, then their Python callers), scopes, variables and evaluate. A part of the Session class (session.py)."""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError
from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.gdb.mi import stack as mi_stack
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.session_common import (
    DEBUGGER_THREAD_NAME,
    DEBUGPY_REPLY_TIMEOUT_S,
    INTERNAL_PY_FILES,
    PARFOR_GUFUNC,
    FrameRef,
)

if TYPE_CHECKING:
    from pyserver.debug.session import Session


# --- threads and stacks --------------------------------------------------------------------------
def on_threads(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    if (self.gdb is None and self.debugpy is None) or self.ended.is_set():
        return {"threads": []}
    if self.mode != "mixed" or self.gdb is None:
        return self._forward("threads", {})
    threads = self._refresh_gdb_threads()
    names_by_native = {
        native: self.thread_names.get(theirs, "") for theirs, native in self.debugpy_threads.items()
    }
    result = []
    for thread in threads:
        match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
        if not match:
            continue
        native = int(match.group(1))
        if (
            thread.get("name") == DEBUGGER_THREAD_NAME
            and not self.show_internal
            and native != self.stopped_thread
        ):
            continue  # debugpy's own threads (named by debuggee_boot.py): hidden, as debugpy hides them
        name = names_by_native.get(native) or ("MainThread" if native == self.inferior_pid else "")
        name = name or self._worker_name(native, str(thread.get("id")))
        label = name or str(thread.get("name") or "thread")
        result.append({"id": native, "name": f"{label} ({native})"})
    return {"threads": result}


def _worker_name(self: Session, native: int, gdb_thread: str) -> str:
    """ "numba worker N" for a thread of Numba's threading layer (workqueue, OpenMP or TBB), found by
    its stack; cached, as a thread's start routine never changes."""
    if native in self.worker_names:
        return self.worker_names[native]
    assert self.gdb is not None
    try:
        stack = mi_stack.stack_list_frames(self.gdb, gdb_thread)
    except GdbCommandError:
        return ""
    text = " ".join(f"{f.get('func', '')} {f.get('from', '')} {f.get('file', '')}" for f in stack)
    if re.search(r"libgomp|gomp_thread|workqueue|thread_worker|libtbb|tbbpool|" + PARFOR_GUFUNC, text):
        kind = "numba worker"
    elif "blas_thread_server" in text:
        kind = "BLAS worker"  # OpenBLAS's own pool (numpy), not Numba's
    else:
        return ""
    name = f"{kind} {sum(1 for n in self.worker_names.values() if n.startswith(kind)) + 1}"
    self.worker_names[native] = name
    return name


def _forward(self: Session, command: str, args: dict[str, Any]) -> dict[str, Any]:
    if self.debugpy is None:
        raise DapError("The program is not running.")
    response = self.debugpy.request(command, args).wait(DEBUGPY_REPLY_TIMEOUT_S)
    if response is None:
        raise DapError(f"debugpy did not answer '{command}' in time.")
    if not response.get("success"):
        raise DapError(str(response.get("message") or f"debugpy: {command} failed"), show_user=False)
    return dict(response.get("body") or {})


def _debugpy_thread(self: Session, native: int) -> int:
    if self.mode != "mixed":
        return native
    with self._lock:
        return self.native_to_debugpy.get(native, native)


def on_stack_trace(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    thread_id = int(args.get("threadId", 0))
    start = int(args.get("startFrame") or 0)
    levels = int(args.get("levels") or 0)
    if self.owner == "gdb" and self.gdb is not None:
        frames = self._gdb_stack(thread_id)
    elif self.debugpy is not None:
        body = self._forward(
            "stackTrace",
            {**args, "threadId": self._debugpy_thread(thread_id), "startFrame": 0, "levels": 0},
        )
        frames = []
        for frame in body.get("stackFrames", []):
            path = str((frame.get("source") or {}).get("path") or "")
            if not self.show_internal and path == str(BOOTSTRAP):
                continue
            ref = FrameRef("debugpy", thread_id, debugpy_frame=int(frame["id"]))
            frame_id = self._remember_frame(ref)
            frames.append({**frame, "id": frame_id})
    else:
        raise DapError("The program is not stopped.")
    page = frames[start : start + levels] if levels else frames[start:]
    return {"stackFrames": page, "totalFrames": len(frames)}


def _remember_frame(self: Session, ref: FrameRef) -> int:
    frame_id = self.new_id()
    with self._lock:
        self.frames[frame_id] = ref
    return frame_id


def _gdb_stack(self: Session, thread_id: int) -> list[dict[str, Any]]:
    assert self.gdb is not None
    gdb_thread = self.gdb_threads.get(thread_id)
    if gdb_thread is None:
        self._refresh_gdb_threads()
        gdb_thread = self.gdb_threads.get(thread_id)
    if gdb_thread is None:
        raise DapError(f"Unknown thread {thread_id}.")
    try:
        raw = mi_stack.stack_list_frames(self.gdb, gdb_thread)
    except GdbCommandError as exc:
        if not self._recording or "registers" not in exc.message:
            raise
        # gdb 13's record full let this thread run on (see _refresh_gdb_threads): it has no stack to show.
        ref = FrameRef("internal", thread_id, gdb_thread, 0)
        label = "Running: gdb records another thread and does not hold this one"
        return [
            {
                "id": self._remember_frame(ref),
                "name": label,
                "line": 0,
                "column": 0,
                "presentationHint": "label",
            }
        ]
    frames: list[dict[str, Any]] = []
    for item in raw:
        kind = jitframes.classify_frame(item)
        level = int(item.get("level", 0))
        if kind == "jit":
            ref = FrameRef("jit", thread_id, gdb_thread, level, path=str(item.get("fullname", "")))
            ref.line = int(item.get("line", 0))
            name = jitframes.jit_frame_name(str(item.get("func", "?")))
            if PARFOR_GUFUNC in str(item.get("func", "")):
                name, ref.path = self._parfor_frame(ref.path)
            frames.append(
                {
                    "id": self._remember_frame(ref),
                    "name": name,
                    "source": {"path": ref.path, "name": os.path.basename(ref.path)},
                    "line": ref.line,
                    "column": 1,
                }
            )
        elif self.show_internal:
            ref = FrameRef("internal", thread_id, gdb_thread, level)
            frame: dict[str, Any] = {
                "id": self._remember_frame(ref),
                "name": f"[{kind}] {item.get('func', '??')}",
                "line": int(item.get("line", 0) or 0),
                "column": 0,
                "presentationHint": "subtle",
            }
            if jitframes.ARRAY_EXPR_KERNEL in str(item.get("func", "")):
                # Its debug info names the user's file at the generated code's line 1 or 2: no source
                # rather than a wrong line of the user's file.
                frame["line"] = 0
            elif item.get("fullname"):
                frame["source"] = {"path": item["fullname"], "presentationHint": "deemphasize"}
            frames.append(frame)
    frames.extend(self._gdb_python_frames(thread_id, gdb_thread))
    return frames


def _parfor_frame(self: Session, gdb_path: str) -> tuple[str, str]:
    """A prange body's gufunc: its debug info names the file "<string>" but keeps the user's line
    numbers. With one file holding prange breakpoints, that is the file; else the path stays unknown."""
    if os.path.basename(gdb_path) == "<string>" and len(self.parfor_sources) == 1:
        path, function = next(iter(self.parfor_sources.items()))
        return f"prange body of {function}", path
    return "prange body", gdb_path


def _gdb_python_frames(self: Session, thread_id: int, gdb_thread: str) -> list[dict[str, Any]]:
    """The Python frames of a thread held by gdb, read from CPython's structures (read-only)."""
    assert self.gdb is not None
    try:
        text = self.gdb.execute_console(f"numba-lens-pyframes {thread_id}")
        data = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
    except (GdbCommandError, ValueError) as exc:
        data = {"error": str(exc)}
    if "error" in data:
        self.log(f"Python frames unavailable: {data['error']}")
        return [
            {
                "id": self._remember_frame(FrameRef("internal", thread_id, gdb_thread, 0)),
                "name": "Python frames unavailable while gdb holds the program",
                "line": 0,
                "column": 0,
                "presentationHint": "label",
            }
        ]
    frames = []
    for index, item in enumerate(data.get("frames", [])):
        path = str(item.get("file", ""))
        if not self.show_internal and any(marker in path for marker in INTERNAL_PY_FILES):
            continue
        ref = FrameRef("gdb-python", thread_id, gdb_thread, index, path=path, line=int(item.get("line") or 0))
        frame: dict[str, Any] = {
            "id": self._remember_frame(ref),
            "name": str(item.get("name", "?")),
            "line": ref.line,
            "column": 1,
        }
        if os.path.isfile(path):
            frame["source"] = {"path": path, "name": os.path.basename(path)}
        frames.append(frame)
    return frames


def _gdb_python_locals(self: Session, thread_id: int, index: int) -> list[dict[str, Any]]:
    """Locals of a Python frame below jitted code, read from memory by gdb: simple values (int,
    float, bool, str, None) as Python prints them, other objects by type only."""
    if self.gdb is None:
        return []
    try:
        text = self.gdb.execute_console(f"numba-lens-pylocals {thread_id} {index}")
        data = json.loads(text.strip().splitlines()[-1])
    except (GdbCommandError, ValueError, IndexError) as exc:
        data = {"error": str(exc)}
    if "error" in data:
        self.log(f"Python locals unavailable: {data['error']}")
        return []
    return [
        {**item, "variablesReference": 0, "presentationHint": {"attributes": ["readOnly"]}}
        for item in data.get("locals", [])
    ]


# --- scopes, variables, evaluate -----------------------------------------------------------------
def _frame(self: Session, frame_id: int) -> FrameRef:
    with self._lock:
        ref = self.frames.get(frame_id)
    if ref is None:
        raise DapError("That frame is gone (the program has moved on).", show_user=False)
    return ref


def _our_ref(self: Session, kind: str, value: Any) -> int:
    ref = self.new_id()
    with self._lock:
        self.var_refs[ref] = (kind, value)
    return ref


def _translate_debugpy_refs(self: Session, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        item = dict(item)
        theirs = int(item.get("variablesReference") or 0)
        item["variablesReference"] = self._our_ref("debugpy", theirs) if theirs else 0
        out.append(item)
    return out


def on_scopes(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    ref = self._frame(int(args.get("frameId", 0)))
    if ref.kind == "debugpy":
        body = self._forward("scopes", {"frameId": ref.debugpy_frame})
        return {"scopes": self._translate_debugpy_refs(body.get("scopes", []))}
    if ref.kind == "jit" and self.values is not None:
        scopes = []
        for scope in self.values.frame_scopes(ref.gdb_thread, ref.level):
            handle = scope.pop("_handle", None)
            scope["variablesReference"] = self._our_ref("jit", handle) if handle is not None else 0
            scopes.append(scope)
        return {"scopes": scopes}
    if ref.kind == "gdb-python":
        handle = (ref.thread_id, ref.level)
        return {
            "scopes": [
                {
                    "name": "Locals (read-only)",
                    "presentationHint": "locals",
                    "expensive": False,
                    "variablesReference": self._our_ref("pylocals", handle),
                }
            ]
        }
    return {"scopes": []}


def on_variables(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    with self._lock:
        entry = self.var_refs.get(int(args.get("variablesReference", 0)))
    if entry is None:
        return {"variables": []}
    kind, value = entry
    if kind == "debugpy":
        body = self._forward("variables", {**args, "variablesReference": value})
        return {"variables": self._translate_debugpy_refs(body.get("variables", []))}
    if kind == "pylocals":
        return {"variables": self._gdb_python_locals(*value)}
    assert self.values is not None
    variables = []
    start = args.get("start")
    count = args.get("count")
    for variable in self.values.children(value, start, count):
        handle = variable.pop("_handle", None)
        variable["variablesReference"] = self._our_ref("jit", handle) if handle is not None else 0
        variables.append(variable)
    return {"variables": variables}


def on_evaluate(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    expression = str(args.get("expression", ""))
    context = str(args.get("context") or "repl")
    frame_id = args.get("frameId")
    ref = self._frame(int(frame_id)) if frame_id is not None else None
    if (ref is not None and ref.kind == "debugpy") or (ref is None and self.owner != "gdb"):
        if self.debugpy is None:
            raise DapError("The program is not running.")
        forwarded = {**args}
        if ref is not None:
            forwarded["frameId"] = ref.debugpy_frame
        body = self._forward("evaluate", forwarded)
        theirs = int(body.get("variablesReference") or 0)
        body["variablesReference"] = self._our_ref("debugpy", theirs) if theirs else 0
        return body
    if ref is not None and ref.kind == "gdb-python":
        raise DapError(
            "Python frames are read-only while the program is stopped in jitted code; "
            "step out to Python to evaluate there."
        )
    if self.values is None or self.gdb is None:
        raise DapError("No gdb session.")
    gdb_thread = ref.gdb_thread if ref is not None else self.gdb_threads.get(self.stopped_thread or 0, "1")
    level = ref.level if ref is not None else 0
    if context == "repl" and expression.startswith("`"):
        return {"result": self.gdb.execute_console(expression[1:]).rstrip(), "variablesReference": 0}
    result = self.values.evaluate(gdb_thread, level, expression, context)
    handle = result.pop("_handle", None)
    result["variablesReference"] = self._our_ref("jit", handle) if handle is not None else 0
    return result


def on_exception_info(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    if self.owner == "gdb" and self._last_signal:
        return {**self._last_signal, "breakMode": "always"}
    if self.owner == "debugpy":
        return self._forward(
            "exceptionInfo", {"threadId": self._debugpy_thread(int(args.get("threadId", 0)))}
        )
    raise DapError("No exception information.")
