"""Mixed debug adapter: gdb (MI) for jitted frames, debugpy for Python frames."""
