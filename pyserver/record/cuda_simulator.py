"""Kernel launches under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) recorded like compiles: the
simulator runs kernels as Python and compiles nothing, so a launch's argument types are what the CUDA
target would compile for (numba.typeof of each argument, a simulated device array as its host array)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

OnCompile = Callable[[Any, tuple[Any, ...], bool], None]


def simulator_enabled() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def install_simulator_hook(on_compile: OnCompile) -> bool:
    """Record each simulated kernel launch (`on_compile(py_func, argument types, failed)`); False where
    the simulator is off."""
    if not simulator_enabled():
        return False
    from numba import typeof
    from numba.core.typing.typeof import Purpose
    from numba.cuda.simulator import kernel

    original_call = kernel.FakeCUDAKernel.__call__

    def recording_call(self: Any, *args: Any) -> Any:
        if not getattr(self, "_device", False):
            try:
                types = tuple(typeof(getattr(a, "_ary", a), Purpose.argument) for a in args)
                on_compile(self.fn, types, False)
            except Exception:  # an argument Numba cannot type: the launch goes on, unrecorded
                pass
        return original_call(self, *args)

    kernel.FakeCUDAKernel.__call__ = recording_call  # type: ignore[method-assign]
    return True
