"""Records Numba compiles in a running program (loaded by the sitecustomize hook; see cli.py).

Two hook points, because ufunc and gufunc kernels do not go through the "numba:compile" event:
- Numba's "numba:compile" events: each compile of a dispatcher whose function is defined in the workspace;
- `numba.np.ufunc.ufuncbuilder._compile_element_wise_function`, through which every @vectorize and
  @guvectorize loop compiles: eager, lazy (DUFunc, dynamic GUFunc) and builders made at run time.
Each compile is written to the signatures file at once (merged under a file lock, so child processes and
crashes lose nothing), with its exact argument types, whether it compiled, and how long it took.
"""

from __future__ import annotations

import json
import linecache
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from pyserver.record import store, types_codec
from pyserver.record.cuda_simulator import install_simulator_hook

_CELL_FILE = re.compile(r"ipykernel_\d+[/\\]\d+\.py$")
_EXCLUDED_PARTS = {"site-packages", "dist-packages", ".venv", "venv", "node_modules", ".tox"}


class Recorder:
    def __init__(self, signatures_path: str, root: str, notebook: str | None = None) -> None:
        self.signatures_path = signatures_path
        self.root = os.path.realpath(root)
        # The notebook whose kernel this is: functions defined in its cells are recorded under it.
        self.notebook = os.path.realpath(notebook) if notebook else None
        self.seen: set[tuple[str, str, bool, str | None, bool, int | None, str | None]] = set()
        self.generated_noted: set[str] = set()
        # Per thread: the compiles under way, each [start, seconds spent in nested compiles]. Compiles
        # nest (typing a call compiles the callee): a compile's own time leaves its callees' out.
        self._local = threading.local()

    def _stack(self) -> list[list[float]]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def begin(self) -> None:
        self._stack().append([time.perf_counter(), 0.0])

    def end(self) -> float | None:
        """The ended compile's own seconds (None when its start was not seen)."""
        stack = self._stack()
        if not stack:
            return None
        start, nested = stack.pop()
        total = time.perf_counter() - start
        if stack:
            stack[-1][1] += total
        return max(total - nested, 0.0)

    def function_path(self, py_func: Any) -> str | None:
        code = getattr(py_func, "__code__", None)
        if code is not None and self.notebook is not None and is_cell_file(code.co_filename):
            if not self.notebook.startswith(self.root + os.sep):
                return None
            return os.path.relpath(self.notebook, self.root)
        if code is None or code.co_filename.startswith("<"):
            return None  # compiled from a string ("<string>"): no file of the workspace
        return self.file_path(code.co_filename)

    def file_path(self, filename: str) -> str | None:
        """A workspace file's path relative to the root; None outside it or in an installed package."""
        real = os.path.realpath(filename)
        if not real.startswith(self.root + os.sep):
            return None
        relative = os.path.relpath(real, self.root)
        if set(relative.split(os.sep)) & _EXCLUDED_PARTS:
            return None
        return relative

    def _note_generated_copy(self, py_func: Any) -> None:
        """Say, once per function, that a compile of a workspace module's function made from generated
        text (`exec(compile(edited_source, "<generated>", "exec"), ...)`) is not recorded: its lines are
        no file's, so no type of it can be placed."""
        code = getattr(py_func, "__code__", None)
        if code is None or not code.co_filename.startswith("<"):
            return
        filename = getattr(sys.modules.get(getattr(py_func, "__module__", None) or ""), "__file__", None)
        path = self.file_path(filename) if isinstance(filename, str) else None
        if path is None:
            return
        key = store.function_key(path, py_func.__qualname__)
        if key in self.generated_noted:
            return
        self.generated_noted.add(key)
        with store.locked(self.signatures_path) as data:
            store.add_note(
                data,
                f"{key}: not recorded: Numba compiled a copy of it made from generated text "
                f"({code.co_filename}), whose lines are no file's",
            )

    def notebook_relative(self) -> str | None:
        if self.notebook is None or not self.notebook.startswith(self.root + os.sep):
            return None
        return os.path.relpath(self.notebook, self.root)

    def on_compile_end(
        self,
        py_func: Any,
        args: tuple[Any, ...],
        failed: bool,
        seconds: float | None = None,
        kernel: str | None = None,
        layout: str | None = None,
        return_type: Any = None,
        typed: dict[str, Any] | None = None,
        parallel: bool = False,
    ) -> None:
        """`typed`: what Numba typed in that compile (numba_api.typed_ir: returns, variables)."""
        relative = self.function_path(py_func)
        if relative is None or py_func is None:
            self._note_generated_copy(py_func)
            return
        key = store.function_key(relative, py_func.__qualname__)
        readable = [types_codec.readable(a) for a in args]
        # A name defined in several places (a factory's branches) is one function per definition.
        defined_at = getattr(getattr(py_func, "__code__", None), "co_firstlineno", None)
        # Another closure of the same `def` may type the same arguments differently (a factory's captured
        # values): a compile that typed otherwise is merged too (the store keeps what both typed).
        typed_as = None if typed is None else json.dumps(typed, sort_keys=True, default=str)
        dedupe = (key, repr(readable), failed, kernel, parallel, defined_at, typed_as)
        if dedupe in self.seen:
            return
        self.seen.add(dedupe)
        encoded = types_codec.encode_all(tuple(args), root=self.root, py_func=py_func)
        encoded_return = None
        if return_type is not None:
            encoded_return = types_codec.encode(return_type, root=self.root)
        origin = "kernel" if relative == self.notebook_relative() else None
        first_line = hashed = None
        lines: list[str] = []
        if typed is not None and origin is None:  # a notebook cell's lines are not the notebook's
            code = py_func.__code__
            first_line = code.co_firstlineno
            lines = linecache.getlines(code.co_filename)
            hashed = store.source_hash(lines, first_line)
        if hashed is None:
            typed = None  # types that cannot be tied to the function's text are never shown
        with store.locked(self.signatures_path) as data:
            if encoded is None:
                bad = [types_codec.readable(a) for a in args if types_codec.encode(a, root=self.root) is None]
                store.add_note(
                    data, f"{key}: skipped ({', '.join(readable)}): cannot store {', '.join(bad)} exactly"
                )
                if typed is None:
                    return  # else what it typed is kept, under its readable argument types
            entry = store.Entry(
                readable,
                encoded,
                ok=not failed,
                seconds=None if seconds is None else round(seconds, 4),
                at=round(time.time(), 3),
                kernel=kernel,
                layout=layout,
                returns=(
                    types_codec.readable(return_type)
                    if encoded_return is not None
                    else (typed or {}).get("returns")
                ),
                return_type=encoded_return,
                origin=origin,
                variables=None if typed is None else typed["variables"],
                first_line=first_line,
                source_hash=hashed,
                parallel=parallel or None,
                module_copy=_in_module_copy(py_func) or None,
            )
            store.merge(data, key, entry, lines)


def _in_module_copy(py_func: Any) -> bool:
    """Whether the function's globals are not those of the module its `__module__` names: it was defined by
    running the module's code again in another namespace."""
    module = sys.modules.get(getattr(py_func, "__module__", None) or "")
    namespace = getattr(py_func, "__globals__", None)
    return module is not None and namespace is not None and namespace is not getattr(module, "__dict__", None)


def is_cell_file(filename: str) -> bool:
    """A notebook cell's code: ipykernel names it .../ipykernel_<pid>/<hash>.py, IPython <ipython-input-...>."""
    return bool(_CELL_FILE.search(filename)) or filename.startswith("<ipython-input-")


def _warn(exc: BaseException) -> None:
    print(f"numba-lens: could not record a signature: {exc!r}", file=sys.stderr)


def install(signatures_path: str, root: str, notebook: str | None = None) -> Recorder:
    """Record every compile from now on; `notebook` (or NUMBA_LENS_NOTEBOOK, set by `record` for a
    command that names a notebook) is the notebook whose cells this process runs, if it is a kernel."""
    from numba.core import event

    notebook = notebook or os.environ.get("NUMBA_LENS_NOTEBOOK") or None
    recorder = Recorder(os.path.abspath(signatures_path), root, notebook)
    import numba

    from pyserver.versions import numba_verdict

    verdict = numba_verdict(numba.__version__, sys.executable)
    if verdict.status != "ok":  # the one version policy (pyserver/versions.py), said in the file's notes
        with store.locked(recorder.signatures_path) as data:
            store.add_note(data, verdict.message)

    class Listener(event.Listener):  # type: ignore[misc]
        def on_start(self, ev: Any) -> None:
            recorder.begin()

        def on_end(self, ev: Any) -> None:
            seconds = recorder.end()
            data = ev.data or {}
            try:
                dispatcher = data.get("dispatcher")
                # Lifted loops and with-blocks compile through their own dispatchers: not a user signature.
                if type(dispatcher).__name__ in ("LiftedLoop", "LiftedWith", "ObjModeLiftedWith"):
                    return
                args = tuple(data.get("args") or ())
                # Event.is_failed is inverted in Numba 0.68; a successful compile has added its overload
                # by the time the event ends.
                compiled = getattr(dispatcher, "overloads", {}).get(args)
                options = getattr(dispatcher, "targetoptions", None) or {}
                recorder.on_compile_end(
                    getattr(dispatcher, "py_func", None),
                    args,
                    compiled is None,
                    seconds,
                    return_type=_declared_return_type(data, compiled),
                    typed=None if compiled is None else _typed(compiled),
                    parallel=bool(options.get("parallel")),
                )
            except Exception as exc:  # recording must never break the user's program
                _warn(exc)

    event.register("numba:compile", Listener())
    # Kernels launched under the CUDA simulator compile nothing: their launches are recorded instead.
    install_simulator_hook(lambda py_func, args, failed: recorder.on_compile_end(py_func, args, failed))
    try:
        _install_stencil_hook(recorder)
    except Exception as exc:  # another Numba's internals: jitted functions are still recorded
        print(f"numba-lens: stencil kernels are not recorded with this Numba: {exc!r}", file=sys.stderr)
    try:
        _install_kernel_hooks(recorder)
    except Exception as exc:  # another Numba's internals: jitted functions are still recorded
        print(
            f"numba-lens: ufunc and gufunc loops are not recorded with this Numba: {exc!r}", file=sys.stderr
        )
    return recorder


def _declared_return_type(event_data: dict[str, Any], compiled: Any) -> Any:
    """The return type of a compile whose signature declares one (`njit(UniTuple(float64[:], 2)(...))(f)`,
    made at run time too): Numba casts the function's value to it, which typing the function again does
    not tell. None where the compile inferred it."""
    if compiled is None or event_data.get("return_type") is None:
        return None
    return getattr(getattr(compiled, "signature", None), "return_type", None)


def _typed(compiled: Any) -> dict[str, Any] | None:
    """What a compile typed (its typemap and return type), or None when it cannot be read."""
    try:
        from pyserver.numba_api import typed_ir

        return typed_ir.compiled_types(compiled, types_codec.readable)
    except Exception as exc:  # another Numba's internals: the signature is still recorded
        _warn(exc)
        return None


def _install_stencil_hook(recorder: Recorder) -> None:
    """A @stencil kernel is typed, never compiled through a dispatcher of its own (Numba compiles a
    function generated from it): record each typing of the kernel, with its typemap."""
    from numba.stencils.stencil import StencilFunc

    original: Callable[..., Any] = StencilFunc.get_return_type

    def get_return_type(self: Any, argtys: Any) -> Any:
        result = original(self, argtys)
        try:
            from pyserver.numba_api import typed_ir

            real_return, typemap = result[0], result[1]
            kernel_ir = self.kernel_ir
            typed = typed_ir.typed_ir_record(
                kernel_ir.blocks, typemap, real_return, kernel_ir.func_id, types_codec.readable
            )
            recorder.on_compile_end(
                kernel_ir.func_id.func, tuple(argtys), False, kernel="stencil", typed=typed
            )
        except Exception as exc:  # recording must never break the user's program
            _warn(exc)
        return result

    StencilFunc.get_return_type = get_return_type  # type: ignore[method-assign]


def _install_kernel_hooks(recorder: Recorder) -> None:
    """Wrap the one function every ufunc and gufunc loop compiles through, and tell gufunc loops apart."""
    from numba.core import sigutils
    from numba.np.ufunc import ufuncbuilder

    original_compile: Callable[..., Any] = ufuncbuilder._compile_element_wise_function
    original_gufunc_add: Callable[..., Any] = ufuncbuilder.GUFuncBuilder.add
    building = threading.local()  # (dispatcher, layout) of the gufunc builders adding a loop

    def gufunc_add(self: Any, *args: Any, **kwargs: Any) -> Any:
        stack = building.__dict__.setdefault("stack", [])
        stack.append((self.nb_func, self.signature))
        try:
            return original_gufunc_add(self, *args, **kwargs)
        finally:
            stack.pop()

    def compile_element_wise(nb_func: Any, targetoptions: Any, sig: Any) -> Any:
        recorder.begin()
        failed = True
        result = None
        try:
            result = original_compile(nb_func, targetoptions, sig)
            failed = False
            return result
        finally:
            seconds = recorder.end()
            try:
                stack = building.__dict__.get("stack") or []
                layout = stack[-1][1] if stack and stack[-1][0] is nb_func else None
                if result is not None:
                    args, return_type = tuple(result[0].signature.args), result[0].signature.return_type
                else:
                    args, return_type = sigutils.normalize_signature(sig)
                if layout is not None:
                    return_type = None  # a gufunc kernel returns nothing: its outputs are arguments
                recorder.on_compile_end(
                    getattr(nb_func, "py_func", None),
                    tuple(args),
                    failed,
                    seconds,
                    kernel="vectorize" if layout is None else "guvectorize",
                    layout=layout,
                    return_type=return_type,
                    typed=None if result is None else _typed(result[0]),
                )
            except Exception as exc:  # recording must never break the user's program
                _warn(exc)

    ufuncbuilder._compile_element_wise_function = compile_element_wise
    ufuncbuilder.GUFuncBuilder.add = gufunc_add  # type: ignore[method-assign]
