"""NumPy calls of a slice spelled the way Numba types them, with the same result in Python:

- a legacy `np.random` distribution called with keywords (`np.random.normal(size=n)`): Numba types
  only its positional forms, so the call is spelled positionally with NumPy's own defaults for the
  parameters left out (`np.random.normal(0.0, 1.0, n)`); the function, its values and its result are
  the same;
- an array-joining function given a list display (`np.concatenate([a, b])`): NumPy joins a list as it
  joins a tuple; Numba takes only the tuple (`np.concatenate((a, b))`).

AST only: the slice is copied before it changes (the parsed file's tree is shared); nothing runs.
"""

from __future__ import annotations

import ast
import copy
import inspect
from typing import Any

from pyserver.analysis.worker.signatures.caller_slices import resolved_global

# NumPy's functions that join a sequence of arrays given as their first argument
_JOINING = ("concatenate", "stack", "vstack", "hstack", "dstack", "column_stack")


def _numpy_function(value: object, names: tuple[str, ...]) -> bool:
    module = getattr(value, "__module__", None) or ""
    return getattr(value, "__name__", None) in names and module.split(".")[0] == "numpy"


def _legacy_random(value: object) -> bool:
    """A distribution of NumPy's global RandomState (`np.random.normal`), which Numba types."""
    owner = getattr(value, "__self__", None)
    kind = type(owner)
    return kind.__name__ == "RandomState" and kind.__module__.startswith("numpy.random")


def _positional(call: ast.Call, value: Any) -> list[ast.expr] | None:
    """The call's arguments as positional ones, NumPy's numeric defaults filling the parameters left
    out before the last one given; None when that cannot be spelled exactly."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    try:
        parameters = list(inspect.signature(value).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in parameters):
        return None
    given: dict[str, ast.expr] = {}
    for parameter, argument in zip(parameters, call.args, strict=False):
        given[parameter.name] = argument
    if len(call.args) > len(parameters):
        return None
    for keyword in call.keywords:
        if keyword.arg in given or keyword.arg not in {p.name for p in parameters} or keyword.arg == "dtype":
            return None
        given[keyword.arg] = keyword.value  # type: ignore[index]
    last = max(i for i, p in enumerate(parameters) if p.name in given)
    spelled: list[ast.expr] = []
    for parameter in parameters[: last + 1]:
        if parameter.name in given:
            spelled.append(given[parameter.name])
            continue
        default = parameter.default
        if type(default) not in (int, float):
            return None  # no default, or one (None, a class) whose positional spelling may type otherwise
        spelled.append(ast.Constant(value=default))
    return spelled


def rewrite_numpy_calls(function: ast.FunctionDef, source: str, values: dict[str, Any]) -> ast.FunctionDef:
    """The slice with the calls above spelled as Numba types them (`function` itself when none is)."""
    if "random" not in source and not any(name in source for name in _JOINING):
        return function
    changed = copy.deepcopy(function)
    rewritten = False
    for node in ast.walk(changed):
        if not isinstance(node, ast.Call):
            continue
        value = resolved_global(node.func, values)
        if value is None:
            continue
        if node.keywords and _legacy_random(value):
            spelled = _positional(node, value)
            if spelled is not None:
                node.args, node.keywords = spelled, []
                rewritten = True
        elif (
            _numpy_function(value, _JOINING)
            and node.args
            and isinstance(node.args[0], ast.List)
            and not any(isinstance(e, ast.Starred) for e in node.args[0].elts)
        ):
            node.args[0] = ast.Tuple(elts=node.args[0].elts, ctx=ast.Load())
            rewritten = True
    return changed if rewritten else function
