"""Where argument types come from: the six sources of a jitted function's signatures, merged.

decorator, annotation, recorded (the signatures file), cache (`cache=True` index files), caller (jitted
callers in other workspace files, kept from their analysis) and python-caller (the workspace's Python
calls, typed without running them: python_callers.py). A candidate with the same argument types as
one found before is the same signature: the first source keeps it, and the calls that pass it are
added to it.
"""

from __future__ import annotations

import inspect
import os
import sys
import types as pytypes
import typing
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pyserver import numba_api
from pyserver.analysis.model import Range
from pyserver.analysis.worker.discover.discovery import JitFunction
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser
from pyserver.analysis.worker.report import report
from pyserver.analysis.worker.signatures.call_index import CallIndex
from pyserver.analysis.worker.signatures.python_callers import CallLink, PythonCallerTypes
from pyserver.analysis.worker.signatures.recorded_objects import RecordedObjects
from pyserver.pysource import layout_dimensions
from pyserver.record import store, types_codec

MAX_CROSS_FILE_CALLS = 64  # per callee: the distinct (argument types, call site) pairs kept


@dataclass
class CallerLink:
    """A call site that passes a candidate's argument types."""

    path: str
    function: str  # the caller's qualified name
    line: int  # 1-based
    range: Range | None = None  # the call, in a caller of another file; None: computed in this file


@dataclass
class Candidate:
    """One argument-type tuple for one function and where it came from."""

    args: tuple[Any, ...]
    return_type: Any | None
    source: str
    callers: list[CallerLink] = field(default_factory=list)
    # Why the types may not be the arguments' (annotations naming NumPy scalar classes): such a candidate
    # that does not type is set aside, with this note, rather than reported (Analyzer.run_candidate).
    uncertain: str = ""
    # the literals the calls' positional arguments are (CallTypes.literal_forms): where the function asks
    # for literal arguments (numba.literally), Numba compiles it for these (Analyzer.run_candidate)
    literal_forms: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass
class CrossFileCall:
    """Argument types a jitted caller passes to a jitted function of another workspace file."""

    args: tuple[Any, ...]
    params: str  # the callee's parameters when the caller was typed: a changed `def` drops the entry
    link: CallerLink


def _same_text(first: tuple[Any, ...], second: tuple[Any, ...]) -> bool:
    return len(first) == len(second) and [str(a) for a in first] == [str(b) for b in second]


def static_of_plain_class(
    module: pytypes.ModuleType | None, function: JitFunction, record: numba_api.Recorded
) -> bool:
    """Is the function a jitted static method of a plain top-level class (`@staticmethod` over `@njit`)?
    Its class holds the function's dispatcher in a staticmethod; a jitclass's members are Numba's own."""
    if function.kind not in ("njit", "jit") or function.name.count(".") != 1 or module is None:
        return False
    cls_name, method = function.name.split(".")
    cls = module.__dict__.get(cls_name)
    held = vars(cls).get(method) if isinstance(cls, type) else None
    return isinstance(held, staticmethod) and getattr(held.__func__, "py_func", None) is record.py_func


def annotation_note(
    params: list[inspect.Parameter], annotation_types: list[Any], has_self: bool
) -> tuple[str, list[str]] | None:
    """Where some parameters are annotated but the annotations give no signature: a sentence naming the
    annotations that name no exact Numba type (and what the others read as), and the parameters still
    without a usable annotation (those the note's example should annotate). None when none is annotated."""
    shown = [
        (p, t) for i, (p, t) in enumerate(zip(params, annotation_types, strict=True)) if i or not has_self
    ]
    annotated = [(p, t) for p, t in shown if p.annotation is not inspect.Parameter.empty]
    unread = [p for p, t in annotated if t is None]
    if not unread:
        return None
    vague = [f"`{p.name}: {_annotation_text(p.annotation)}`" for p in unread]
    read = [f"`{p.name}: {_annotation_text(p.annotation)}` reads as {t}" for p, t in annotated if t]
    arrays = [_array_annotation_gives(p.annotation) for p in unread if "ndarray" in str(p.annotation)]
    text = (
        f" Its annotation{'s' if len(vague) != 1 else ''} {', '.join(vague)} name{'s' if len(vague) == 1 else ''}"
        " no exact Numba type"
        + (f" ({'; '.join(dict.fromkeys(arrays))})" if arrays else "")
        + (f"; {', '.join(read)}" if read else "")
        + "."
    )
    return text, [p.name for p, t in shown if t is None]


def _annotation_text(annotation: Any) -> str:
    """An annotation as its source wrote it, nearly: a string's text, a class's dotted name, a type
    variable's name."""
    if isinstance(annotation, typing.TypeVar):
        return annotation.__name__
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _array_annotation_gives(annotation: Any) -> str:
    """What an `np.ndarray` annotation says of the array, and what it leaves out, in words: NumPy's
    parameterized form (`ndarray[tuple[int], dtype[float64]]`, `NDArray[np.float64]`) gives the dtype and
    maybe the dimensions, never the layout, which a Numba array type has."""
    args = typing.get_args(annotation)
    dtype = ndim = None
    if len(args) == 2:
        shape, dtype_arg = args
        dims = typing.get_args(shape)
        if typing.get_origin(shape) is tuple and dims and Ellipsis not in dims:
            ndim = len(dims)
        scalar = typing.get_args(dtype_arg)
        if scalar and isinstance(scalar[0], type) and issubclass(scalar[0], np.generic):
            try:
                dtype = np.dtype(scalar[0]).name
            except TypeError:  # an abstract scalar type (np.floating)
                dtype = None
    if dtype is None and ndim is None:
        return "an `np.ndarray` says nothing of the array's dtype, dimensions or layout: `float64[:]` does"
    said = [f"its dtype ({dtype})" if dtype else "", f"its dimensions ({ndim})" if ndim else ""]
    unsaid = ["its dimensions" if ndim is None else "", "its layout (C, F or any)"]
    example = f"{dtype or 'float64'}[{', '.join([':'] * (ndim or 1))}]"
    return (
        f"it gives {' and '.join(w for w in said if w)}, not {' or '.join(w for w in unsaid if w)}, which a "
        f"Numba array type has: `{example}` is any layout, `{example[:-1]}:1]` C"
    )


def params_text(py_func: Any) -> str:
    try:
        return str(inspect.signature(py_func))
    except (TypeError, ValueError):
        return "?"


def lazy_kernel(function: JitFunction, nargs: int) -> bool:
    """A kernel Numba compiles loop by loop as it is called: a `@vectorize` ufunc without signatures, or
    a dynamic `@guvectorize` gufunc (a layout, no signatures) whose layout names each parameter."""
    if "." in function.name:
        return False
    if function.kind == "vectorize":
        return True
    core = layout_dimensions(str(function.options.get("layout") or ""))
    return function.kind == "guvectorize" and core is not None and sum(map(len, core)) == nargs


def _loop_return_type(entry: store.Entry, resolve: Any) -> Any | None:
    """The recorded return type of a `@vectorize` loop, or of a compile from the signatures its dispatcher
    was built with (recorder: declared, Numba casts to it); None for any other compile, or one not decoded."""
    if entry.kernel not in ("vectorize", None) or entry.return_type is None:
        return None
    try:
        return types_codec.decode(entry.return_type, resolve)
    except (ValueError, KeyError, TypeError):
        return None


def recorded_stores(root: str, signature_files: list[str]) -> list[dict[str, Any]]:
    """The signatures files given (the default one when none is), each read once per version: a
    package's analysis asks for them once per module."""
    stores = []
    for path in signature_files or [os.path.join(root, str(store.DEFAULT_RELATIVE))]:
        data = store.load_current(path if os.path.isabs(path) else os.path.join(root, path))
        if data is not None:
            stores.append(data)
    return stores


def skipped_in_notes(data: dict[str, Any], key: str) -> list[str]:
    """Signatures `record` saw for `key` but could not store exactly (its notes: "KEY: skipped (ARGS):
    cannot store ..."), as "(ARGS)"."""
    prefix, marker = f"{key}: skipped (", "): cannot store"
    found = []
    for note in data.get("notes", []):
        if isinstance(note, str) and note.startswith(prefix) and marker in note:
            found.append("(" + note[len(prefix) : note.rindex(marker)] + ")")
    return found


def caller_link(link: CallLink) -> CallerLink:
    return CallerLink(
        link.path,
        link.function,
        link.line,
        Range.of(link.line - 1, link.col, link.end_line - 1, link.end_col),
    )


class CrossFileCalls:
    """Callers in other files: (callee's real path, qualname) -> the types they pass, kept from the
    analysis of the callers' files (replaced when a caller's file is analysed again)."""

    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], list[CrossFileCall]] = {}
        # path -> the cross-file caller types its last analysis saw, to tell when they changed.
        self.seen: dict[str, set[tuple[str, str]]] = {}

    def remember(
        self, record: numba_api.Recorded, callee: tuple[str, str], args: tuple[Any, ...], link: CallerLink
    ) -> None:
        if not all(isinstance(a, numba_api.Type) and a.is_precise() for a in args):
            return
        calls = self.calls.setdefault((os.path.realpath(callee[0]), callee[1]), [])
        if any(c.args == args and c.link == link for c in calls) or len(calls) >= MAX_CROSS_FILE_CALLS:
            return
        calls.append(CrossFileCall(args, params_text(record.py_func), link))

    def forget_from(self, path: str) -> None:
        """Drop what this file's callers passed: its analysis records it again."""
        for calls in self.calls.values():
            calls[:] = [c for c in calls if c.link.path != path]

    def types_by_file(self) -> dict[str, set[tuple[str, str]]]:
        by_file: dict[str, set[tuple[str, str]]] = {}
        for (file, qualname), calls in self.calls.items():
            for call in calls:
                by_file.setdefault(file, set()).add((qualname, repr(call.args)))
        return by_file

    def start(self, real_path: str) -> None:
        """A file's analysis begins: what its callers in other files passed so far, to compare later."""
        self.seen[real_path] = self.types_by_file().get(real_path, set())

    def changed_since(self, real_path: str) -> list[str]:
        """Other files whose jitted functions this file's callers now pass different types."""
        now = self.types_by_file()
        return sorted(
            file for file, seen in self.seen.items() if file != real_path and now.get(file, set()) != seen
        )


class SignatureSources:
    """Gathers the candidates of one function from every source."""

    def __init__(
        self,
        root: str,
        recorded_objects: RecordedObjects,
        is_workspace_file: Callable[[str], bool],
        parser: IncrementalParser | None = None,
    ) -> None:
        self.root = root
        self.recorded_objects = recorded_objects
        self.is_workspace_file = is_workspace_file
        self.cross_file = CrossFileCalls()
        # The workspace's Python calls (AST only, updated per changed file) and their typing.
        self.call_index = CallIndex(root, parser)
        self.python_callers = PythonCallerTypes(self.call_index)
        # function -> (Python calls found, why they gave no types), for the no-signature note; per run
        self.python_caller_notes: dict[str, tuple[int, list[str]]] = {}
        # function -> why its annotations gave no signature (some read no exact type): for its note
        self.annotation_notes: dict[str, tuple[str, list[str]]] = {}
        self._pending: tuple[Any, ...] | None = None  # this run's prepare_python_callers arguments
        self._real_paths: dict[str, str] = {}  # path -> realpath, this run

    def prepare_python_callers(
        self,
        path: str,
        source: str,
        module: pytypes.ModuleType | None,
        fingerprint: Callable[[Any], str],
        resolver: Callable[[], AbstractContextManager[Any]],
    ) -> None:
        """Index the buffer's calls (and any changed file's); type slices against this run's module. Done
        when a function first needs it: a file whose functions all declare signatures never pays for it."""
        self.python_caller_notes = {}
        self._pending = (path, source, module, fingerprint, resolver)
        self._real_paths = {}

    def _realpath(self, path: str) -> str:
        """os.path.realpath, once per path and analysis run (an lstat per folder of the path)."""
        real = self._real_paths.get(path)
        if real is None:
            real = self._real_paths[path] = os.path.realpath(path)
        return real

    def _ensure_python_callers(self) -> None:
        if self._pending is None:
            return
        path, source, module, fingerprint, resolver = self._pending
        self._pending = None
        self.call_index.refresh(path, source)
        real_path = os.path.realpath(path)
        # The workspace's other loaded modules, by file: looked up in sys.modules (hundreds of modules)
        # only when a caller in another file needs one, not on every run.
        by_file: dict[str, pytypes.ModuleType] | None = None

        def module_for(file: str) -> pytypes.ModuleType | None:
            nonlocal by_file
            real = os.path.realpath(file)
            if real == real_path:
                return module
            if by_file is None:
                by_file = {}
                for loaded in list(sys.modules.values()):
                    loaded_file = getattr(loaded, "__file__", None)
                    if isinstance(loaded_file, str) and self.is_workspace_file(loaded_file):
                        by_file[os.path.realpath(loaded_file)] = loaded
            return by_file.get(real)

        self.python_callers.configure(module_for, fingerprint, resolver)

    def candidates(
        self,
        function: JitFunction,
        record: numba_api.Recorded,
        module: pytypes.ModuleType | None,
        path: str,
        stores: list[dict[str, Any]],
        on_invalid: Callable[[Any, ValueError], None],
        unusable: list[str] | None = None,
    ) -> list[Candidate]:
        """Argument-type candidates from every source. Recorded signatures that cannot be used (their exact
        encoding does not decode here, or the recording skipped a type it cannot store) go to `unusable`
        as readable text, for the no-signature diagnostic and its quick fix. `on_invalid(sig, error)`:
        a decorator signature Numba cannot read."""
        found: list[Candidate] = []
        py_func = record.py_func
        self_type = None  # the instance type a jitclass method takes first
        member = None  # a property's getter gets its types from the code that reads the property
        if function.kind == "jitclass-method" and module is not None and function.name.count(".") == 1:
            class_name, member_name = function.name.split(".")
            # the class itself, or the name a jitclass call bound its jitclass to (`PointJ = jitclass(Point)`)
            member = numba_api.jitclass_member(module.__dict__.get(class_name), member_name)
            if member is None:
                self._ensure_python_callers()
                for name in self.call_index.jit_made_names(path, class_name):
                    member = member or numba_api.jitclass_member(module.__dict__.get(name), member_name)
            if member is not None and member[0] == "method":
                self_type = member[1]

        def add(args: tuple[Any, ...], return_type: Any, source: str) -> Candidate:
            # the same types, or types of the same text: a class defined again by an edit makes another
            # type object of the same StructRef or jitclass, which a caller in another module still holds
            existing = next((c for c in found if c.args == args or _same_text(c.args, args)), None)
            if existing is None:
                existing = Candidate(args, return_type, source)
                found.append(existing)
            else:
                existing.uncertain = ""  # another source gives the same types: they are the arguments'
            return existing

        def add_python_callers(signatures: list[Any], defaults_applied: bool = False) -> None:
            for call_types in signatures:
                passed = numba_api.defaults_applied(call_types.args) if defaults_applied else call_types.args
                if passed is None:
                    continue
                candidate = add(passed, None, "python-caller")
                for link in call_types.links:  # merged with a recorded or cached one of the same types
                    caller = caller_link(link)
                    if caller not in candidate.callers:
                        candidate.callers.append(caller)
                candidate.literal_forms += [
                    f for f in call_types.literal_forms if f not in candidate.literal_forms
                ]

        for sig in record.signatures:
            try:
                args, return_type = numba_api.parse_signature(sig)
            except ValueError as exc:
                on_invalid(sig, exc)
                continue
            if function.kind == "vectorize" or function.kind == "guvectorize":
                return_type = None if function.kind == "guvectorize" else return_type
            add(args, return_type, "decorator")
        # Annotations: every parameter (but a jitclass `self`) must name a type exactly.
        signature = inspect.signature(py_func)  # once: its text is the cross-file calls' key below
        params = list(signature.parameters.values())
        annotation_types: list[Any] = []
        numpy_scalars: list[str] = []  # `x: np.float64`: often written for an array of float64
        namespace = py_func.__globals__  # read only (annotation_type evaluates in a scope of its own)
        for index, param in enumerate(params):
            if index == 0 and self_type is not None:
                annotation_types.append(self_type)
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                annotation_types.append(None)
                continue
            annotation = param.annotation
            if annotation is inspect.Parameter.empty:
                annotation_types.append(None)
                continue
            annotated, numpy_scalar = numba_api.annotation_type_and_origin(annotation, namespace)
            annotation_types.append(annotated)
            if numpy_scalar:
                numpy_scalars.append(f"`{param.name}: np.{numpy_scalar}`")
        self.annotation_notes.pop(function.name, None)
        if params and any(t is None for t in annotation_types):
            note = annotation_note(params, annotation_types, self_type is not None)
            if note:
                self.annotation_notes[function.name] = note
        if params and all(t is not None for t in annotation_types):
            candidate = add(tuple(annotation_types), None, "annotation")
            if numpy_scalars and candidate.source == "annotation":
                candidate.uncertain = (
                    f"Its annotations {', '.join(numpy_scalars)} name NumPy scalar types, which code often "
                    "writes for arrays of that type"
                )
        elif not params and function.kind in ("njit", "jit"):
            add((), None, "annotation")  # no parameters: nothing to know
        # Recorded from real runs (the key only where a store records something: most hold nothing).
        recording = [data for data in stores if data.get("functions") or data.get("notes")]
        key = store.function_key(os.path.relpath(path, self.root), function.name) if recording else ""
        # a name the module defines again: the compiles of its other definitions are not this one's
        others: set[int] = set()
        if recording:
            self._ensure_python_callers()
            others = {start for start, _ in self.call_index.bindings_of(path, function.name)}
            others.discard(function.first_line)
        for data in recording:
            for entry in store.entries(data, key):
                if entry.first_line in others:
                    continue
                try:
                    args = tuple(
                        types_codec.decode(e, self.recorded_objects.resolve) for e in entry.types or ()
                    )
                except (ValueError, KeyError, TypeError):
                    if unusable is not None:
                        unusable.append("(" + ", ".join(entry.args) + ")")
                    continue
                # A ufunc loop, or a declared signature, returns its type (`f4(f4)`: Numba casts to it).
                returns = _loop_return_type(entry, self.recorded_objects.resolve)
                add(args, returns, "kernel" if entry.origin == "kernel" else "recorded")
            if unusable is not None:
                unusable.extend(skipped_in_notes(data, key))
        # cache=True index files (unpickled: the worker only runs in trusted workspaces).
        for args in numba_api.cache_index_signatures(py_func, path):
            add(args, None, "cache")
        # Python code that calls it (its module, other modules, tests), typed without running it.
        # A jitclass's constructor calls (`Bag(21)`) type its __init__, the instance type first.
        constructed = function.kind == "jitclass-method" and function.name.endswith(".__init__")
        by_python = function.kind in ("njit", "jit") and "." not in function.name
        if (by_python or (constructed and self_type is not None)) and not record.signatures:
            self._ensure_python_callers()
            called = function.name.split(".")[0]
            leading = (self_type,) if constructed else ()
            findings = self.python_callers.signatures(path, called, record.dispatcher, leading)
            self.python_caller_notes[function.name] = (findings.sites, findings.reasons)
            add_python_callers(findings.signatures, constructed)
        elif lazy_kernel(function, len(signature.parameters)) and not record.signatures:
            # a lazy ufunc called from Python with arrays: the loop of their element types; a dynamic
            # gufunc's calls pass its outputs too
            self._ensure_python_callers()
            nin = len(signature.parameters)
            core = (
                layout_dimensions(str(function.options.get("layout")))
                if function.kind == "guvectorize"
                else None
            )
            findings = self.python_callers.ufunc_loop_signatures(path, function.name, nin, core)
            self.python_caller_notes[function.name] = (findings.sites, findings.reasons)
            add_python_callers(findings.signatures)
        elif static_of_plain_class(module, function, record) and not record.signatures:
            # a jitted static method of a plain class: called on the class, or on `self` in its methods
            self._ensure_python_callers()
            cls, method = function.name.split(".")
            findings = self.python_callers.static_method_signatures(path, cls, method, record.dispatcher)
            self.python_caller_notes[function.name] = (findings.sites, findings.reasons)
            add_python_callers(findings.signatures)
        elif member is not None and member[0] != "property" and not record.signatures:
            # its calls on instances from Python (`bag.increment(3)`), the receiver typed as this class's
            # (a static method's on the class too: `Bag.add(1, 2)`)
            self._ensure_python_callers()
            method = function.name.split(".")[-1]
            static = member[0] == "static"
            findings = self.python_callers.method_signatures(method, record.dispatcher, member[1], static)
            add_python_callers(findings.signatures)
        # Jitted callers in other workspace files (seen when their files were analysed).
        calls = self.cross_file.calls
        current_params = str(signature)  # params_text(py_func)
        for call in calls.get((self._realpath(path), function.name), []) if calls else []:
            if call.params != current_params:
                continue  # the `def` changed since: the caller's types may no longer fit
            candidate = add(call.args, None, "caller")
            if candidate.source == "caller" and call.link not in candidate.callers:
                candidate.callers.append(call.link)
        return found

    def annotation_note(self, function: JitFunction) -> tuple[str, list[str]]:
        """Why the function's annotations gave it no signature, and the parameters to annotate (all of
        them where it has no annotation)."""
        return self.annotation_notes.get(function.name) or ("", function.params)

    def python_caller_note(self, path: str, function: JitFunction) -> str:
        """What the Python calls of the function gave, in words a user can act on."""
        if function.kind not in ("njit", "jit", "vectorize"):
            return ""
        if "." in function.name and function.name not in self.python_caller_notes:
            return ""  # a method: its calls are looked for on instances, where a note has no place
        sites, reasons = self.python_caller_notes.get(function.name, (0, []))
        made = self.call_index.jit_made_names(path, function.name) if "." not in function.name else ()
        if len(made) > 1:
            return (
                f" Jit calls make {len(made)} dispatchers of it ({', '.join(repr(n) for n in made)}), which Numba "
                "compiles apart, each with its own options: their calls type neither."
            )
        if not sites:
            called = "that dispatcher" if function.origin == "created" and function.created_line else "it"
            passed = self.call_index.value_uses(path, function.name) if "." not in function.name else []
            through = (
                f" It is used as a value at line {passed[0]} (kept, passed on or returned): calls through that "
                "value are not followed."
                if passed
                else ""
            )
            jitted = self.call_index.jitted_callers(path, function.name) if "." not in function.name else []
            if jitted:
                caller, line = jitted[0]
                through += (
                    f" The jitted function '{caller}' calls it (line {line}) and gave it no types: types for "
                    f"'{caller}' would type this call too."
                )
            return (
                f" No Python code in the workspace calls {called} by its name (looked in this module, the "
                f"modules that import it and the tests).{through}"
            )
        shown = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
        calls = f"{sites} Python call{'s' if sites != 1 else ''}"
        return f" Its {calls} gave no types without running anything: {shown}."

    def remember_cross_file_call(
        self,
        record: numba_api.Recorded | None,
        path: str,
        function: str,
        callee: tuple[str, str],
        args: tuple[Any, ...],
        line: int,
        index: report.SourceIndex,
    ) -> None:
        """Keep the types a caller of this file passes to a jitted function of another workspace file,
        for when that file is analysed (source 5, across modules)."""
        if record is None or not self.is_workspace_file(callee[0]) or not line:
            return
        call_range = index._call_on_line(line, callee[1].split(".")[-1]) or index.line_range(line)
        self.cross_file.remember(record, callee, args, CallerLink(path, function, line, call_range))
