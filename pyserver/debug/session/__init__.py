"""The debug session: a small coordinator (session.py) over one component per peer and per concern."""

from pyserver.debug.session.common import free_port, prange_body_lines, ptrace_hint
from pyserver.debug.session.session import Session

__all__ = ["Session", "free_port", "prange_body_lines", "ptrace_hint"]
