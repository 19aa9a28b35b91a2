"""Mixed debug adapter: gdb (MI) for jitted frames, debugpy for Python frames.

The adapter process runs everything here except the `inside/` folders: gdb/inside/ runs in gdb's
Python, debuggee/inside/ in the debugged program. The session (session*.py) talks to gdb through
gdb/, to debugpy through python/; jit/ and values/ read jitted frames and their variables.
"""
