"""The debugged program's side. inside/: what runs in the debuggee's own interpreter (its boot script,
debugpy plugins). snippets.py: Python source the adapter has the debuggee run, through gdb
(PyRun_SimpleString) or debugpy (evaluate)."""
