"""Sourced into gdb just before the launch runs the program: gdb reads libllvmlite's symbols without
demangling them.

libllvmlite.so carries about 170,000 C++ symbols; demangling them when `import numba` loads it took
gdb about 0.4 s, while the program waits (a sixth of the launch -> first jitted breakpoint). Nothing
looks those names up: the JIT interface's `__jit_debug_register_code` and `__jit_debug_descriptor` are
C names, and jitted code never runs inside LLVM. So demangling is off from the run until gdb has read
that library (or the program first stops, or exits), then back to what it was, before Numba registers
any jitted code, whose names (`__main__::kernel[abi:v1]...`) the adapter reads demangled. The cost:
native frames inside LLVM, or inside a C++ library loaded before it, show mangled names.
"""

import os

import gdb  # type: ignore[import-not-found]


def _restore_after_llvmlite() -> None:
    previous = gdb.parameter("demangle-style") or "auto"
    if previous == "none":
        return

    def restore(_event: object = None) -> None:
        for registry, handler in (
            (gdb.events.new_objfile, on_new_objfile),
            (gdb.events.stop, restore),
            (gdb.events.exited, restore),
        ):
            try:
                registry.disconnect(handler)
            except (RuntimeError, ValueError):
                pass
        gdb.execute(f"set demangle-style {previous}", to_string=True)

    def on_new_objfile(event: object) -> None:
        objfile = getattr(event, "new_objfile", None)
        name = os.path.basename(getattr(objfile, "filename", None) or "")
        if name.startswith("libllvmlite"):
            restore()

    gdb.events.new_objfile.connect(on_new_objfile)
    gdb.events.stop.connect(restore)
    gdb.events.exited.connect(restore)
    gdb.execute("set demangle-style none", to_string=True)


_restore_after_llvmlite()
