"""Every use of Numba internals, fenced in one package (runs in the analysis worker only).

Nothing is patched at import: the analysis worker calls `install()` at start (patches.py).
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

# The fence is one package: the core (version shims, registries), the decorator hooks, the callee
# resolver, inference, the replaced Numba methods (installed by `install()`, never at import) and the
# parts that build on them. Everything public is reachable here: callers write `numba_api.infer(...)`.
# The parts are imported on first use, so that code running inside the user's program (the profiler's
# line tables, profile_lines.py) loads only its own part.
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

_PARTS = (
    "callees",
    "constructors",
    "containers",
    "core",
    "cuda",
    "decorator_hooks",
    "dispatcher_args",
    "inference",
    "inference_model",
    "ir_copy",
    "overloads",
    "parfors",
    "probes",
    "python_helpers",
    "signatures",
    "slice_containers",
    "slices",
    "translate_memo",
    "typed_ir",
    "views",
)

if TYPE_CHECKING:
    from pyserver.numba_api.callees import *  # noqa: F403
    from pyserver.numba_api.constructors import *  # noqa: F403
    from pyserver.numba_api.containers import *  # noqa: F403
    from pyserver.numba_api.core import *  # noqa: F403
    from pyserver.numba_api.core import NUMBA_VERSION, NUMBA_VERSION_TUPLE, Type  # noqa: F401
    from pyserver.numba_api.cuda import *  # noqa: F403
    from pyserver.numba_api.decorator_hooks import *  # noqa: F403
    from pyserver.numba_api.dispatcher_args import *  # noqa: F403
    from pyserver.numba_api.inference import *  # noqa: F403
    from pyserver.numba_api.inference_model import *  # noqa: F403
    from pyserver.numba_api.ir_copy import *  # noqa: F403
    from pyserver.numba_api.overloads import *  # noqa: F403
    from pyserver.numba_api.parfors import *  # noqa: F403
    from pyserver.numba_api.probes import *  # noqa: F403
    from pyserver.numba_api.python_helpers import *  # noqa: F403
    from pyserver.numba_api.signatures import *  # noqa: F403
    from pyserver.numba_api.slice_containers import *  # noqa: F403
    from pyserver.numba_api.slices import *  # noqa: F403
    from pyserver.numba_api.translate_memo import *  # noqa: F403
    from pyserver.numba_api.typed_ir import *  # noqa: F403
    from pyserver.numba_api.views import *  # noqa: F403


def install() -> None:
    """Put the patches in place (patches.install) with every part loaded, as the analysis worker needs
    them: from then on no part is imported in the middle of a load or an inference."""
    from pyserver.numba_api.patches import install as install_patches

    for part in _PARTS:
        importlib.import_module(f"{__name__}.{part}")
    install_patches()


def _public(module: Any) -> set[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return set(names)
    return {name for name in vars(module) if not name.startswith("_")}


def __getattr__(name: str) -> Any:
    """A public name of one of the parts, as `from part import *` of each part in order would give it
    (a later part's name wins); a part itself by its name."""
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "install":
        return install
    if (Path(__file__).parent / f"{name}.py").is_file():
        return importlib.import_module(f"{__name__}.{name}")
    for part in reversed(_PARTS):
        module = importlib.import_module(f"{__name__}.{part}")
        if name in _public(module):
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
