"""Load a workspace module in the worker: exec the editor buffer, record jitted functions, compile nothing.

- `__name__` is the module's dotted name under the workspace root (never "__main__"), so a
  `if __name__ == "__main__":` block does not run.
- The file's directory and the workspace root are on `sys.path`.
- Numba's decorators are hooked (numba_api.install_decorator_hooks): explicit signatures are recorded
  instead of compiled, so one failing signature never stops the rest of the module from being defined.
- By default (`loading = "definitions"`) only the top-level statements that defining the jitted
  functions needs run (toplevel_slice): a script's prints, loops, file writes and `__main__` block do
  not; the statements left out are listed in LoadResult.skipped_statements. "full" runs the whole top
  level as an import would.
- Time spent importing modules from outside the workspace is measured apart (import_clock), so that a
  package that compiles its own signatures at import does not count against the file's time-out.
- Workspace modules are imported from source, never from a `.pyc` (two saves within a second can
  leave a stale one), and reloaded when their file changed since the last run.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pyserver import numba_api, pysource
from pyserver.analysis.model import SkippedStatement
from pyserver.analysis.worker.discover import created
from pyserver.analysis.worker.load import (
    definitions_reuse,
    kernels_built_later,
    load_errors,
    module_codes,
    package_copy,
    slice_memo,
    toplevel_slice,
    unavailable,
)
from pyserver.analysis.worker.load.import_clock import IMPORT_CLOCK, timed_exec_module
from pyserver.analysis.worker.load.module_codes import annotates, statement_codes
from pyserver.analysis.worker.load.module_names import installed_module_names, module_name_for, package_root

_FILE_LOADERS = (
    importlib.machinery.SourceFileLoader,
    importlib.machinery.SourcelessFileLoader,
    importlib.machinery.ExtensionFileLoader,
)
_EXCLUDED_PARTS = {"site-packages", "dist-packages", ".venv", "venv", "node_modules", ".tox", ".git"}


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the source every time: no stale bytecode, and no .pyc written into the workspace."""

    definitions_only = False  # set by the Loader: run only the definitions of imported workspace modules
    # file (real path) -> the editor's text of it: the analysed file, imported as the user sees it
    buffers: ClassVar[dict[str, str]] = {}

    def __init__(self, fullname: str, path: str) -> None:
        super().__init__(fullname, path)
        self.unavailable: dict[str, str] = {}  # names the slice leaves without a value -> why
        self.ran: package_copy.Ran | None = None

    def exec_module(self, module: types.ModuleType) -> None:
        if not type(self).definitions_only:
            super().exec_module(module)
            return
        # `from module import NAME` of a name defined only by a statement that does not run imports an
        # UnavailableName; the module's own `__getattr__`, if it has one, replaces this one.
        self.unavailable = {}
        module.__getattr__ = unavailable.module_getattr(module, self.unavailable)  # type: ignore[method-assign]
        setattr(module, unavailable.UNAVAILABLE_ATTRIBUTE, self.unavailable)
        code = self.get_code(module.__name__)
        sliced = self.ran.sliced if self.ran is not None else None
        if sliced is None:
            exec(code, module.__dict__)  # it does not parse (compile() has said why), or not sliced
            return
        module_codes.run_imported(module, code, sliced)
        self.unavailable.update(sliced.unavailable)

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        buffers = type(self).buffers
        buffer = buffers.get(os.path.realpath(path)) if buffers else None
        source: str | bytes = buffer if buffer is not None else self.get_data(path)
        text = source if isinstance(source, str) else importlib.util.decode_source(source)
        self.ran = package_copy.Ran(os.path.realpath(path), text, type(self).definitions_only, None)
        if type(self).definitions_only:
            # Another module imports names from this one: its assignments stay (exports), its calls,
            # loops and `__main__` block do not run. None: it does not parse; compile() below says why.
            sliced_code = module_codes.imported_code(text, path)
            if sliced_code is not None:
                self.ran = package_copy.Ran(self.ran.path, text, True, sliced_code[0])
                self.unavailable.update(sliced_code[0].unavailable)
                return sliced_code[1]
        return compile(source, path, "exec", dont_inherit=True)


class _WorkspaceFinder(importlib.abc.MetaPathFinder):
    def __init__(self, is_workspace_file: Any) -> None:
        self.is_workspace_file = is_workspace_file
        self._finding: set[str] = set()

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            return self._third_party(fullname, path, target)
        if not self.is_workspace_file(spec.origin):
            return self._third_party(fullname, path, target)
        loader = _SourceOnlyLoader(fullname, spec.origin)
        return importlib.util.spec_from_file_location(  # type: ignore[attr-defined]
            fullname, spec.origin, loader=loader, submodule_search_locations=spec.submodule_search_locations
        )

    def _third_party(self, fullname: str, path: Any, target: Any) -> Any:
        """The spec the other finders give, its loading timed by IMPORT_CLOCK (never counted against the
        file). Only per-module file loaders are touched (an instance attribute): shared importers such as
        BuiltinImporter are left alone, and so is anything already being imported. Another loader's
        finder in this process is not asked: it would ask all the others again, each of them in turn, a
        number of lookups that grows as the factorial of the finders for a module none of them finds."""
        if fullname in self._finding:
            return None
        self._finding.add(fullname)
        spec = None
        try:
            for finder in list(sys.meta_path):
                if isinstance(finder, _WorkspaceFinder) or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        except (ImportError, ValueError, AttributeError):
            return None  # the import system asks the other finders itself and reports what they say
        finally:
            self._finding.discard(fullname)
        loader = getattr(spec, "loader", None)
        if spec is None or not isinstance(loader, _FILE_LOADERS):
            return spec
        if "exec_module" not in vars(loader):
            loader.exec_module = timed_exec_module(loader.exec_module, fullname)  # type: ignore[method-assign]
        return spec


@dataclass
class LoadResult:
    module: types.ModuleType | None
    recorded: dict[str, numba_api.Recorded] = field(default_factory=dict)  # qualname -> record
    error: load_errors.LoadError | None = None
    elapsed_ms: float = 0.0
    skipped: list[int] = field(default_factory=list)  # 1-based first lines of the statements not run
    skipped_statements: list[SkippedStatement] = field(default_factory=list)  # ... with ranges and reasons
    loading: str = "definitions"  # "definitions" | "full": see Loader.loading
    third_party_import_ms: float = 0.0  # spent importing modules from outside the workspace (not counted)
    third_party_import_cpu_ms: float = 0.0  # the CPU time of those imports
    unchecked: list[str] = field(default_factory=list)  # functions reading globals a failed statement sets
    # functions reading globals that only statements run for their effects set (never run): not checked
    not_checked: list[str] = field(default_factory=list)


def created_functions(recorded: dict[str, numba_api.Recorded]) -> list[created.Created]:
    """What Numba created for the functions of one file while it loaded, as plain data for discovery."""
    found = []
    for qualname, record in recorded.items():
        code = getattr(record.py_func, "__code__", None)
        if code is None:
            continue
        signatures = [s if isinstance(s, str) else str(s) for s in record.signatures]
        found.append(
            created.Created(qualname, code.co_firstlineno, record.kind, dict(record.options), signatures)
        )
    return found


class Loader:
    def __init__(self, root: str | Path) -> None:
        self.root = os.path.realpath(str(root))
        self.recorded: dict[tuple[str, str], numba_api.Recorded] = {}
        self._workspace_files: dict[str, bool] = {}  # path -> under the root (realpath is slow)
        self._real_folders: dict[str, str] = {}  # folder -> its realpath (many files share one)
        self._library_prefixes = tuple(
            {os.path.join(p, "lib", "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
        )
        self._stamps: dict[str, tuple[int, int]] = {}
        self._outside_modules: dict[str, types.ModuleType] = {}  # see refresh_changed_modules
        self._extra_files: set[str] = set()
        # "definitions": run only what defining the jitted functions needs (toplevel_slice), the default;
        # "full": run the module's whole top level, as `import` would (the `__main__` block still not).
        self.loading = "definitions"
        self.last_load: LoadResult | None = None
        # Lines where the last load of the file hung or crashed: under selective loading the top-level
        # statement (not a def or class) holding one of them does not run again.
        self.skip_lines: set[int] = set()
        # file -> (module name, module) loaded as a definitions-only slice for its own analysis
        self._sliced: dict[str, tuple[str, types.ModuleType]] = {}
        self._installed_names: set[str] | None = None  # see _add_search_path
        # The last load, when the next one of its file can start from it (definitions_reuse); None after
        # anything that compiled its functions for real (an IR view, object mode)
        self.last_definitions: definitions_reuse.LoadedDefinitions | None = None
        self._forgot_modules = False  # since the last load: its imports' values may be others now
        # Last: the finder and the hooks call back into this object as soon as anything is imported.
        sys.meta_path.insert(0, _WorkspaceFinder(self.is_workspace_file))
        numba_api.install_decorator_hooks(self.is_workspace_function, self._on_record)

    def _add_search_path(self, folder: str, own: str) -> None:
        """Put a folder on sys.path: in front, unless a module or package in it has the name of an installed
        one (an adapter module `pandas.py`): then after everything, so it never hides the real one."""
        if folder in sys.path:
            return
        if self._installed_names is None:
            self._installed_names = installed_module_names(self.root)
        try:
            entries = os.listdir(folder)
        except OSError:
            entries = []
        names = {entry[:-3] if entry.endswith(".py") else entry for entry in entries} - {own}
        if names & self._installed_names:
            sys.path.append(folder)
        else:
            sys.path.insert(0, folder)

    def is_workspace_file(self, path: str) -> bool:
        if path in self._extra_files:
            return True
        if path.startswith("<"):
            return False  # code compiled from a string ("<string>"), not a file under the root
        known = self._workspace_files.get(path)
        if (
            known is None
            and path.startswith(self._library_prefixes)
            and not self.root.startswith(self._library_prefixes)
        ):
            known = self._workspace_files[path] = False  # the interpreter's own files: skip realpath
        if known is None:
            real = self._real_path(path)
            known = (real == self.root or real.startswith(self.root + os.sep)) and not (
                set(Path(real).relative_to(self.root).parts) & _EXCLUDED_PARTS
            )
            self._workspace_files[path] = known
        return known

    def _real_path(self, path: str) -> str:
        """os.path.realpath(path), resolving each folder once (a module's first analysis looks at the
        files of every module imported so far: hundreds, in a few dozen folders)."""
        folder, name = os.path.split(path)
        if not os.path.isabs(path) or name in ("", ".", ".."):
            return os.path.realpath(path)
        real_folder = self._real_folders.get(folder)
        if real_folder is None:
            real_folder = self._real_folders[folder] = os.path.realpath(folder)
        joined = os.path.join(real_folder, name)
        return os.path.realpath(joined) if os.path.islink(joined) else joined

    def is_workspace_function(self, func: Any) -> bool:
        code = getattr(func, "__code__", None)
        return code is not None and self.is_workspace_file(code.co_filename)

    def _on_record(self, record: numba_api.Recorded) -> None:
        numba_api.mark_workspace_dispatcher(record.dispatcher)
        self.recorded[numba_api.function_id(record.py_func)] = record

    def refresh_changed_modules(self) -> list[str]:
        """Forget workspace modules whose file changed since they were imported, so they re-import."""
        dropped = []
        stale: list[types.ModuleType] = []
        # The modules from outside the workspace seen last time are not looked at again (thousands, with
        # Numba's); only the modules now in sys.modules are kept.
        known_outside, outside = self._outside_modules, {}
        for name, module in list(sys.modules.items()):
            if known_outside.get(name) is module:
                outside[name] = module
                continue
            file = getattr(module, "__file__", None)
            if not file or not self.is_workspace_file(file):  # (no file: nothing to look at again)
                outside[name] = module
                continue
            try:
                stat = os.stat(file)
                stamp = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                stamp = (-1, -1)
            previous = self._stamps.get(name)
            if previous is None:
                self._stamps[name] = stamp
            elif previous != stamp:
                stale.append(module)
                del sys.modules[name]
                self._stamps.pop(name, None)
                dropped.append(name)
        for module in stale:
            self._forget_package_referring_to(module)
        self._outside_modules = outside
        return dropped

    def load(
        self, path: str, source: str, selective: bool = False, tree: ast.Module | None = None
    ) -> LoadResult:
        """`tree`: `source` already parsed (the analyzer parses once); it is read, never changed."""
        started = time.perf_counter()
        clock_before, cpu_clock_before = IMPORT_CLOCK.excluded_s, IMPORT_CLOCK.excluded_cpu_s
        path = os.path.abspath(path)
        if path not in self._extra_files:
            self._extra_files.add(path)  # a file outside the root is still "the workspace" for itself
            # its module, if imported before, is a workspace module now
            files = {path, os.path.realpath(path)}
            self._outside_modules = {
                n: m for n, m in self._outside_modules.items() if getattr(m, "__file__", None) not in files
            }
        last, self.last_definitions = self.last_definitions, None  # see definitions_reuse
        dropped = self.refresh_changed_modules()
        self._forget_sliced_modules(path)
        names_before = set(sys.modules)
        # A module of a package is imported from above its package (relative imports work, and the
        # package's own folders never hide installed packages); a script's folder goes on the path as
        # Python puts it there when it runs the script.
        top = package_root(path)
        own = top.name if top is not None else Path(path).stem
        for entry in (self.root, str(top.parent) if top is not None else os.path.dirname(path)):
            self._add_search_path(entry, own)
        name, package = module_name_for(path, self.root)
        is_package = os.path.basename(path) == "__init__.py"
        parent = name.rpartition(".")[0]
        _SourceOnlyLoader.definitions_only = self.loading == "definitions"  # the packages' imports too
        # An `__init__` is imported as its package (its modules import from it), unless statement by statement.
        through = name if is_package and not selective else parent
        imported = self._import_package(name, through, path, source, selective) if through else None
        if self._forgot_modules or any(other != name for other in dropped):
            last = None  # a workspace module its statements imported is another one now
        self._forgot_modules = False
        if imported is not None:
            module = imported  # its package imported it, from this text: the one copy (package_copy)
        else:
            module = types.ModuleType(name)
            module.__file__ = path
            module.__package__ = package
            module.__builtins__ = __builtins__  # type: ignore[attr-defined]
            # A package stays a package (its submodules import), and the module has the spec Python gives.
            locations = [os.path.dirname(path)] if is_package else None
            module.__spec__ = importlib.util.spec_from_file_location(  # type: ignore[attr-defined]
                name, path, submodule_search_locations=locations
            )
            if locations is not None:
                module.__path__ = locations
        last_recorded = {  # recorded by another run of the file (kept aside: definitions_reuse)
            key: self.recorded.pop(key)
            for key in [k for k in self.recorded if k[0] == path]
            if getattr(self.recorded[key].py_func, "__globals__", None) is not module.__dict__
        }
        previous = sys.modules.get(name)
        sys.modules[name] = module
        parent_module = sys.modules.get(parent) if parent else None
        if parent_module is not None:
            setattr(parent_module, name.rpartition(".")[2], module)  # `from pkg import core` sees it
        result = LoadResult(module, loading=self.loading)
        definitions = self.loading == "definitions" or selective
        missing: set[str] = set()  # globals that statements left out for failing would have set
        without_value: set[str] = set()  # globals only statements run for their effects set (effects.py)
        kept_body: list[ast.stmt] = []  # the top-level statements that run, under definitions-only loading
        ran: list[ast.stmt] = []  # the statement of each code, one code per statement
        again: list[int] | None = None  # the statements run again in the last load's module
        try:
            if imported is not None:
                codes = []  # it ran (its slice's statements left out are listed)
                sliced_import = getattr(package_copy.ran(imported), "sliced", None)
                if sliced_import is not None:
                    result.skipped_statements = list(sliced_import.skipped)
                    without_value |= set(sliced_import.unavailable)
            elif definitions:
                parsed = tree if tree is not None else pysource.parse(source, path)
                # After an edit of a jitted function's body, the last slice of the file (slice_memo).
                sliced = slice_memo.remembered_slice(path, parsed, source)
                result.skipped_statements = sliced.skipped
                without_value |= set(sliced.unavailable)
                kept_body = sliced.tree.body
                if selective:
                    codes = statement_codes(sliced, path, self.skip_lines, result.skipped_statements, missing)
                else:
                    codes = module_codes.module_codes(sliced, path, source, {id(s) for s in parsed.body}, ran)
                    if self.loading == "definitions":
                        again = definitions_reuse.to_run_again(last, path, ran, [c for _, c in codes])
                    if again is not None and last is not None:
                        module = result.module = last.module
                        sys.modules[name] = module
                        if parent_module is not None:
                            setattr(parent_module, name.rpartition(".")[2], module)
                        self.recorded.update(last_recorded)  # the records of the `def`s not run again
                    elif annotates(sliced.tree.body):
                        # What the module's code does first (SETUP_ANNOTATIONS); its statements run apart.
                        module.__annotations__ = {}
            else:
                codes = [(None, compile(source, path, "exec", dont_inherit=True))]
        except SyntaxError as exc:
            result.error = load_errors.LoadError("syntax", "SyntaxError", str(exc.msg), exc.lineno, "")
            result.module = None
            self._restore(name, previous)
        else:
            skipped_by_rule = len(result.skipped_statements)
            for statement, code in codes if again is None else [codes[i] for i in again]:
                try:
                    exec(code, module.__dict__)
                except KeyboardInterrupt:
                    raise
                except unavailable.NameUnavailableError as exc:
                    # It reads a name an imported module could not define: by rule it does not run, and
                    # the statements after it still do.
                    position = module_codes.top_level_position(kept_body, load_errors.line_in(exc, path))
                    failed = statement or (None if position is None else kept_body[position])
                    if failed is None:
                        result.error = self._failure(exc, path, module, result, source, definitions)
                        break
                    end = failed.end_lineno or failed.lineno
                    result.skipped_statements.append(SkippedStatement(failed.lineno, end, exc.why_skipped()))
                    without_value |= toplevel_slice.bound_names(failed)
                except BaseException as exc:  # SystemExit included: the module stops, the analysis goes on
                    if statement is None:
                        result.error = self._failure(exc, path, module, result, source, definitions)
                        break
                    # Selective loading goes on past a statement that fails, and says it did not run.
                    reason = (
                        f"it raised {type(exc).__name__}: {load_errors.describe_failure(exc, path)[:200]}"
                    )
                    result.skipped_statements.append(
                        SkippedStatement(statement.lineno, statement.end_lineno or statement.lineno, reason)
                    )
                    missing |= toplevel_slice.bound_names(statement)
            clean = result.error is None and len(result.skipped_statements) == skipped_by_rule
            if again is not None and not clean:  # a `def` run again failed: load as a fresh load does
                return self.load(path, source, selective, tree)
            if result.error is None:
                self._stamps[name] = _stamp(path)
            definitions_reuse.forget_unmade(self.recorded, last_recorded, ran, again)
            if clean and ran:
                self.last_definitions = definitions_reuse.loaded(path, module, ran, codes)
        result.skipped_statements.sort(key=lambda s: s.line)
        result.skipped = [s.line for s in result.skipped_statements]
        result.third_party_import_ms = (IMPORT_CLOCK.excluded_s - clock_before) * 1000.0
        result.third_party_import_cpu_ms = (IMPORT_CLOCK.excluded_cpu_s - cpu_clock_before) * 1000.0
        if definitions and result.skipped_statements and imported is None:
            self._sliced[path] = (name, module)  # see _forget_sliced_modules
        self.last_load = result
        if sys.modules.keys() != names_before:  # (compared in C: a save that imports nothing new skips it)
            self.refresh_changed_modules()  # stamps the workspace modules this run imported
        if result.error is None and result.module is not None and ")(" in source:  # builder(...)(f)
            recorded_here = {qualname for file, qualname in self.recorded if file == path}
            parsed_tree = tree if tree is not None else pysource.parse(source, path)
            kernels_built_later.build_kernels(result.module, parsed_tree, path, recorded_here)
        result.recorded = {qualname: rec for (file, qualname), rec in self.recorded.items() if file == path}
        without_value |= unavailable.unavailable_globals(module.__dict__)
        if without_value:
            # By rule, not by failure: the functions that read such a global are listed, not checked.
            result.not_checked = _readers_of(without_value, result.recorded)
            for qualname in result.not_checked:
                del result.recorded[qualname]
        if missing:
            # Globals a failed statement would have set never got a value: the functions that read them
            # (directly or through another such function) are not checked, rather than reported for an
            # undefined name that is the analysis's doing.
            result.unchecked = _readers_of(missing, result.recorded)
            for qualname in result.unchecked:
                del result.recorded[qualname]
        result.elapsed_ms = (time.perf_counter() - started) * 1000.0
        return result

    @staticmethod
    def _failure(
        exc: BaseException, path: str, module: Any, result: LoadResult, source: str, definitions: bool
    ) -> load_errors.LoadError:
        """A module's failure to load; under definitions-only loading, with the statements left out whose
        effects it may need."""
        skipped = result.skipped_statements if definitions else None
        return load_errors.load_error(exc, path, module, skipped, source)

    def _forget_package_referring_to(self, module: types.ModuleType) -> None:
        """A package whose other modules refer to the classes of `module`, run from another text: it
        imports afresh (package_copy). A submodule only: a top-level module's is the analysis's own."""
        if "." in module.__name__ and package_copy.classes_referred_to(module, self.is_workspace_file):
            for forgotten in package_copy.package_modules(module.__name__, self.is_workspace_file):
                self._forget_module(forgotten)

    def _import_package(self, name: str, parent: str, path: str, source: str, selective: bool) -> Any:
        """Import the packages above the module (`parent`: the package itself for its `__init__`) as Python
        does, with the module itself from `source`; the module when that import ran it (package_copy)."""
        stale = sys.modules.get(name)
        if stale is not None and package_copy.ran_other_text(stale, source):
            self._forget_package_referring_to(stale)
        real_path = os.path.realpath(path)
        _SourceOnlyLoader.buffers = {real_path: source}
        try:
            package_copy.import_parents(parent)
        finally:
            _SourceOnlyLoader.buffers = {}
        if selective:
            return None  # statement by statement, skipping the lines that hung or crashed
        return package_copy.imported_copy(name, real_path, source, self.loading == "definitions")

    def _forget_sliced_modules(self, path: str) -> None:
        """Modules of other files that were loaded for their own analysis as a definitions-only slice leave
        sys.modules: a workspace module that imports one of them gets its top-level assignments (its
        `from m import X`), so it imports it afresh. A module stays in sys.modules while its own analysis
        runs: Numba looks its globals up there by name when it lowers a function (IR views, callees).

        A forgotten package's submodules leave with it: Python imports a package before its submodules
        and makes each an attribute of its package, so `import pkg.sub.mod` with `pkg.sub.mod` still in
        sys.modules and `pkg.sub` gone would skip `pkg.sub`, and `pkg.sub` would be no attribute of `pkg`
        as it is in plain Python once anything imported it."""
        for other, (name, module) in list(self._sliced.items()):
            if other == path:
                continue
            del self._sliced[other]
            if sys.modules.get(name) is module:
                below = [n for n in sys.modules if n.startswith(name + ".")]
                for forgotten in [name, *below]:
                    self._forget_module(forgotten)

    def _forget_module(self, name: str) -> None:
        self._forgot_modules = True
        module = sys.modules.pop(name, None)
        self._stamps.pop(name, None)
        parent, _, child = name.rpartition(".")
        parent_module = sys.modules.get(parent) if parent else None
        if module is not None and parent_module is not None and getattr(parent_module, child, None) is module:
            delattr(parent_module, child)

    @staticmethod
    def _restore(name: str, previous: types.ModuleType | None) -> None:
        if previous is not None:
            sys.modules[name] = previous
        else:
            sys.modules.pop(name, None)


def _code_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _readers_of(missing: set[str], recorded: dict[str, numba_api.Recorded]) -> list[str]:
    """The recorded functions that read one of `missing`, or call a function that does (transitively)."""
    reads = {
        qualname: _code_names(record.py_func.__code__)
        for qualname, record in recorded.items()
        if hasattr(record.py_func, "__code__")
    }
    unreadable = set(missing)
    readers: list[str] = []
    changed = True
    while changed:
        changed = False
        for qualname, names in reads.items():
            if qualname not in readers and names & unreadable:
                readers.append(qualname)
                unreadable.add(qualname.rpartition(".")[2])
                changed = True
    return sorted(readers)


def _stamp(path: str) -> tuple[int, int]:
    try:
        stat = os.stat(path)
        return (stat.st_mtime_ns, stat.st_size)
    except OSError:
        return (-1, -1)


def definitions_only(tree: ast.Module) -> tuple[ast.Module, list[int]]:
    """The module's definitions-only slice (toplevel_slice) and the first lines of the statements left out."""
    sliced = toplevel_slice.slice_module(tree)
    return sliced.tree, [s.line for s in sliced.skipped]
