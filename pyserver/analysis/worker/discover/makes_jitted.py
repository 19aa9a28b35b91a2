"""Can loading a module make a jitted function? Decided from its source alone, so that a module that
makes none (a test module, a plotting script) is never executed by the analysis.

A module may make jitted functions when, resolved through its imports:
- it names one of Numba's builders of jitted functions (`@njit`, `nb.jit(...)`, `fast = numba.njit`,
  `@jitclass`, `@overload`), anywhere;
- a function or class carries a decorator that is not known to make nothing jitted (a library's own jit
  wrapper: `@fast`); the decorators of pytest, unittest, hypothesis and the standard library are known,
  and so are the module's own names for them (`slow = pytest.mark.skipif(...)`);
- a function of the module is passed to a call that is not known to make nothing jitted (`g = wrap(f)`);
- it builds code from text (`exec`) and names numba (kernels made from a template).
Naming `numba` without any of this (a test module that imports a package built on Numba) is not enough.
"""

from __future__ import annotations

import ast
import builtins
import re

from pyserver.analysis.worker.discover.discovery import ImportNames, module_statements
from pyserver.pysource import NEVER_JITTING_DECORATORS, decorator_aliases

# Numba's builders of jitted functions (the last part of their qualified names, under `numba.`).
NUMBA_BUILDERS = frozenset(
    {
        "njit",
        "jit",
        "vectorize",
        "guvectorize",
        "cfunc",
        "stencil",
        "generated_jit",
        "jitclass",
        "overload",
        "overload_method",
        "overload_attribute",
        "overload_classmethod",
        "register_jitable",
        "intrinsic",
    }
)
# Modules whose decorators and calls never make a jitted function.
_NEVER_JITTING_MODULES = frozenset(
    {
        "pytest",
        "_pytest",
        "unittest",
        "hypothesis",
        "functools",
        "typing",
        "typing_extensions",
        "abc",
        "dataclasses",
        "contextlib",
        "atexit",
        "enum",
        "itertools",
        "operator",
        "warnings",
        "click",
        "argparse",
        "threading",
        "multiprocessing",
        "concurrent",
        "asyncio",
        "timeit",
        "cProfile",
        "profile",
        # libraries that take functions to run them (`delayed(f)`, `minimize(f, x0)`, `FuncAnimation(fig,
        # update)`, `np.vectorize(f)`), never to jit them
        "joblib",
        "dask",
        "distributed",
        "ray",
        "scipy",
        "numpy",
        "pandas",
        "matplotlib",
        "sklearn",
        "tqdm",
    }
)
_BUILTIN_NAMES = frozenset(dir(builtins)) - {"exec", "eval", "compile"}
# A Numba builder used as a decorator, or called through the module: answered without parsing (the editor
# asks on every save; the worker parses the text anyway).
_BUILDER_IN_TEXT = re.compile(
    r"^[ \t]*@[\w.]*\b(?:"
    + "|".join(sorted(NUMBA_BUILDERS))
    + r")\b|\bnumba\.(?:[\w.]*\.)?(?:"
    + "|".join(sorted(NUMBA_BUILDERS))
    + r")\(",
    re.MULTILINE,
)


def _qualified(imports: ImportNames, node: ast.expr) -> str:
    return imports.resolve(node, keep_unknown=True) or ""


def _never_jits(qualified: str) -> bool:
    root, _, _ = qualified.partition(".")
    if root in _NEVER_JITTING_MODULES:
        return True
    return qualified.rpartition(".")[2] in NEVER_JITTING_DECORATORS


def _is_numba_builder(qualified: str) -> bool:
    return qualified.split(".")[0] == "numba" and qualified.rpartition(".")[2] in NUMBA_BUILDERS


def shim_builders(tree: ast.Module) -> frozenset[str]:
    """The local names a module imports under the name of one of Numba's builders from a module other
    than Numba (`from .compat import jit`, `from mylib._numba import njit as fast`): a package's jit shim,
    Numba's builder with the package's options, or a stand-in where Numba is missing. Either way, what it
    makes of a function is the function's jitted form."""
    names: set[str] = set()
    for node in module_statements(tree):
        if isinstance(node, ast.ImportFrom):
            names.update(
                alias.asname or alias.name
                for alias in node.names
                if is_shim_builder(node.module or "", node.level, alias.name)
            )
    return frozenset(names)


def is_shim_builder(module: str, level: int, name: str) -> bool:
    """`from module import name` (`level` dots before the module) imports a jit shim (shim_builders)."""
    root = module.partition(".")[0]
    return name in NUMBA_BUILDERS and (level > 0 or (root != "numba" and root not in _NEVER_JITTING_MODULES))


def may_make_jitted(source: str, tree: ast.Module | None = None) -> bool:
    """Could loading this module make jitted functions (see the module's docstring)? Only such modules are
    loaded, and only their definitions run. `tree`: `source` parsed, when the caller has it."""
    if "numba" in source and _BUILDER_IN_TEXT.search(source):
        return True
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return True  # let the analysis say why it cannot be read
    imports = ImportNames(tree)
    plain_aliases = decorator_aliases(tree, lambda value: _never_jits(_qualified(imports, value)))
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
    names_numba = "numba" in source
    # a parameter named like one of the module's functions (`def add_nodes_from(self, nodes)` beside a
    # method `nodes`) is the value passed in, not that function
    parameters = {
        id(name)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for params in [{a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}]
        for name in ast.walk(function)
        if isinstance(name, ast.Name) and name.id in params
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Load):
            if names_numba and _is_numba_builder(_qualified(imports, node)):
                return True
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Name) and target.id in plain_aliases:
                    continue
                qualified = _qualified(imports, target)
                if not qualified or not _never_jits(qualified):
                    return True
        elif isinstance(node, ast.Call):
            qualified = _qualified(imports, node.func)
            if qualified in ("exec", "eval", "compile") and names_numba:
                return True
            passes_function = any(
                isinstance(a, ast.Name) and a.id in defined and id(a) not in parameters for a in node.args
            )
            if passes_function and qualified not in _BUILTIN_NAMES and not _never_jits(qualified):
                return True
    return False
