"""The corpus tests reuse the language-server test client (tests/lsp/lsp_session.py)."""

from __future__ import annotations

import sys
from pathlib import Path

LSP_TESTS = str(Path(__file__).resolve().parents[1] / "lsp")
if LSP_TESTS not in sys.path:
    sys.path.append(LSP_TESTS)
