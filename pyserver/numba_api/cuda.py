"""Every use of Numba's CUDA target: kernels and device functions typed with the CUDA typing and target
contexts (no GPU, driver or toolkit needed), the `cuda.jit` decorator hook, the CUDA types of device
arrays, and PTX compiles (the ground truth, once NVVM is present).

Which CUDA target is used is what the user has installed: NVIDIA's `numba-cuda` package replaces the
`numba.cuda` module when it is installed, Numba's built-in one is used otherwise. Nothing here imports
`numba.cuda` before a file uses CUDA (importing it costs most of a second).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pyserver.numba_api.callees import current_callee_resolver
from pyserver.numba_api.cuda_package import infer_numba_cuda, is_numba_cuda_package
from pyserver.numba_api.decorator_hooks import Recorded, current_record_hooks
from pyserver.numba_api.inference import error_info, infer
from pyserver.numba_api.inference_model import Inference

_state: dict[str, Any] = {}


def simulator_enabled() -> bool:
    """Numba's CUDA simulator replaces the target (NUMBA_ENABLE_CUDASIM=1): kernels are Python then."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def cuda_module() -> Any | None:
    """`numba.cuda` (numba-cuda's when installed), or None when it cannot be imported here."""
    if "module" not in _state:
        try:
            _state["module"] = importlib.import_module("numba.cuda")
        except Exception:  # an install without CUDA support: no CUDA typing, never a crash
            _state["module"] = None
    return _state["module"]


def cuda_backend() -> str:
    """Which CUDA target is in use, in words: "numba-cuda 0.30.4" or "numba.cuda (built into Numba)"."""
    try:
        return f"numba-cuda {importlib.metadata.version('numba-cuda')}"
    except importlib.metadata.PackageNotFoundError:
        return "numba.cuda (built into Numba)"


def is_cuda_dispatcher(value: Any) -> bool:
    """A CUDA kernel or device function dispatcher (either CUDA target)."""
    return type(value).__name__ == "CUDADispatcher"


def is_device_function(dispatcher: Any) -> bool:
    return bool(dict(getattr(dispatcher, "targetoptions", {}) or {}).get("device"))


def _cuda_target() -> Any:
    return importlib.import_module("numba.cuda.descriptor").cuda_target


def _cuda_flags(dispatcher: Any) -> Any:
    """The flags compile_cuda would give this dispatcher (typing reads the error model and fastmath)."""
    compiler = importlib.import_module("numba.cuda.compiler")
    flags = compiler.CUDAFlags()
    options = dict(getattr(dispatcher, "targetoptions", {}) or {})
    flags.no_compile = True
    flags.no_cpython_wrapper = True
    flags.no_cfunc_wrapper = True
    flags.error_model = "python" if options.get("debug") else "numpy"
    if options.get("fastmath"):
        flags.fastmath = True
    return flags


@contextmanager
def _cuda_target_override() -> Iterator[None]:
    target_extension = importlib.import_module("numba.core.target_extension")
    with target_extension.target_override("cuda"):
        yield


def infer_cuda(dispatcher: Any, args: tuple[Any, ...], return_type: Any | None) -> Inference:
    """Front end + type inference of a kernel or device function with the CUDA typing context."""
    install_cuda_target_patches()
    if is_numba_cuda_package():
        return infer_numba_cuda(dispatcher, args, return_type, _cuda_flags(dispatcher))
    with _cuda_target_override():
        return infer(dispatcher, args, return_type, flags=_cuda_flags(dispatcher))


def _lens_cuda_get_call_template(self: Any, args: Any, kws: Any) -> Any:
    """A call of a workspace device function inside a kernel: typed by the analysis's resolver (the
    device function's own inference), never by compiling it."""
    resolver = current_callee_resolver()
    if resolver is None or not getattr(self, "_numba_lens_workspace", False):
        return _state["original_get_call_template"](self, args, kws)
    typing = importlib.import_module("numba.core.typing.templates")
    utils = importlib.import_module("numba.core.utils")
    folded = tuple(args)
    pairs = resolver(self, folded)
    signatures = [typing.signature(ret, *pair_args) for pair_args, ret in pairs]
    name = f"CallTemplate({self.py_func.__name__})"
    template = typing.make_concrete_template(name, key=self.py_func.__name__, signatures=signatures)
    return template, utils.pysignature(self.py_func), folded, kws


class _NoDevice:
    """Stands in for the current device where there is none: only its compute capability is read."""

    compute_capability = (7, 5)


def install_cuda_target_patches() -> None:
    """Device-function calls through the analysis's resolver; a stand-in device where there is none.
    Numba's built-in target only (numba-cuda types device functions with its own compiler)."""
    if "patched" in _state:
        return
    _state["patched"] = True
    dispatcher_module = importlib.import_module("numba.cuda.dispatcher")
    if not is_numba_cuda_package():
        _state["original_get_call_template"] = dispatcher_module.CUDADispatcher.get_call_template
        dispatcher_module.CUDADispatcher.get_call_template = _lens_cuda_get_call_template
    real_current_device = dispatcher_module.get_current_device

    def current_device_or_stand_in() -> Any:
        # A library device function (int(), min(), a math overload) compiles to LLVM while a kernel is
        # typed; without a GPU Numba's own compile asks the driver for the device's compute capability.
        try:
            return real_current_device()
        except Exception:
            return _NoDevice()

    dispatcher_module.get_current_device = current_device_or_stand_in  # type: ignore[attr-defined]


def install_cuda_hooks() -> bool:
    """Hook `cuda.jit` like Numba's CPU decorators (decorator_hooks): a workspace kernel or device
    function is recorded with its signatures and left lazy (a signature never compiles at load, which
    would need NVVM). Called when a file uses CUDA; False when there is no CUDA target to hook."""
    if "hooked" in _state:
        return bool(_state["hooked"])
    hooks = current_record_hooks()
    module = None if simulator_enabled() or hooks is None else cuda_module()
    if module is None or hooks is None:
        return False
    _state["hooked"] = True
    install_cuda_target_patches()
    decorators = importlib.import_module("numba.cuda.decorators")
    original_jit = decorators.jit

    def lens_cuda_jit(func_or_sig: Any = None, device: bool = False, **options: Any) -> Any:
        def wrap(func: Any, sigs: list[Any]) -> Any:
            is_workspace, on_record = current_record_hooks() or (lambda f: False, None)
            if on_record is None or not is_workspace(func):
                as_written = None if callable(func_or_sig) else func_or_sig
                return original_jit(as_written, device=device, **options)(func)
            lazy = dict(options)
            lazy.pop("cache", None)
            dispatcher = original_jit(device=device, **lazy)(func)
            recorded = Recorded(func, dispatcher, "cuda", sigs, dict(options, device=device), dispatcher)
            on_record(recorded)
            return dispatcher

        if callable(func_or_sig) and not isinstance(func_or_sig, str | list | tuple):
            return wrap(func_or_sig, [])
        sigs = (
            []
            if func_or_sig is None
            else list(func_or_sig)
            if isinstance(func_or_sig, list)
            else [func_or_sig]
        )
        return lambda func: wrap(func, sigs)

    module.jit = lens_cuda_jit  # not decorators.jit: Numba's own jit calls that name again
    return True


def cuda_typeof(value: Any) -> Any | None:
    """The type a kernel launch gives a Python value (device arrays: their array type), or None."""
    module = cuda_module()
    if module is None:
        return None
    typeof = importlib.import_module("numba.core.typing.typeof")
    try:
        return typeof.typeof(value, typeof.Purpose.argument)
    except Exception:
        return None


# ----------------------------------------------------------------------------------- ground truth


def nvvm_home() -> str | None:
    """A CUDA_HOME that holds NVVM: the environment's, else `.make/nvvm/nvidia/cuda_nvcc` of this
    checkout (make nvvm: PyPI's nvidia-cuda-nvcc-cu12), else the same layout in site-packages."""
    candidates = [os.environ.get("CUDA_HOME", "")]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates.append(os.path.join(root, ".make", "nvvm", "nvidia", "cuda_nvcc"))
    try:
        nvidia = importlib.import_module("nvidia")
        candidates += [os.path.join(p, "cuda_nvcc") for p in getattr(nvidia, "__path__", [])]
    except ImportError:
        pass
    for candidate in candidates:
        if candidate and os.path.exists(os.path.join(candidate, "nvvm", "lib64", "libnvvm.so")):
            return candidate
    return None


# Numba's default (5.0) is older than recent NVVMs accept; 7.5 is accepted by CUDA 11.x to 13.x.
PTX_COMPUTE_CAPABILITY = (7, 5)


@dataclass
class PtxCompile:
    """A real compile of a kernel or device function to PTX: its typemap (source names) or its error."""

    ok: bool
    typemap: dict[str, str] = field(default_factory=dict)  # variable (SSA name) -> type text
    unliteral_typemap: dict[str, str] = field(default_factory=dict)  # the same, literals widened
    return_type: str | None = None
    error: str | None = None
    error_line: int | None = None
    elapsed_ms: float = 0.0


def compile_ptx_typed(py_func: Any, args: tuple[Any, ...], device: bool) -> PtxCompile:
    """numba.cuda.compile_ptx for these argument types (needs NVVM: CUDA_HOME, see nvvm_home)."""
    started = time.perf_counter()
    compiler = importlib.import_module("numba.cuda.compiler")
    seen: dict[str, Any] = {}
    original = compiler.compile_cuda

    def capture(*a: Any, **k: Any) -> Any:
        cres = original(*a, **k)
        if "typemap" not in seen:
            seen["typemap"] = cres.type_annotation.typemap
            seen["return_type"] = cres.signature.return_type
        return cres

    compiler.compile_cuda = capture  # type: ignore[attr-defined]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiler.compile_ptx(py_func, args, device=device, cc=PTX_COMPUTE_CAPABILITY)
    except Exception as exc:  # Numba's errors, and e.g. "kernel must have void return type"
        info = error_info(exc, py_func.__code__.co_filename)
        return PtxCompile(False, error=f"{type(exc).__name__}: {info.text}", error_line=info.line)
    finally:
        compiler.compile_cuda = original  # type: ignore[attr-defined]
    nbtypes = importlib.import_module("numba.core.types")
    typemap = {name: str(ty) for name, ty in seen.get("typemap", {}).items()}
    unliteral = {name: str(nbtypes.unliteral(ty)) for name, ty in seen.get("typemap", {}).items()}
    return PtxCompile(
        True,
        typemap,
        unliteral,
        str(seen.get("return_type")),
        elapsed_ms=(time.perf_counter() - started) * 1000.0,
    )


def described_type(description: tuple[str, ...]) -> Any | None:
    """The Numba type a launch gives an argument described as ("array", dtype, ndim) or
    ("scalar", dtype): a NumPy array and a device array both give a C-contiguous array type."""
    nbtypes = importlib.import_module("numba.core.types")
    kind, dtype_name = description[0], description[1]
    if dtype_name == "xoroshiro128p":
        record = importlib.import_module("numba.cuda.random").xoroshiro128p_type
        return nbtypes.Array(record, int(description[2]), "C")
    dtype = getattr(nbtypes, "boolean" if dtype_name == "bool_" else dtype_name, None)
    if dtype is None:
        return None
    if kind == "array":
        return nbtypes.Array(dtype, int(description[2]), "C")
    return dtype
