"""Runs inside the debuggee, before the user's program: standard library and debugpy only.

`python boot.py [--no-debugpy] <debugpy command line>`. It makes the debuggee die with its
parent (gdb), so no program outlives a killed adapter, stops `numba.gdb()` from forking a second gdb,
then hands over to debugpy's own command line (or runs the program directly with --no-debugpy).
"""

import ctypes
import os
import runpy
import signal
import sys
import threading

# The native name (/proc comm, what gdb lists) of debugpy's own threads: the adapter leaves them out of
# the thread list, as a plain debugpy session does. Keep in sync with
# pyserver.debug.session_common.DEBUGGER_THREAD_NAME.
DEBUGGER_THREAD_NAME = b"debugpy"
PR_SET_NAME = 15


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except OSError:
        pass
    # The parent may already have gone between fork and prctl.
    if os.getppid() == 1:
        os._exit(1)


def _name_native_threads() -> None:
    """Give each new Python thread a native name gdb can show: its Python name (15 bytes at most, the
    kernel's limit), or "debugpy" for debugpy's own threads (marked before they start). CPython 3.11
    leaves every thread named after the executable ("python")."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return
    bootstrap_inner = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def named_bootstrap_inner(thread: threading.Thread) -> None:
        if getattr(thread, "is_pydev_daemon_thread", False):
            name = DEBUGGER_THREAD_NAME
        else:
            name = thread.name.encode("utf-8", errors="replace")[:15]
        try:
            libc.prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)
        except Exception:
            pass  # a name is a convenience: never stop a thread for it
        bootstrap_inner(thread)

    threading.Thread._bootstrap_inner = named_bootstrap_inner  # type: ignore[attr-defined]


_REAL_SETTRACE = sys.settrace  # debugpy replaces sys.settrace with a wrapper that warns


def _untraced(function):
    """Run `function` without debugpy's trace function. Numba's compiler is thousands of Python calls
    that debugpy would trace for nothing: most of the time to the first jitted breakpoint otherwise."""

    def wrapper(*args, **kwargs):
        trace = sys.gettrace()
        if trace is None:
            return function(*args, **kwargs)
        _REAL_SETTRACE(None)
        try:
            return function(*args, **kwargs)
        finally:
            _REAL_SETTRACE(trace)

    wrapper.__wrapped__ = function  # type: ignore[attr-defined]
    wrapper.__name__ = getattr(function, "__name__", "wrapper")
    wrapper.__doc__ = getattr(function, "__doc__", None)
    return wrapper


def _patch_numba() -> None:
    dispatcher = sys.modules.get("numba.core.dispatcher")
    if dispatcher is not None and not hasattr(dispatcher.Dispatcher.compile, "__wrapped__"):
        dispatcher.Dispatcher.compile = _untraced(dispatcher.Dispatcher.compile)
    if os.environ.get("NUMBA_LENS_UNDER_GDB") == "1":
        _patch_gdb_hooks()
        _patch_line_locations()
        _patch_record_arguments()


def _patch_line_locations() -> None:
    """Numba's SSA copies (`alive.3 = alive.4`, put where a phi's value comes from) carry the location
    of the variable's definition, which may be another line: in a loop with an if/else, the copy at the
    top of each outer iteration said "line 18" (the `nxt[r, c] = 1` of a branch). gdb puts a line
    breakpoint at the first address of the line, so that breakpoint stopped once per outer iteration,
    where line 18 does not run, and never in the branch. Here each copy takes the location of the
    statement it is placed next to (the line that really runs there); the code is the same."""
    try:
        from numba.core import ir
        from numba.core.typed_passes import PreLowerStripPhis
    except ImportError:
        return
    strip = PreLowerStripPhis._strip_phi_nodes

    def strip_phi_nodes(self, func_ir):  # type: ignore[no-untyped-def]
        before = [stmt for block in func_ir.blocks.values() for stmt in block.body]  # kept: ids stay unique
        known = {id(stmt) for stmt in before}
        func_ir = strip(self, func_ir)
        for block in func_ir.blocks.values():
            exports = [isinstance(s, ir.Assign) and id(s) not in known for s in block.body]
            for index, stmt in enumerate(block.body):
                if not exports[index]:
                    continue
                earlier = [s for s, e in zip(block.body[:index], exports[:index], strict=True) if not e]
                later = [s for s, e in zip(block.body[index:], exports[index:], strict=True) if not e]
                neighbour = earlier[-1] if earlier else (later[0] if later else None)
                if neighbour is not None:
                    stmt.loc = neighbour.loc
        return func_ir

    strip_phi_nodes.__wrapped__ = strip  # type: ignore[attr-defined]
    PreLowerStripPhis._strip_phi_nodes = strip_phi_nodes  # type: ignore[method-assign]
    _patch_jump_locations()


def _patch_jump_locations() -> None:
    """A block's closing `jump` (and, with Numba's extended lifetimes for debugging, the `del`s put
    before it) carries the location of the line it jumps to: after `if v < lo: lo = v` the jump said
    "line 15". Its code sits in the branch, so gdb's first address of line 15 was in the branch, and a
    breakpoint on line 15 stopped only when the branch ran. Here the jump takes the location of the
    block's last statement (the line whose code it ends); a block that only jumps keeps its own."""
    try:
        from numba.core import ir, typed_passes
    except ImportError:
        return
    legalize = typed_passes.check_and_legalize_ir

    live_versions_path = os.environ.get("NUMBA_LENS_LIVE_VERSIONS", "")

    def check_and_legalize_ir(func_ir, flags):  # type: ignore[no-untyped-def]
        for block in func_ir.blocks.values():
            if not block.body or not isinstance(block.body[-1], ir.Jump):
                continue
            statements = [stmt for stmt in block.body[:-1] if not isinstance(stmt, ir.Del)]
            if statements:
                block.body[-1].loc = statements[-1].loc
        result = legalize(func_ir, flags)
        if live_versions_path:
            try:
                _export_live_versions(func_ir, live_versions_path)
            except Exception:
                pass  # the adapter then judges values without the map (more "unavailable", never wrong)
        return result

    check_and_legalize_ir.__wrapped__ = legalize  # type: ignore[attr-defined]
    typed_passes.check_and_legalize_ir = check_and_legalize_ir


def _patch_gdb_hooks() -> None:
    """Under the adapter's gdb, `numba.gdb()` must not fork a second gdb: it becomes
    `numba.gdb_breakpoint()` (a call to numba_gdb_breakpoint, where the adapter stops), and
    `numba.gdb_init()` does nothing (the program already runs under gdb)."""
    try:
        from numba.misc import gdb_hook
    except ImportError:
        return
    breakpoint_codegen = gdb_hook.gen_bp_impl

    def gen_gdb_impl(const_args, do_break):
        if do_break:
            return breakpoint_codegen()
        from numba.core import types
        from numba.core.extending import intrinsic

        @intrinsic
        def gdb_init_noop(tyctx):
            def codegen(cgctx, builder, signature, args):
                return cgctx.get_constant(types.none, None)

            return types.void(), codegen

        return gdb_init_noop

    gdb_hook.gen_gdb_impl = gen_gdb_impl
    gdb_hook._confirm_gdb = lambda need_ptrace_attach=True: None


def _user_file(func_ir) -> str | None:  # type: ignore[no-untyped-def]
    """The file of a jitted function the user wrote; None for generated code and installed packages."""
    filename = str(func_ir.func_id.filename or "")
    if not filename or filename.startswith("<") or os.sep + "site-packages" + os.sep in filename:
        return None
    return filename


def _export_live_versions(func_ir, path: str) -> None:  # type: ignore[no-untyped-def]
    """For each line of a user's jitted function: which SSA version holds each Python variable where
    the line starts, and whether Numba may have freed it (an `ir.Del` zeroes its slot) on a path there.

    Numba's IR is final here (phis stripped, dels placed). A forward pass over the blocks: an
    assignment to `name.N` makes it the current version of `name`; a del marks it possibly freed.
    Where predecessors disagree on the current version, it is unknown. One JSON line per function,
    appended to `path` for the adapter (pyserver/debug/values/live_versions.py): `{"file", "name", "lines":
    {line: {name: [[version as in DWARF, not freed on any path], ...]}}}`."""
    from numba.core import ir

    func_id = func_ir.func_id
    filename = _user_file(func_ir)
    if filename is None:
        return

    def base_of(name: str) -> str | None:
        return None if name.startswith("$") else name.split(".", 1)[0]

    blocks = func_ir.blocks
    successors: dict = {}
    for label, block in blocks.items():
        terminator = block.body[-1] if block.body else None
        if isinstance(terminator, ir.Jump):
            successors[label] = [terminator.target]
        elif isinstance(terminator, ir.Branch):
            successors[label] = [terminator.truebr, terminator.falsebr]
        else:
            successors[label] = []
    predecessors: dict = {label: [] for label in blocks}
    for label, targets in successors.items():
        for target in targets:
            if target in predecessors:
                predecessors[target].append(label)
    entry = min(blocks)
    unknown = object()
    out_state: dict = {}
    snapshots: dict = {}
    split_lines: set = set()
    for _round in range(64):
        changed = False
        snapshots = {}
        for label in sorted(blocks):
            ins = [out_state[p] for p in predecessors[label] if p in out_state]
            if label == entry or not ins:
                current: dict = {}
                freed: set = set()
            else:
                keys = set().union(*(state[0] for state in ins))
                current = {}
                for key in keys:
                    versions = {state[0].get(key, unknown) for state in ins}
                    current[key] = versions.pop() if len(versions) == 1 else unknown
                freed = set().union(*(state[1] for state in ins))
            seen_lines: set = set()
            previous_line = None
            for stmt in blocks[label].body:
                line = stmt.loc.line if stmt.loc is not None else None
                if line is not None and line != previous_line:
                    if line in seen_lines:
                        split_lines.add(line)  # a line that starts twice in a block: which start is unknown
                    seen_lines.add(line)
                    snapshots.setdefault(line, []).append((dict(current), set(freed)))
                previous_line = line
                if isinstance(stmt, ir.Assign):
                    base = base_of(stmt.target.name)
                    if base is not None:
                        current[base] = stmt.target.name
                        freed.discard(stmt.target.name)
                elif isinstance(stmt, ir.Del):
                    if base_of(stmt.value) is not None:
                        freed.add(stmt.value)
            state = (current, freed)
            if out_state.get(label) != state:
                out_state[label] = state
                changed = True
        if not changed:
            break
    else:
        return  # did not settle: no map rather than a doubtful one
    lines: dict = {}
    for line, states in snapshots.items():
        if line in split_lines:
            continue
        merged: dict = {}
        for base in set().union(*(state[0] for state in states)):
            versions = {state[0].get(base, unknown) for state in states}
            if unknown in versions:
                continue  # not assigned on every path to some start of the line
            # Several candidates when the line starts in several blocks (a `for` line: before the loop
            # and at its head) that disagree: the adapter shows a value only if they all hold it.
            merged[base] = [
                [str(version).replace(".", "$"), all(version not in state[1] for state in states)]
                for version in sorted(versions)
            ]
        lines[str(line)] = merged
    import json

    record = {"file": filename, "name": str(func_id.func_qualname).split(".")[-1], "lines": lines}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")


def _patch_record_arguments() -> None:
    """Numba's DWARF types a record argument only as a pointer to N bytes, and gdb's frame name as
    `Record<CODE>`, CODE being the record type's `_code` (a number Numba's type interning hands out in
    order, per process). Here each user function's signature, as Numba mangles it, is written next to
    the live-versions map: `{"kind": "record_arguments", "pid", "file", "name", "abi_tags", "params",
    "records": {param: [code, record type as Numba writes it]}}`
    (read by pyserver/debug/values/record_arguments.py)."""
    path = os.environ.get("NUMBA_LENS_LIVE_VERSIONS", "")
    if not path:
        return
    try:
        from numba.core import funcdesc
        from numba.core.itanium_mangler import _escape_string
    except ImportError:
        return
    descriptor = funcdesc.PythonFunctionDescriptor
    original = descriptor.from_specialized_function.__func__  # type: ignore[attr-defined]

    def from_specialized_function(cls, func_ir, *args, **kwargs):  # type: ignore[no-untyped-def]
        fndesc = original(cls, func_ir, *args, **kwargs)
        try:
            _export_record_arguments(func_ir, fndesc, path, _escape_string)
        except Exception:
            pass  # without the entry a record argument stays unavailable, never wrong
        return fndesc

    from_specialized_function.__wrapped__ = original  # type: ignore[attr-defined]
    descriptor.from_specialized_function = classmethod(from_specialized_function)  # type: ignore[method-assign,assignment]


def _export_record_arguments(func_ir, fndesc, path: str, escape) -> None:  # type: ignore[no-untyped-def]
    from numba.core import types

    records = {}
    for name, argtype in zip(fndesc.args, fndesc.argtypes, strict=True):
        if isinstance(argtype, types.Record):
            # `_code` is what the mangler writes (Record.mangling_args), `name` its full layout.
            records[str(name)] = [int(argtype._code), str(argtype.name)]  # type: ignore[attr-defined]
    if not records:
        return
    filename = _user_file(func_ir)
    if filename is None:
        return
    filename = os.path.abspath(filename)  # the adapter runs in another folder
    # The tags as gdb prints them (`[abi:v2][abi:c8tJTC_2fW…]`): the function's unique id, then the
    # compile flags, escaped as in the symbol.
    tags = ([f"v{fndesc.uid}"] if fndesc.uid is not None else []) + [escape(t) for t in fndesc.abi_tags]
    import json

    entry = {
        "kind": "record_arguments",
        "pid": os.getpid(),
        "file": filename,
        "name": str(fndesc.qualname).split(".")[-1],
        "abi_tags": tags,
        "params": [str(name) for name in fndesc.args],
        "records": records,
    }
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


# Top-level packages imported without tracing (library code: never "my code" for debugpy).
UNTRACED_IMPORTS = ("numba", "llvmlite", "numpy")


class _UntracedNumbaImport:
    """A meta path finder: `import numba` (numpy, llvmlite) runs untraced, then Dispatcher.compile is
    wrapped so that compiling runs untraced too."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in UNTRACED_IMPORTS:
            return None
        sys.meta_path.remove(self)
        try:
            import importlib.util

            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_untraced(module):
            _untraced(exec_module)(module)
            if fullname == "numba":
                _patch_numba()

        spec.loader.exec_module = exec_untraced  # type: ignore[method-assign]
        return spec


def _run_without_debugpy(rest: list) -> None:
    if rest and rest[0] == "-m":
        sys.argv = [rest[1], *rest[2:]]
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(rest)
        sys.path.insert(0, os.path.dirname(os.path.abspath(rest[0])))
        runpy.run_path(rest[0], run_name="__main__")


def _no_delay_on_accept() -> None:
    """pydevd sends each DAP message as two writes (header, then body): with Nagle's algorithm on, the
    body waits for the adapter's delayed ACK of the header, 40 ms per reply (about 0.2 s of the launch
    handshake). TCP_NODELAY on the accepted socket sends both at once."""
    try:
        import debugpy.server  # noqa: F401  (puts debugpy's vendored pydevd on sys.path)
        import pydevd
    except ImportError:
        return
    initialize_network = getattr(pydevd.PyDB, "initialize_network", None)
    if initialize_network is None:
        return

    def initialize_network_no_delay(self, sock, *args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            import socket

            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (OSError, AttributeError):
            pass  # only slower
        return initialize_network(self, sock, *args, **kwargs)

    pydevd.PyDB.initialize_network = initialize_network_no_delay


def _run_with_in_process_debugpy(rest: list) -> None:
    """`--in-process --listen HOST:PORT [--wait-for-client] (-m MODULE | PROGRAM) ARGS...`: debugpy's
    own DAP server inside this process (no separate adapter process to start, or to outlive us)."""
    import debugpy

    host, _, port = rest[2].rpartition(":")
    index = 3
    wait = rest[index] == "--wait-for-client"
    if wait:
        index += 1
    target = rest[index:]
    is_module = target[0] == "-m"
    sys.argv = [target[1], *target[2:]] if is_module else list(target)
    _no_delay_on_accept()
    debugpy.listen((host, int(port)), in_process_debug_adapter=True)
    if wait:
        debugpy.wait_for_client()
    if is_module:
        sys.path.insert(0, "")
        runpy._run_module_as_main(target[1], alter_argv=True)  # type: ignore[attr-defined]
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(target[0])))
        runpy.run_path(target[0], run_name="__main__")


def main() -> None:
    _die_with_parent()
    _name_native_threads()
    # sys.path[0] is this file's folder: it must not shadow the user's imports.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    # debugpy finds its plugins on sys.path (pydevd_plugins/extensions/): typed List/Dict read from memory.
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pydevd_ext"))
    rest = sys.argv[1:]
    if rest and rest[0] == "--no-debugpy":
        _run_without_debugpy(rest[1:])
        return
    if os.environ.get("NUMBA_LENS_TRACE_COMPILER", "0") != "1":
        sys.meta_path.insert(0, _UntracedNumbaImport())
    if rest and rest[0] == "--in-process":
        _run_with_in_process_debugpy(rest)
        return
    sys.argv = ["debugpy", *rest]
    from debugpy.server import cli

    cli.main()


if __name__ == "__main__":
    main()
