"""Argument types from what a user writes, for the numba_api fence: signature strings and objects (parsed
once per text while the names in it stand for the same objects), annotations, and the signatures in
Numba's cache index files."""

from __future__ import annotations

import builtins
import fnmatch
import os
import pickle
import re
import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba.core import sigutils, typing
from numba.core import types as nbtypes

from pyserver.caches import BoundedCache, bounded_cache


def parse_signature(sig: Any) -> tuple[tuple[Any, ...], Any]:
    """(argument types, return type or None) from any signature form Numba accepts; ValueError if bad."""
    if isinstance(sig, str):
        cached = _parsed_signatures.get(sig)
        if cached is not None and all(_signature_name(n) is v for n, v in cached[1]):
            return cached[0]
    try:
        args, return_type = sigutils.normalize_signature(sig)
    except Exception as exc:  # Numba raises NameError/TypeError/SyntaxError for bad strings
        raise ValueError(f"{type(exc).__name__}: {exc}") from exc
    parsed = tuple(args), return_type
    if isinstance(sig, str):
        names = tuple((n, _signature_name(n)) for n in set(_IDENTIFIER.findall(sig)))
        _parsed_signatures[sig] = (parsed, names)
    return parsed


# A signature string is evaluated among Numba's types (then builtins), and its types are interned: the
# same text gives the same types while the names it uses stand for the same objects (checked on reuse).
_parsed_signatures: BoundedCache[str, tuple[tuple[tuple[Any, ...], Any], tuple[tuple[str, Any], ...]]] = (
    bounded_cache("numba_api.parsed_signatures", 4096)
)
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
_MISSING = object()


def _signature_name(name: str) -> Any:
    found = nbtypes.__dict__.get(name, _MISSING)
    return builtins.__dict__.get(name, _MISSING) if found is _MISSING else found


_PYTHON_SCALARS: dict[Any, Any] = {
    int: nbtypes.int64,
    float: nbtypes.float64,
    complex: nbtypes.complex128,
    bool: nbtypes.boolean,
    str: nbtypes.unicode_type,
}


# see annotation_type
_annotation_values: BoundedCache[str, tuple[Any, tuple[tuple[str, Any], ...]]] = bounded_cache(
    "numba_api.annotation_values", 4096
)


def annotation_type(annotation: Any, namespace: dict[str, Any]) -> Any | None:
    """The Numba type an annotation names, or None when it does not name one exactly.

    Accepts Numba types (`float64[:]`, `types.int64`), strings of those, Python int/float/complex/bool/str
    and numpy scalar types. `np.ndarray` and other vague annotations give None: never a guess.
    """
    return annotation_type_and_origin(annotation, namespace)[0]


def annotation_type_and_origin(annotation: Any, namespace: dict[str, Any]) -> tuple[Any | None, str]:
    """annotation_type, and the NumPy scalar class it named ("float64" for `np.float64`; "" for anything
    else): code often annotates an array of that type so, where Python's `float` or Numba's `float64[:]`
    say exactly what they mean."""
    value = annotation
    if isinstance(annotation, str):
        # A string of Numba's own type names only ("float64[::1]"): its value is kept, while each name
        # still stands for the same object of numba.types and the module does not define it.
        names = set(_IDENTIFIER.findall(annotation))
        own = "." not in annotation and all(n in nbtypes.__dict__ and n not in namespace for n in names)
        kept = _annotation_values.get(annotation) if own else None
        if kept is not None and all(nbtypes.__dict__.get(n) is v for n, v in kept[1]):
            value = kept[0]
        else:
            scope = dict(nbtypes.__dict__)
            scope.update(namespace)
            try:
                value = eval(annotation, scope)  # annotations are code from the (trusted) workspace
            except Exception:
                return None, ""
            if own:
                _annotation_values[annotation] = (value, tuple((n, nbtypes.__dict__[n]) for n in names))
    if isinstance(value, nbtypes.Type):
        if isinstance(value, nbtypes.NumberClass):  # e.g. `types.float64` used as a class
            return value.instance_type, ""
        return (value if value.is_precise() else None), ""
    if value in _PYTHON_SCALARS:
        return _PYTHON_SCALARS[value], ""
    if isinstance(value, type) and issubclass(value, np.generic) and value not in (np.generic, np.number):
        try:
            return numba.from_dtype(np.dtype(value)), value.__name__
        except Exception:
            return None, ""
    return None, ""


def cache_index_signatures(py_func: Any, path: str) -> list[tuple[Any, ...]]:
    """Argument types from `cache=True` index files next to `path` (trusted workspaces only: unpickles)."""
    cache_dir = os.path.join(os.path.dirname(path), "__pycache__")
    stem = os.path.splitext(os.path.basename(path))[0]
    qualname = py_func.__qualname__.replace("<", "").replace(">", "")
    prefix = f"{stem}.{qualname}-"  # then `*.py*.nbi`, as glob would match
    found: list[tuple[Any, ...]] = []
    names = _directory_names(cache_dir)
    matching = [
        n for n in names if n.startswith(prefix) and fnmatch.fnmatchcase(n[len(prefix) :], "*.py*.nbi")
    ]
    for index_path in sorted(os.path.join(cache_dir, n) for n in matching):
        try:
            with open(index_path, "rb") as handle:
                pickle.load(handle)  # the Numba version string
                _stamp, overloads = pickle.loads(handle.read())
        except Exception:
            continue
        for key in overloads:
            sig = key[0] if isinstance(key, tuple) and key else key
            args = tuple(sig.args) if isinstance(sig, typing.Signature) else tuple(sig)
            if all(isinstance(a, nbtypes.Type) for a in args) and args not in found:
                found.append(args)
    return found


# directory -> (its mtime_ns, when it was listed, its names): listed again when it changed, or when it
# had changed within RACY_S of the listing (a timestamp too coarse to tell two changes apart, as git does).
_listings: BoundedCache[str, tuple[int, float, list[str]]] = bounded_cache("numba_api.cache_listings", 256)
RACY_S = 2.0


def _directory_names(directory: str) -> list[str]:
    try:
        stamp = os.stat(directory).st_mtime_ns
    except OSError:
        return []  # no __pycache__: the usual case, one stat per function
    listed = _listings.get(directory)
    if listed is not None and listed[0] == stamp and listed[1] - stamp / 1e9 > RACY_S:
        return listed[2]
    listed_at = time.time()
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    _listings[directory] = (stamp, listed_at, names)
    return names


@dataclass
class CacheIndex:
    """Where Numba's on-disk cache (cache=True) keeps a function's index, and what it checks on load."""

    path: str
    codegen_magic: Any  # this machine's codegen key: an entry for another one is not reused
    code_hash: str
    closure_hash: str
    version: Any  # the Numba version an index must have been written by
    source_stamp: Any  # the source file's stamp an index must have been written with


def cache_index_of(py_func: Any) -> CacheIndex:
    """The cache index location and keys of a function, as Numba's FunctionCache computes them."""
    from numba.core.caching import FunctionCache
    from numba.core.registry import cpu_target

    cache = FunctionCache(py_func)
    cache_file: Any = cache._cache_file
    codegen = cpu_target.target_context.codegen()
    key = cache._index_key((), codegen)  # (sig, magic tuple, (code hash, closure hash))
    code_hash, closure_hash = key[2]
    return CacheIndex(
        cache_file._index_path, key[1], code_hash, closure_hash, cache_file._version, cache_file._source_stamp
    )
