"""gdb back end: one gdb process, token-matched MI commands, typed wrappers per command group."""
