"""gdb back end: one gdb process, token-matched MI commands (backend.py, mi_protocol.py), typed
wrappers per command group (mi/), the debuggee started under gdb (launcher.py). inside/: scripts
that run in gdb's own Python."""
