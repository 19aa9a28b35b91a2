"""Numba's truth for one program: run it, then dump what Numba really compiled.

    python ecosystem/truth.py BASE ROOT OUT.json PROGRAM.py [ARGS...]

Runs PROGRAM as `__main__` (a package workload, or a standalone script), then walks every live
dispatcher whose Python function is defined in ROOT (a file, or a file under the folder ROOT) and
writes, with paths relative to BASE, per function, each
compiled signature with Numba's typemap (`overloads[sig].type_annotation.typemap`: IR variable name ->
type). It also times Numba's compiles of those functions: the duration of the outermost "numba:compile"
events whose dispatcher is under ROOT (a callee compiled inside a caller's compile counts once, in its
caller), and of the compiles of @vectorize/@guvectorize kernels under ROOT (they have no such event),
in wall and in CPU seconds (the compiling thread's: LLVM compiles on it).

With ECO_IMPORT_FIRST (a JSON list of module names) it first compiles a warm-up function (as the
analysis worker types one at its start; not timed), then imports those modules before the program: a
module's functions with explicit signatures compile when it is imported. run.py uses that, in a fresh
process with an empty cache and no recording, to time Numba compiling what `check` typed. With
ECO_SIGNATURES (a JSON file of the signatures check showed, with their encoded argument types) it then
compiles exactly those (same_signatures.py) instead of running the program, and adds what it compiled
and what it could not ("same_signatures"). Runs in the ecosystem venv, next to the package; this file
is not part of pyserver.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import runpy
import sys
import time
import traceback
from typing import Any

from same_signatures import compile_signatures


def _under(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root + os.sep)


class PassClock:
    """CPU seconds of each Numba compiler pass, exclusive of the passes run inside it (a callee's compile
    during a caller's type inference counts in the callee's passes), since the last `start()`."""

    def __init__(self) -> None:
        from numba.core import event

        self.region: dict[str, float] = {}
        self.running: list[list[Any]] = []  # [pass name, CPU at its start, CPU of the passes inside it]
        clock = self

        class Listener(event.Listener):  # type: ignore[misc]
            def on_start(self, ev: Any) -> None:
                clock.running.append([(ev.data or {}).get("name", "?"), time.thread_time(), 0.0])

            def on_end(self, ev: Any) -> None:
                name, started, inner = clock.running.pop()
                spent = time.thread_time() - started
                clock.region[name] = clock.region.get(name, 0.0) + spent - inner
                if clock.running:
                    clock.running[-1][2] += spent

        event.register("numba:run_pass", Listener())

    def start(self) -> None:
        self.region = {}


def back_end_passes() -> set[str]:
    """The names of Numba's passes after type inference (its typed pipeline's rewrites, the parfor passes,
    lowering): the rest of a compile's passes are its front end, the untyped passes and type inference
    (with their sub-pipelines), which the analysis runs too."""
    from types import SimpleNamespace

    from numba.core.compiler import DefaultPassBuilder, Flags

    names = {"object_mode_back_end"}  # object mode's lowering (a fallback)
    for parallel in (False, True):
        flags = Flags()
        flags.auto_parallel = parallel
        state = SimpleNamespace(flags=flags, func_ir=None)
        for pipeline in (
            DefaultPassBuilder.define_typed_pipeline(state),
            DefaultPassBuilder.define_nopython_lowering_pipeline(state),
        ):
            names.update(pass_class._name for pass_class, _ in pipeline.passes)
    names.discard("nopython_type_inference")
    return names


def front_end_cpu_seconds(pass_cpu_seconds: dict[str, float]) -> float:
    """Of the passes' CPU (named "pass [function]"), the front end's."""
    back = back_end_passes()
    return sum(s for name, s in pass_cpu_seconds.items() if name.split(" [")[0] not in back)


class CompileTimer:
    """Outermost numba:compile events of functions under ROOT, summed; and the CPU of Numba's compiler
    passes in them, by pass (`pass_cpu_seconds`)."""

    def __init__(self, root: str) -> None:
        from numba.core import event

        self.root = root
        self.depth = 0
        self.started = (0.0, 0.0)  # the outermost compile's clocks at its start (begin)
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.events = 0
        self.pass_cpu_seconds: dict[str, float] = {}
        self.passes = PassClock()
        outer = self

        class Listener(event.Listener):  # type: ignore[misc]
            def on_start(self, ev: Any) -> None:
                if outer.depth == 0:
                    outer.started = outer.begin()
                outer.depth += 1

            def on_end(self, ev: Any) -> None:
                outer.depth -= 1
                if outer.depth == 0 and outer._ours(ev):
                    outer.end(outer.started)

        event.register("numba:compile", Listener())

    def begin(self) -> tuple[float, float]:
        """The clocks at the start of a timed compile; its passes are counted from here."""
        self.passes.start()
        return time.perf_counter(), time.thread_time()

    def end(self, started: tuple[float, float]) -> None:
        """Add a timed compile that `begin` gave `started` for: its wall and CPU seconds, and its passes."""
        self.seconds += time.perf_counter() - started[0]
        self.cpu_seconds += time.thread_time() - started[1]
        self.events += 1
        for name, seconds in self.passes.region.items():
            self.pass_cpu_seconds[name] = self.pass_cpu_seconds.get(name, 0.0) + seconds
        self.passes.start()

    def snapshot(self) -> tuple[float, float, int, dict[str, float]]:
        return self.seconds, self.cpu_seconds, self.events, dict(self.pass_cpu_seconds)

    def restore(self, snapshot: tuple[float, float, int, dict[str, float]]) -> None:
        self.seconds, self.cpu_seconds, self.events, self.pass_cpu_seconds = snapshot

    def time_kernel_compiles(self) -> None:
        """A @vectorize/@guvectorize kernel compiles with no numba:compile event: time its
        UFuncDispatcher's compiles of functions under ROOT as outermost events (the jitted functions
        they compile on the way count in them)."""
        from numba.np.ufunc.ufuncbuilder import UFuncDispatcher

        original = UFuncDispatcher.compile
        timer = self

        def compile(self: Any, *args: Any, **kwargs: Any) -> Any:
            code = self.py_func.__code__
            if timer.depth or not _under(code.co_filename, timer.root):
                return original(self, *args, **kwargs)
            started = timer.begin()
            timer.depth += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                timer.depth -= 1
                timer.end(started)

        UFuncDispatcher.compile = compile

    def _ours(self, ev: Any) -> bool:
        dispatcher = (ev.data or {}).get("dispatcher")
        code = getattr(getattr(dispatcher, "py_func", None), "__code__", None)
        return code is not None and _under(code.co_filename, self.root)


_KEPT: list[Any] = []  # every UFuncDispatcher made during the run (see _keep_kernel_dispatchers)


def _keep_kernel_dispatchers() -> None:
    """A gufunc built for target="parallel" keeps only the NumPy ufunc it made: its UFuncDispatcher (with
    the compiles' typemaps) is freed at once. Keep each one alive, so that the dump below sees it."""
    from numba.np.ufunc.ufuncbuilder import UFuncDispatcher

    original = UFuncDispatcher.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        _KEPT.append(self)

    UFuncDispatcher.__init__ = init


def _dispatchers(root: str) -> list[Any]:
    """Jit dispatchers, and the dispatchers behind @vectorize/@guvectorize kernels (UFuncDispatcher)."""
    from numba.core.dispatcher import Dispatcher
    from numba.np.ufunc.ufuncbuilder import UFuncDispatcher

    found = []
    alive = gc.get_objects()
    alive_ids = {id(obj) for obj in alive}
    for obj in alive + [kept for kept in _KEPT if id(kept) not in alive_ids]:
        try:
            if isinstance(obj, (Dispatcher, UFuncDispatcher)):
                code = obj.py_func.__code__
                if _under(code.co_filename, root):
                    found.append(obj)
        except Exception:  # an object whose isinstance check itself fails
            continue
    return found


def dump(root: str, base: str) -> list[dict[str, Any]]:
    functions: dict[tuple[str, str, int], dict[str, Any]] = {}
    for dispatcher in _dispatchers(root):
        py_func = dispatcher.py_func
        code = py_func.__code__
        path = os.path.relpath(os.path.realpath(code.co_filename), base)
        # the name of the `def` (a function renamed before it was jitted keeps its code's name)
        qualname = getattr(code, "co_qualname", py_func.__qualname__)
        key = (path, qualname, code.co_firstlineno)
        entry = functions.setdefault(
            key,
            {
                "path": path,
                "qualname": qualname,
                "module": py_func.__module__,
                "line": code.co_firstlineno,
                "signatures": [],
            },
        )
        # Twin dispatchers (a parallel=True and a serial one over the same function) compile apart: each
        # signature says which dispatcher compiled it.
        parallel = bool((getattr(dispatcher, "targetoptions", None) or {}).get("parallel"))
        for sig, cres in list(dispatcher.overloads.items()):
            args = [str(t) for t in getattr(sig, "args", sig)]  # a UFuncDispatcher keys by Signature
            if any(s["args"] == args and s["parallel"] == parallel for s in entry["signatures"]):
                continue
            annotation = getattr(cres, "type_annotation", None)
            typemap = getattr(annotation, "typemap", None) or {}
            entry["signatures"].append(
                {
                    "args": args,
                    "return_type": str(cres.signature.return_type),
                    "objectmode": bool(getattr(cres, "objectmode", False)),
                    "parallel": parallel,
                    "typemap": {str(name): str(ty) for name, ty in typemap.items()},
                }
            )
    return sorted(functions.values(), key=lambda f: (f["path"], f["line"], f["qualname"]))


def _keep_program(namespace: dict[str, Any]) -> None:
    """The program's globals as a module, found by its file: runpy gives `__main__` back once the program
    ended, and a type that names one of its classes (a jitclass) is decoded by where it is defined."""
    import types

    module = types.ModuleType("__eco_program__")
    module.__dict__.update(namespace)
    sys.modules[module.__name__] = module


def warm_up() -> None:
    """Compile once what the analysis worker types once at its start (its warm-up: the usual NumPy
    operations), outside ROOT so it is not timed: Numba's one-time costs of a first compile in a process
    are then left out as the warm worker's are, and both sides are timed warm."""
    import numba
    import numpy as np

    def warm(a, b, n):  # the same operations as pyserver's warm-up
        total = 0.0
        for i in range(n):
            total += a[i] * 2.0
        out = np.empty_like(a)
        out2 = np.zeros_like(a)
        grid = np.zeros((n, n))
        ones = np.ones(n)
        empty = np.empty(n, dtype=np.float64)
        steps = np.arange(n)
        stats = a.sum() + a.min() + a.max() + a.mean() + np.sum(b) + b.sum()
        shaped = b.shape[0] + b.T.shape[1] + a.size + len(a)
        maths = np.sqrt(a) + np.exp(a) + np.abs(a) + np.log(a + 1.0)
        copied = a.copy()
        return total, out, out2, grid, ones, empty, steps, stats, shaped, maths, copied, np.dot(a, a)

    numba.njit(warm)(np.ones(3), np.ones((3, 3)), 3)


def main(argv: list[str]) -> int:
    base, root, out, program, *args = argv
    base, root = os.path.realpath(base), os.path.realpath(root)
    timer = CompileTimer(root)
    timer.time_kernel_compiles()
    _keep_kernel_dispatchers()
    sys.argv = [program, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    status = "ok"
    if "ECO_IMPORT_FIRST" in os.environ:
        warm_up()
    imported, not_imported = [], []
    for name in json.loads(os.environ.get("ECO_IMPORT_FIRST", "[]")):
        try:
            importlib.import_module(name)
            imported.append(name)
        except BaseException:  # a module that does not import in plain Python: nothing of it compiles
            not_imported.append(name)
    started = time.perf_counter()
    signatures = os.environ.get("ECO_SIGNATURES")
    try:
        # With ECO_SIGNATURES the program runs only for a script (ECO_RUN_PROGRAM: its functions exist
        # once it ran); a package's modules were imported above.
        if signatures is None or os.environ.get("ECO_RUN_PROGRAM"):
            _keep_program(runpy.run_path(program, run_name="__main__"))
    except SystemExit as exc:
        if exc.code not in (None, 0):
            status = f"exit {exc.code}"
    except BaseException:
        status = "failed: " + traceback.format_exc(limit=3).strip().splitlines()[-1]
        traceback.print_exc()
    same: dict[str, Any] | None = None
    if signatures is not None:
        with open(signatures) as handle:
            same = compile_signatures(
                json.load(handle), base, lambda: _dispatchers(root), timer, not_imported
            )
    run_s = time.perf_counter() - started
    payload = {
        "program": program,
        "status": status,
        "run_s": run_s,
        "numba_compile_s": timer.seconds,
        "numba_compile_cpu_s": timer.cpu_seconds,
        "imported_first": imported,
        "not_imported": not_imported,
        "numba_compile_events": timer.events,
        "numba_pass_cpu_s": timer.pass_cpu_seconds,
        "numba_front_end_cpu_s": front_end_cpu_seconds(timer.pass_cpu_seconds),
        "functions": dump(root, base),
        **({"same_signatures": same} if same is not None else {}),
    }
    with open(out, "w") as handle:
        json.dump(payload, handle, indent=1)
    return 0 if status == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
