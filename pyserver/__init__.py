"""Numba Lens: language server, checker and mixed debug adapter for Numba code."""

__version__ = "0.1.0"
