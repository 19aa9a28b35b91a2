"""Every use of Numba internals, fenced in one package (runs in the analysis worker only).

An upgrade of Numba should touch this package and nothing else. Supported range: pyserver/versions.py
(numba >=0.59,<0.69; differences between releases live in the "version shims" block);
tests/analysis exercise each entry point against the installed Numba.

What lives here:
- decorator hooks that record explicit signatures instead of compiling them (so one failing signature
  never stops the module from loading);
- type inference only: Numba's untyped pipeline, then a partial type inference that keeps the typemap
  when it fails, then (only for `parallel=True`) the typed passes up to ParforPass;
- typing of calls to workspace jitted functions through the same inference, so typing a caller never
  compiles its callees to LLVM;
- signature parsing, annotation conversion, cache index reading (signatures.py);
- untyped-list element types (containers.py), typing a Python caller's slice (slices.py), the
  parallel report (parfors.py), object-mode compiles and IR views (views.py).
"""

# The fence is one package: the core (decorator hooks, inference, signatures, version shims) and the
# parts that build on it. Everything is re-exported here, so callers write `numba_api.infer(...)`.
from pyserver.numba_api.containers import *  # noqa: F403
from pyserver.numba_api.core import *  # noqa: F403
from pyserver.numba_api.core import NUMBA_VERSION, NUMBA_VERSION_TUPLE, Type  # noqa: F401
from pyserver.numba_api.parfors import *  # noqa: F403
from pyserver.numba_api.signatures import *  # noqa: F403
from pyserver.numba_api.slices import *  # noqa: F403
from pyserver.numba_api.views import *  # noqa: F403
