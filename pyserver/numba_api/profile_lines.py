"""The profiler's hooks into Numba, installed inside the profiled program once it imports Numba.

- `line_tables_only`: every function compiled without an explicit `debug=` gets DWARF line tables and
  nothing else. Numba's full debug info (NUMBA_DEBUGINFO=1) changes the code that runs (every function
  `noinline`, locals kept in memory, bounds checks on, lifetimes extended) and spends its compile time on
  variable and type metadata; line tables alone change no instruction. Numba's own switch for this
  (`dbg_directives_only`, used for CUDA's lineinfo) keeps the optimised code; its DIBuilder is swapped
  for one that emits `LineTablesOnly` compile units (`DebugDirectivesOnly` writes no `.debug_info`, which
  pyelftools needs to find the line program) and no variables or types.
- `wrapper_lines`: Numba's ufunc and gufunc wrappers (a prange body's among them) have no debug info, and
  inline the function they loop over (declared `alwaysinline`): once inlined, that code has no lines.
  Such a wrapper gets a subprogram of line 0 and its calls a location of line 0, so the inlined code
  keeps its rows (inlined at the call) and the wrapper's own code has none.
- `parse_each_file_once`: with debug info on, Numba finds each function's first body line by parsing
  its whole file, once per function compiled; an index per file gives the same answers.
- `on_compile`: Numba's `numba:compile` event, start and end of each compile.
"""

from __future__ import annotations

import ast
import linecache
import os
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

from llvmlite import ir as llvm_ir
from numba.core import codegen, compiler, config, cpu, debuginfo, errors, event, lowering
from numba.misc import firstlinefinder
from numba.np.ufunc import ufuncbuilder

# Set on the target context of a function compiled with line tables only (and copied to the contexts
# derived from it, those of the implementations it calls).
LINES_ONLY_ATTRIBUTE = "numba_lens_lines_only"
# The emission kind that gives `.debug_line` plus the compile unit and subprograms that lead to it.
LINE_TABLES_ONLY = "LineTablesOnly"


class LineTablesDIBuilder(debuginfo.DIBuilder):  # type: ignore[misc]
    """Numba's DIBuilder; for directives-only lowering, line tables without variables or types."""

    def __init__(self, module: Any, filepath: str, cgctx: Any, directives_only: bool) -> None:
        # Numba's own implementations (np.sum, say) are compiled with fresh flags under the context of
        # the function that calls them: the context says whether that function wanted lines only.
        self.lines_only = directives_only or getattr(cgctx, LINES_ONLY_ATTRIBUTE, False)
        super().__init__(module, filepath, cgctx, directives_only)

    def initialize(self) -> None:
        # Numba's __init__ set its kind and now makes the compile unit: with ours.
        if self.lines_only:
            self.emission_kind = LINE_TABLES_ONLY
        super().initialize()

    def mark_variable(self, builder: Any, allocavalue: Any, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.lines_only:
            return None
        return super().mark_variable(builder, allocavalue, name, *args, **kwargs)

    def _di_subroutine_type(self, line: int, function: Any, argmap: dict[str, Any]) -> Any:
        if self.lines_only:
            return self.module.add_debug_info("DISubroutineType", {"types": self.module.add_metadata([])})
        return super()._di_subroutine_type(line, function, argmap)


def _lines_only_finalize(original: Callable[..., Any]) -> Callable[..., Any]:
    def finalize(self: Any, flags: Any, options: Any) -> Any:
        # Only where the user asked nothing (no `debug=`, no NUMBA_DEBUGINFO): everything else the
        # original resolves exactly as without the profiler.
        if not flags.is_set("debuginfo") and not getattr(config, "DEBUGINFO_DEFAULT", False):
            flags.debuginfo = True
            flags.dbg_directives_only = True
            if not flags.is_set("dbg_extend_lifetimes"):
                flags.dbg_extend_lifetimes = getattr(config, "EXTEND_VARIABLE_LIFETIMES", False)
            if not flags.is_set("boundscheck"):
                flags.boundscheck = False  # what Numba derives from debuginfo off
        return original(self, flags, options)

    finalize.numba_lens_lines_only = True  # type: ignore[attr-defined]
    return finalize


def _marking_lines_only(original: Callable[..., Any]) -> Callable[..., Any]:
    def make_subtarget(targetctx: Any, flags: Any) -> Any:
        context = original(targetctx, flags)
        if flags.debuginfo and flags.dbg_directives_only and isinstance(context, cpu.CPUContext):
            context = context.subtarget(**{LINES_ONLY_ATTRIBUTE: True})
        return context

    return make_subtarget


def line_tables_only() -> None:
    """Line tables for every function compiled from now on, the code unchanged."""
    for options in (cpu.CPUTargetOptions, ufuncbuilder.UFuncTargetOptions):
        if not getattr(options.finalize, "numba_lens_lines_only", False):
            options.finalize = _lines_only_finalize(options.finalize)  # type: ignore[method-assign]
    cpu.CPUContext.DIBuilder = LineTablesDIBuilder
    if not hasattr(cpu.CPUContext, LINES_ONLY_ATTRIBUTE):
        setattr(cpu.CPUContext, LINES_ONLY_ATTRIBUTE, False)
        compiler._make_subtarget = _marking_lines_only(compiler._make_subtarget)
    wrapper_lines()
    # A prange body is compiled from generated source: Numba warns that it has none, for debug info the
    # user did not ask for (its rows keep the user's line numbers, which the report maps back).
    warnings.filterwarnings(
        "ignore",
        message="Could not find source for function: <function __numba_parfor_gufunc",
        category=errors.NumbaDebugInfoWarning,
    )


def _inlines_without_lines(function: Any) -> list[Any]:
    """The calls of a definition with no debug info to functions it will inline: Numba's ufunc and
    gufunc wrappers."""
    if function.is_declaration or "dbg" in function.metadata:
        return []
    return [
        instruction
        for block in function.blocks
        for instruction in block.instructions
        if isinstance(instruction, llvm_ir.CallInstr)
        and isinstance(instruction.callee, llvm_ir.Function)
        and "alwaysinline" in instruction.callee.attributes
    ]


def _give_wrapper_lines(ir_module: Any, touched: list[Any]) -> None:
    """Line-0 debug info for the module's wrappers (module docstring); `touched` gets each function
    and call given a `dbg` attachment."""
    found = [(f, calls) for f in ir_module.functions if (calls := _inlines_without_lines(f))]
    if not found:
        return
    # Rows of file "<string>" are the ones the profiler maps to the function that registered the
    # object, as it does for a prange body compiled from generated source.
    dibuilder = LineTablesDIBuilder(ir_module, "<string>", None, True)
    for function, calls in found:
        touched.append(function)
        dibuilder.mark_subprogram(function, function.name, [], [], 0)
        located = llvm_ir.IRBuilder()
        dibuilder.mark_location(located, 0)
        for call in calls:
            touched.append(call)
            call.set_metadata("dbg", located.debug_metadata)
    dibuilder.finalize()


def _drop_wrapper_lines(ir_module: Any, touched: list[Any], named_before: set[str]) -> None:
    """Back to the module as Numba made it."""
    for item in touched:
        item.metadata.pop("dbg", None)
    for name in set(ir_module.namedmetadata) - named_before:
        del ir_module.namedmetadata[name]


def _with_wrapper_lines(original: Callable[..., Any]) -> Callable[..., Any]:
    def add_ir_module(self: Any, ir_module: Any) -> Any:
        named_before = set(ir_module.namedmetadata)
        touched: list[Any] = []
        try:
            _give_wrapper_lines(ir_module, touched)
        except Exception:  # lines are a nicety: the wrapper is compiled as Numba made it
            _drop_wrapper_lines(ir_module, touched, named_before)
            return original(self, ir_module)
        if not touched:
            return original(self, ir_module)
        try:
            return original(self, ir_module)
        except Exception:
            # Never a compile failed for the profiler's sake: again, without the debug info.
            _drop_wrapper_lines(ir_module, touched, named_before)
            return original(self, ir_module)

    add_ir_module.numba_lens_wrapper_lines = True  # type: ignore[attr-defined]
    return add_ir_module


def wrapper_lines() -> None:
    """Lines for the code Numba's ufunc and gufunc wrappers inline (module docstring)."""
    library = codegen.CPUCodeLibrary
    if not getattr(library.add_ir_module, "numba_lens_wrapper_lines", False):
        library.add_ir_module = _with_wrapper_lines(library.add_ir_module)  # type: ignore[method-assign]


def parse_each_file_once() -> bool:
    """Numba's `get_func_body_first_lineno`, answered from the code object's lines, else from an index
    built once per (file, mtime, size): every `def` by (name, line of the def or of its first decorator)
    -> first statement line, docstring skipped, as Numba's finder does. Anything else goes to Numba's own
    function. False when Numba is not the shape this was written for (left as it is)."""
    original = firstlinefinder.get_func_body_first_lineno
    if getattr(lowering, "get_func_body_first_lineno", None) is not original:
        return False
    indexes: dict[tuple[str, int, int], dict[tuple[str, int], int]] = {}

    def index_of(source: str) -> dict[tuple[str, int], int]:
        index: dict[tuple[str, int], int] = {}
        # Statements only (a `def` is one, never inside an expression): a fraction of ast.walk's nodes.
        pending: list[ast.AST] = [ast.parse(textwrap.dedent(source))]
        while pending:
            node = pending.pop()
            for _, value in ast.iter_fields(node):
                if isinstance(value, list):
                    pending.extend(
                        v for v in value if isinstance(v, (ast.stmt, ast.excepthandler, ast.match_case))
                    )
            if not isinstance(node, ast.FunctionDef) or not node.body:
                continue
            body = node.body
            if firstlinefinder._is_docstring(body[0]):
                if len(body) < 2:
                    continue  # Numba's finder fails here: let it
                body = body[1:]
            starts = {node.lineno} | ({node.decorator_list[0].lineno} if node.decorator_list else set())
            for start in starts:
                index.setdefault((node.name, start), body[0].lineno)
        return index

    def from_the_index(code: Any) -> int | None:
        info = os.stat(code.co_filename)
        key = (code.co_filename, info.st_mtime_ns, info.st_size)
        index = indexes.get(key)
        if index is None:
            with open(code.co_filename) as handle:
                index = indexes[key] = index_of(handle.read())
        return index.get((code.co_name, code.co_firstlineno))

    def first_body_line(pyfunc: Any) -> int | None:
        try:
            code = pyfunc.__code__
            if code.co_name.startswith("<"):
                return None  # a lambda or a comprehension: no `def` for Numba's finder to find either
            # The body's first statement is where its first instructions are: the code object answers
            # without parsing (Numba's large modules cost ~0.2 s each to parse), unless that line is a
            # decorator (a nested decorated def: Numba names the def's line) or there is none.
            line = min(
                (n for _, _, n in code.co_lines() if n is not None and n > code.co_firstlineno), default=None
            )
            if line is None or linecache.getline(code.co_filename, line).lstrip().startswith("@"):
                line = from_the_index(code)
        except Exception:
            return original(pyfunc)
        return line if line is not None else original(pyfunc)

    lowering.get_func_body_first_lineno = first_body_line
    return True


def on_compile(started: Callable[[Any], None], ended: Callable[[Any], None]) -> None:
    """Calls `started(data)` and `ended(data)` around every compile (Numba's `numba:compile` event;
    `data` holds the dispatcher and the argument types)."""

    class Listener(event.Listener):  # type: ignore[misc]
        def on_start(self, ev: Any) -> None:
            started(ev.data or {})

        def on_end(self, ev: Any) -> None:
            ended(ev.data or {})

    event.register("numba:compile", Listener())


def compiler_package_dirs() -> tuple[str, ...]:
    """The folders of Numba's and llvmlite's packages (with a trailing separator): frames there are the
    compiler's, not the code that asked for a compile."""
    import llvmlite
    import numba

    return tuple(os.path.dirname(os.path.abspath(m.__file__ or "")) + os.sep for m in (numba, llvmlite))


def llvmlite_library_path() -> str:
    """The file of the loaded libllvmlite, whose JIT debug descriptor the profiler reads."""
    from llvmlite.binding import ffi

    return str(ffi.lib._name)
