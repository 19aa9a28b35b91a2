"""Python source as the analysis, the language server and the debugger read it: one table of decorators
and one bounded parse cache for the process.

- `parse(source, filename)`: ast.parse, the most recent trees kept (a tree is shared: read it, never
  change it; copy it first where it must change). `parsed(source, filename)`: that tree if it is
  still cached or held elsewhere, without parsing.
- `statements_in(body)`: every statement, nested ones included, with its enclosing top-level function
  (statements.py).
- `source_segment(source, node)`: ast.get_source_segment, the source split into lines once (segments.py).
- `NEVER_JITTING_DECORATORS`, `NOT_SLICE_ROOT_DECORATORS`: the decorators (last dotted part) that
  make nothing jitted, as discovery and the top-level slice each need them, and `decorator_aliases`:
  the module's own names for such decorators (decorators.py).
- `layout_dimensions(layout)`: the core dimensions of a gufunc layout's inputs and outputs (gufunc_layout.py).
"""

from pyserver.pysource.decorators import (
    NEVER_JITTING_DECORATORS,
    NOT_SLICE_ROOT_DECORATORS,
    PLAIN_DECORATORS,
    decorator_aliases,
)
from pyserver.pysource.gufunc_layout import layout_dimensions
from pyserver.pysource.parse import PARSE_CACHE_SIZE, parse, parsed
from pyserver.pysource.segments import source_segment
from pyserver.pysource.statements import statements_in

__all__ = [
    "NEVER_JITTING_DECORATORS",
    "NOT_SLICE_ROOT_DECORATORS",
    "PARSE_CACHE_SIZE",
    "PLAIN_DECORATORS",
    "decorator_aliases",
    "layout_dimensions",
    "parse",
    "parsed",
    "source_segment",
    "statements_in",
]
