"""The workspace's Python calls, from the AST only: which Python code calls which function, and where.

Every `.py` file under the workspace root is parsed once and kept with its stamp (mtime, size); a later
`refresh` parses again only the files whose stamp changed (and the editor buffer handed in), so the
calls of other files are indexed once and updated incrementally. Nothing is imported or executed.

A call site is a call in Python code: the module's top level (an `if __name__ == "__main__":` block
included) or a function body that is not itself jitted. Calls are found by the name they are made
through: `kernel(...)` in the defining module or after `from pkg.mod import kernel [as k]`, and
`mod.kernel(...)` after `import pkg.mod as mod` / `from pkg import mod`.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator, Mapping
from dataclasses import replace

from pyserver import pysource
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser
from pyserver.analysis.worker.signatures.call_scopes import (
    aliased_calls,
    defines,
    passed_on,
    receiver_of_own_method,
    shadowed,
    value_reads,
)
from pyserver.analysis.worker.signatures.indexed_file import CallSite, IndexedFile, index_source, stamp_of

_EXCLUDED_DIRS = {
    "site-packages",
    "dist-packages",
    ".venv",
    "venv",
    "node_modules",
    ".tox",
    ".git",
    "__pycache__",
    "build",
    "dist",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
}
MAX_FILES = 5000  # a larger tree is indexed up to this many files
MAX_FILE_BYTES = 2_000_000
_MAX_REEXPORTS = 8  # re-exports followed, one module to the next (a cycle of imports ends there)


def _calls_of_definition(
    sites: list[CallSite], real: str, binders: list[tuple[int, int]], first_line: int
) -> list[CallSite]:
    """Of the calls of a name the module binds several times, those that reach the definition starting at
    `first_line`: the module's own top-level calls between it and the next binding; and for the last
    binding, also every call that runs later (function bodies, other modules). Nothing for a definition
    that is not one of the bindings."""
    position = next((i for i, (start, _end) in enumerate(binders) if start == first_line), None)
    if position is None:
        return []
    after = binders[position][1]
    before = binders[position + 1][0] if position + 1 < len(binders) else 1 << 30
    last = position == len(binders) - 1

    def reaches(site: CallSite) -> bool:
        if site.scope.path == real and site.scope.qualname == "<module>":
            return after < site.call.lineno < before
        return last

    return [site for site in sites if reaches(site)]


class IndexedFiles(Mapping[str, IndexedFile]):
    """The workspace's Python files by real path, each read at a refresh and parsed when first asked for:
    a call of a function names it (or the alias a jit call made of it) in the caller's text, so the files
    that never name it are never parsed (most of a package's files, for each of its kernels)."""

    def __init__(self) -> None:
        self._indexed: dict[str, IndexedFile] = {}
        self._unread: dict[str, tuple[str, tuple[int, int]]] = {}  # path -> (text, stamp), not parsed yet
        self._unparsable: dict[str, tuple[int, int]] = {}  # path -> stamp of a text that does not parse
        self.parsed = 0

    def stamp(self, path: str) -> tuple[int, int] | None:
        known = self._indexed.get(path)
        if known is not None:
            return known.stamp
        unread = self._unread.get(path)
        return unread[1] if unread is not None else self._unparsable.get(path)

    def put_text(self, path: str, text: str, stamp: tuple[int, int]) -> None:
        self.discard(path)
        self._unread[path] = (text, stamp)

    def put(self, path: str, indexed: IndexedFile | None) -> None:
        """An index made from an editor buffer (None: the buffer does not parse)."""
        self.discard(path)
        self.parsed += 1
        if indexed is not None:
            self._indexed[path] = indexed

    def discard(self, path: str) -> None:
        self._indexed.pop(path, None)
        self._unread.pop(path, None)
        self._unparsable.pop(path, None)

    def paths(self) -> set[str]:
        """Every file read, parsed or not (a module name resolves to a file by its path alone)."""
        return {*self._indexed, *self._unread, *self._unparsable}

    def naming(self, names: list[str]) -> list[IndexedFile]:
        """The files whose text holds one of `names` (parsed now where not yet), then every other file
        already parsed (its index is at hand: looking costs nothing)."""
        for path, (text, _stamp) in list(self._unread.items()):
            if any(name in text for name in names):
                self.get(path)
        return list(self._indexed.values())

    def __getitem__(self, path: str) -> IndexedFile:
        indexed = self._indexed.get(path)
        if indexed is not None:
            return indexed
        unread = self._unread.pop(path, None)
        if unread is None:
            raise KeyError(path)
        text, stamp = unread
        made = index_source(path, text, stamp)
        self.parsed += 1
        if made is None:
            self._unparsable[path] = stamp
            raise KeyError(path)
        self._indexed[path] = made
        return made

    def __contains__(self, path: object) -> bool:
        """Read, parsed or not yet (a text found not to parse is no longer in)."""
        return path in self._indexed or path in self._unread

    def _parse_all(self) -> None:
        for path in list(self._unread):
            self.get(path)

    def __iter__(self) -> Iterator[str]:
        """Every file that parses (all are parsed first: walking them all is for tests and tools)."""
        self._parse_all()
        return iter(list(self._indexed))

    def __len__(self) -> int:
        self._parse_all()
        return len(self._indexed)


class CallIndex:
    """The Python call sites of a workspace, kept up to date file by file."""

    def __init__(self, root: str, parser: IncrementalParser | None = None) -> None:
        """`parser`: the analysis's own, so that a buffer it has just parsed is not parsed again."""
        self.root = os.path.realpath(root)
        self.files = IndexedFiles()
        # path -> (editor text that overrides the file on disk, the file's stamp then): a later change on
        # disk (another save, a checkout) wins again
        self._buffers: dict[str, tuple[str, tuple[int, int] | None]] = {}
        self._real_paths: dict[str, str] = {}  # path -> its realpath, until the next refresh
        # path -> (its indexed file, what each imported name it calls through binds): asked for each
        # function of each analysed file, until the next refresh (bindings depend on the files indexed)
        self._import_bindings: dict[str, tuple[IndexedFile, list[tuple[str, tuple[str, str]]]]] = {}
        self._resolved: dict[tuple[str, str, int], str | None] = {}  # (directory, module, level) -> file
        self._files_resolved_against = 0
        # the editor buffers, edited a little at a time
        self._buffer_parser = parser if parser is not None else IncrementalParser()

    def _walk(self) -> list[str]:
        found: list[str] = []
        for directory, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in _EXCLUDED_DIRS and not d.startswith("."))
            for name in sorted(files):
                if name.endswith(".py"):
                    found.append(os.path.join(directory, name))
                    if len(found) >= MAX_FILES:
                        return found
        return found

    def refresh(self, path: str | None = None, source: str | None = None) -> None:
        """Re-read the files whose stamp changed; `path`/`source`: the editor buffer of one file."""
        self._real_paths = {}
        self._import_bindings = {}
        if path is not None and source is not None:
            real = os.path.realpath(path)
            if self._buffers.get(real, ("", None))[0] != source or real not in self.files:
                self._buffers[real] = (source, stamp_of(real))
                known = self.files.get(real)
                if known is None or known.tree is not pysource.parsed(source, real):
                    indexed = index_source(real, source, (-1, len(source)), self._buffer_parser)
                    if indexed is not None:
                        self.files.put(real, indexed)
                # else the buffer is the text indexed from disk (one parse per text and file name): its
                # index is that text's
        seen = set()
        for file in self._walk():
            # The walk starts at a real path and enters no linked folder: only a linked file is not real.
            real = os.path.realpath(file) if os.path.islink(file) else file
            seen.add(real)
            stamp = stamp_of(real)
            if real in self._buffers:
                if self._buffers[real][1] == stamp:
                    continue
                del self._buffers[real]
            if stamp is None or self.files.stamp(real) == stamp:
                continue
            if stamp[1] > MAX_FILE_BYTES:
                continue
            try:
                with open(real, encoding="utf-8") as handle:
                    text = handle.read()
            except (OSError, UnicodeDecodeError):
                continue
            self.files.put_text(real, text, stamp)
        read = self.files.paths()
        gone = [p for p in read if p not in seen and p not in self._buffers]
        for path_gone in gone:
            self.files.discard(path_gone)
        if gone or len(read) - len(gone) != self._files_resolved_against:
            self._resolved = {}  # a module may now resolve to another file, or to none
            self._files_resolved_against = len(read) - len(gone)

    @property
    def parsed(self) -> int:
        """Files parsed since creation (to show that a refresh is incremental, and parsing lazy)."""
        return self.files.parsed

    # ------------------------------------------------------------------------------------ resolving

    def resolve_module(self, indexed: IndexedFile, module: str, level: int) -> str | None:
        """The workspace file a module name imported from `indexed` names, or None."""
        key = (indexed.module_dir, module, level)
        if key not in self._resolved:
            self._resolved[key] = self._resolve_module(indexed, module, level)
        return self._resolved[key]

    def _resolve_module(self, indexed: IndexedFile, module: str, level: int) -> str | None:
        parts = [p for p in module.split(".") if p]
        if level:
            base = indexed.module_dir
            for _ in range(level - 1):
                base = os.path.dirname(base)
            bases = [base]
        else:
            bases = [indexed.module_dir, self.root, os.path.join(self.root, "src")]
        for base in bases:
            stem = os.path.join(base, *parts) if parts else base
            for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
                real = os.path.realpath(candidate)
                if real in self.files:  # read, parsed or not
                    return real
        return None

    def binding(self, indexed: IndexedFile, name: str, depth: int = 0) -> tuple[str, str] | None:
        """What a module-level name of `indexed` refers to in the workspace: (file, function) for a
        function (defined there or imported from a workspace module), (file, "") for a module. A name
        imported from a module that only imports it in turn (a package's `__init__` re-exporting
        `from ._impl import scale`) is the function of the module that defines it."""
        if defines(indexed, name):
            return (indexed.path, name)
        imported = indexed.imports.get(name)
        if imported is None:
            return None
        module, level, attr = imported
        if attr is None:
            target = self.resolve_module(indexed, module, level)
            return (target, "") if target else None
        submodule = self.resolve_module(indexed, f"{module}.{attr}" if module else attr, level)
        if submodule is not None:
            return (submodule, "")
        target = self.resolve_module(indexed, module, level)
        return self._exported(target, attr, depth) if target else None

    def _exported(self, path: str, name: str, depth: int = 0) -> tuple[str, str]:
        """What `name` of the module at `path` is: its own function, or what it imports under that name."""
        home = self.files.get(path)
        if home is None or depth >= _MAX_REEXPORTS or defines(home, name) or name not in home.imports:
            return (path, name)
        return self.binding(home, name, depth + 1) or (path, name)

    def bindings_of(self, path: str, name: str) -> list[tuple[int, int]]:
        """(first, last line) of each top-level statement of `path` that binds a top-level function's name
        the module binds more than once (`def foo` twice in a notebook's cells); [] for any other name."""
        home = self.files.get(self._real_paths.get(path) or os.path.realpath(path))
        return list(home.redefined.get(name, [])) if home is not None else []

    def jit_made_names(self, path: str, function: str) -> tuple[str, ...]:
        """The names module-level jit calls of `path` bind dispatchers of `function` to (`fast = njit(f)`;
        two for twins: `f_par = njit(f, parallel=True)`, `f_ser = njit(f)`)."""
        home = self.files.get(self._real_paths.get(path) or os.path.realpath(path))
        return home.jit_made.get(function, ()) if home is not None else ()

    def value_uses(self, path: str, function: str) -> list[int]:
        """The lines where the module `path` reads its function `function` other than to call it (kept in
        a dict, passed on, returned): calls made through such a value are not followed."""
        home = self.files.get(self._real_paths.get(path) or os.path.realpath(path))
        if home is None:
            return []
        return value_reads(home.scopes, function)

    def jitted_callers(self, path: str, function: str) -> list[tuple[str, int]]:
        """(name, line of the call) for each top-level jitted function of `path` whose body calls its
        function `function` by name: typing that caller types the call."""
        home = self.files.get(self._real_paths.get(path) or os.path.realpath(path))
        if home is None:
            return []
        found = []
        for name, node in home.top_level_defs.items():
            if name == function or name not in home.jitted or name in home.object_mode:
                continue
            lines = [
                n.lineno
                for n in ast.walk(node)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == function
            ]
            if lines:
                found.append((name, min(lines)))
        return sorted(found, key=lambda c: c[1])

    def method_calls(self, method: str) -> list[CallSite]:
        """The Python calls in the workspace of a method named `method` on a variable (`bag.increment(3)`),
        whatever its class: the receiver's type, typed with the arguments, tells which class it is."""
        sites: list[CallSite] = []
        for indexed in self.files.naming([method]):
            for first, candidates in indexed.calls.items():
                bound = self.binding(indexed, first)
                if bound is not None and not bound[1]:
                    continue  # a module's function
                sites += [replace(s, receiver=True) for s in candidates if s.name == f"{first}.{method}"]
        sites.sort(key=lambda s: (s.scope.path, s.call.lineno, s.call.col_offset))
        return sites

    def static_method_calls(self, path: str, cls: str, method: str) -> list[CallSite]:
        """The Python calls of `method`, a static method of the plain class `cls` (top level of `path`):
        on the class, wherever its name binds to that class (`Kernel.scale(x, 2.0)`, after `from mod
        import Kernel` too), and on the receiver inside the class's own methods (`self.scale(...)`)."""
        real = self._real_paths.get(path) or os.path.realpath(path)
        sites: list[CallSite] = []
        for indexed in self.files.naming([method]):
            for first, candidates in indexed.calls.items():
                called = [s for s in candidates if s.name == f"{first}.{method}"]
                if not called:
                    continue
                if self.binding(indexed, first) == (real, cls):
                    sites += [s for s in called if not shadowed(indexed.scopes, s.scope, first)]
                elif indexed.path == real:
                    sites += [s for s in called if receiver_of_own_method(s.scope, cls, first)]
        sites.sort(key=lambda s: (s.scope.path != real, s.scope.path, s.call.lineno, s.call.col_offset))
        return sites

    def _imported_bindings(self, indexed: IndexedFile) -> list[tuple[str, tuple[str, str]]]:
        """(name, what it binds) for each name `indexed` imports and calls through, in import order."""
        kept = self._import_bindings.get(indexed.path)
        if kept is not None and kept[0] is indexed:
            return kept[1]
        found = []
        for first in indexed.imports:
            if first in indexed.calls:
                bound = self.binding(indexed, first)
                if bound is not None:
                    found.append((first, bound))
        self._import_bindings[indexed.path] = (indexed, found)
        return found

    def calls_to(self, path: str, function: str, first_line: int = 0) -> list[CallSite]:
        """The Python call sites in the workspace of `function` (a top-level function of `path`; where the
        module defines its name more than once, the definition whose first line is `first_line`)."""
        real = self._real_paths.get(path)
        if real is None:  # asked for each function of a file: one realpath (an lstat per folder) per refresh
            real = self._real_paths[path] = os.path.realpath(path)
        sites: list[CallSite] = []
        home = self.files.get(real)
        # the names that call the function's dispatcher: its own, or the one a jit call made of it
        aliases = [a for a, f in (home.jit_aliases if home else {}).items() if f == function]
        spans = [
            (name, first, last)
            for name, held in (home.jit_alias_spans if home else {}).items()
            for first, last, made in held
            if made == function
        ]
        # a call of the plain function runs Python (compiles nothing) unless a decorator jitted it
        made_names = home.jit_made.get(function, ()) if home is not None else ()
        made = bool(aliases or spans or made_names)
        # `f = njit(f)`: its own name holds a dispatcher, as a decorator's
        plain_runs_python = (
            made and home is not None and function not in home.jitted and function not in made_names
        )
        through = aliases if plain_runs_python else [function, *aliases]
        functions = [(real, n) for n in through]
        for indexed in self.files.naming(through):
            # Only the names a call can reach the function through: its own, or an imported name.
            bindings = list(self._imported_bindings(indexed))
            for first in through:
                if first not in indexed.imports:  # called, or passed to a function that calls it
                    bound = self.binding(indexed, first)
                    if bound is not None:
                        bindings.append((first, bound))
            for first, bound in bindings:
                if bound in functions:
                    sites += [
                        site
                        for site in indexed.calls.get(first, [])
                        if site.name == first and not shadowed(indexed.scopes, site.scope, first)
                    ]
                    sites += passed_on(indexed.scopes, indexed.calls, first)
                    sites += aliased_calls(indexed.scopes, indexed.calls, first)
                elif not bound[1]:
                    # `mod.kernel(...)`: the module defines it, or re-exports it (`import pkg`, `pkg.kernel`)
                    attributes = [f"{first}.{n}" for n in through if self._exported(bound[0], n) in functions]
                    sites += [
                        site
                        for site in indexed.calls.get(first, [])
                        if site.name in attributes and not shadowed(indexed.scopes, site.scope, first)
                    ]
        for held_name, start, stop in spans:  # the module's own code, in its order
            sites += [
                site
                for site in (home.calls.get(held_name, []) if home is not None else [])
                if site.name == held_name
                and site.scope.qualname == "<module>"
                and start <= site.call.lineno <= stop
            ]
        sites.sort(key=lambda s: (s.scope.path != real, s.scope.path, s.call.lineno, s.call.col_offset))
        binders = home.redefined.get(function) if home is not None and first_line else None
        return _calls_of_definition(sites, real, binders, first_line) if binders else sites
