"""The Python side of a mixed session: the adapter's DAP client of debugpy, which runs its DAP server
inside the debuggee (debugpy_client.py). What the debuggee itself runs is in pyserver.debug.debuggee."""
