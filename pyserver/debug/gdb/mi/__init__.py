"""The typed MI command layer: every MI command the debug package sends is built here, one module per
MI group (modelled on cdt-gdb-adapter's src/mi/*.ts), and each returns a typed result parsed from the
MI payload. Callers pass an `MIExecutor` (pyserver/debug/gdb/mi_protocol.py), never a command string.

    base        quoting (c_string) and the --thread/--frame options
    breakpoint  -break-insert, -break-delete, -break-after
    exec        -exec-continue/next/step/finish/interrupt/run/arguments (a `Resume` says which)
    stack       -stack-list-frames, -stack-list-variables
    data        -data-evaluate-expression, -data-read-memory-bytes
    thread      -thread-info, -list-thread-groups
    target      -gdb-set, -file-exec-and-symbols, -environment-cd, -inferior-tty-set, -target-attach/detach
    console     -interpreter-exec console (gdb's CLI through MI)
    numba_lens  the MI commands our own gdb scripts add (-numba-lens-frame)
"""
