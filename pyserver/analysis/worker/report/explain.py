"""Numba's error messages -> a cause and a concrete fix a person can act on.

Each class below matches the wording of Numba 0.68's messages (checked by tests/insight, which pairs
every class with a broken and a fixed file). A diagnostic that matches no class gets its code's
generic why/fix from `codes.CODE_TABLE`. `clean_text` removes heap addresses, so that
`Function(<function inv at 0x7f81200045e0>)` reads `np.linalg.inv`.

Pure Python, no Numba: the text is all it needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyserver.analysis.codes import CODE_TABLE

# Functions Numba implements from numpy.linalg (the message names only the bare function).
LINALG = {
    "inv",
    "solve",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "svd",
    "qr",
    "cholesky",
    "lstsq",
    "pinv",
    "slogdet",
    "matrix_power",
    "matrix_rank",
    "norm",
    "cond",
}
# Of those, the ones that need a float or complex array (LAPACK has no integer routines).
LINALG_FLOAT_ONLY = LINALG - {"matrix_power", "norm"}
_NUMPY_NAMES: set[str] | None = None


def _numpy_names() -> set[str]:
    global _NUMPY_NAMES
    if _NUMPY_NAMES is None:
        try:
            import numpy

            _NUMPY_NAMES = {name for name in dir(numpy) if not name.startswith("_")}
        except ImportError:  # the checker's own interpreter always has NumPy; be safe anyway
            _NUMPY_NAMES = set()
    return _NUMPY_NAMES


def qualified(name: str) -> str:
    """`inv` -> `np.linalg.inv`, `zeros` -> `np.zeros`; other names unchanged."""
    if name in LINALG:
        return f"np.linalg.{name}"
    if name in _numpy_names():
        return f"np.{name}"
    return name


_PLAIN_FUNCTION_OBJ = re.compile(r"Function\(<function ([\w.]+) at 0x[0-9a-fA-F]+>\)")
_ANY_ADDRESS = re.compile(r"<([^<>]*?) at 0x[0-9a-fA-F]+>")
_BARE_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def clean_text(text: str) -> str:
    """Numba's text without heap addresses: they differ per run and say nothing to a person."""
    text = _PLAIN_FUNCTION_OBJ.sub(lambda m: qualified(m.group(1).rsplit(".", 1)[-1]), text)
    text = _ANY_ADDRESS.sub(lambda m: f"<{m.group(1)}>", text)
    return _BARE_ADDRESS.sub("", text)


@dataclass
class Explanation:
    why: str
    fix: str
    kind: str | None = None  # the error class, when one matched (e.g. "plain-function")
    data: dict[str, Any] = field(default_factory=dict)  # what a quick fix needs (names, types)


Matcher = Callable[[str], Explanation | None]
_MATCHERS: list[Matcher] = []


def _matcher(function: Matcher) -> Matcher:
    _MATCHERS.append(function)
    return function


def _signature_args(text: str) -> str | None:
    found = re.search(r">>> \w+\((.*)\)\s*$", text, re.MULTILINE) or re.search(
        r"found for signature:\s*\w+\((.*)\)", text
    )
    return found.group(1) if found else None


@_matcher
def _plain_function(text: str) -> Explanation | None:
    found = re.search(r"Untyped global name '(\w+)': Cannot determine Numba type of <class 'function'>", text)
    if not found:
        return None
    name = found.group(1)
    return Explanation(
        f"'{name}' is a plain Python function. Compiled code can call only compiled functions (and the "
        "Python and NumPy functions Numba implements), so it has no way to call it.",
        f"Decorate '{name}' with @njit (its body must compile too), or call it outside the jitted function "
        "and pass its result in.",
        "plain-function",
        {"name": name},
    )


@_matcher
def _global_container(text: str) -> Explanation | None:
    found = re.search(r"The use of a reflected (list|set)\(.*?assigned to variable '(\w+)' in globals", text)
    untyped = re.search(
        r"Untyped global name '(\w+)': Cannot (?:determine Numba type of <class '(dict|list|set)'>|type empty (list|dict|set))",
        text,
    )
    if found:
        kind, name = found.group(1), found.group(2)
    elif untyped:
        name, kind = untyped.group(1), untyped.group(2) or untyped.group(3)
    else:
        return None
    return Explanation(
        f"'{name}' is a global (or a variable of an enclosing Python function) holding a {kind}. Compiled "
        f"code treats globals as constants frozen at compile time, and a mutable {kind} cannot be one.",
        f"Pass '{name}' as an argument (a NumPy array or a numba.typed.{kind.capitalize()}), or, if it "
        + (
            "never changes, make it a tuple: `" + name + " = (1, 2, 3)`."
            if kind != "dict"
            else "is fixed, a tuple."
        ),
        "global-container",
        {"name": name, "container": kind},
    )


@_matcher
def _closure(text: str) -> Explanation | None:
    found = re.search(r"Cannot capture the non-constant value associated with variable '(\w+)'", text)
    if not found:
        return None
    name = found.group(1)
    return Explanation(
        f"An inner function (or lambda) uses '{name}', a variable of the enclosing jitted function whose "
        "value is not a constant, and the inner function may outlive the call. Compiled code cannot "
        "capture such a variable.",
        f"Pass '{name}' to the inner function as an argument, or turn the inner function into a separate "
        "@njit function.",
        "closure",
        {"name": name},
    )


@_matcher
def _undecided_method(text: str) -> Explanation | None:
    if not re.search(r"Undecided type \$\w*load_(?:method|attr)", text):
        return None
    return Explanation(
        "Numba could not type the method or attribute used on this line, so the call has no type either.",
        "Fix the 'Unknown attribute' error reported on the same line; this one then goes away.",
        "follow-on",
    )


@_matcher
def _first_class_function(text: str) -> Explanation | None:
    unify = re.search(
        r"Cannot unify (Function\(.*?\)|type\(CPUDispatcher\(.*?\)\)) and (Function\(.*?\)|type\(CPUDispatcher\(.*?\)\))",
        text,
    )
    caller = "resolving caller type" in text and re.search(r"Undecided type \$\w*binary_subscr", text)
    if not unify and not caller:
        return None
    return Explanation(
        "Each function is a value of its own type in compiled code, so one variable (or list) cannot hold "
        "one function on some paths and another function on others.",
        "Call each function in its own branch (`y = np.sin(x) if n > 0 else np.cos(x)`), or pass the "
        "chosen @njit function as an argument from Python.",
        "first-class-function",
    )


@_matcher
def _string_formatting(text: str) -> Explanation | None:
    percent = re.search(r"\bmod\((Literal\[str\]|unicode_type)", text)
    method = re.search(r"Unknown attribute 'format' of type (Literal\[str\]|unicode_type)", text)
    if not percent and not method:
        return None
    # the types `%` formats (`mod(Literal[str](%d items), int64)`): a quick fix needs them to be integers
    operands = re.search(r"\bmod\(Literal\[str\]\((.*)\), (.+?)\)\s*$", text, re.MULTILINE)
    return Explanation(
        "Compiled code has no `%` formatting and no str.format(); f-strings work only for strings and "
        "integers.",
        "Return the numbers and format the text in Python, or join pieces with str(int_value) and `+`.",
        "string-formatting",
        {"format": operands.group(1), "operands": operands.group(2)} if operands else {},
    )


@_matcher
def _heterogeneous_list(text: str) -> Explanation | None:
    append = re.search(
        r"BoundFunction\(list\.(append|insert|extend) for (?:reflected )?list\((.*?)\)(?:<iv=.*?>)?\) with parameters \((.*?)\)\s*$",
        text,
        re.MULTILINE,
    )
    literal = re.search(r"literal_list_banned_\w+\(LiteralList\(\((.*)\)\), ", text)
    if append:
        item, added = append.group(2), append.group(3)
        why = f"A list in compiled code holds one type of item: this one holds {item}, and {added} is added."
    elif literal:
        why = f"A list in compiled code holds one type of item; this one is built from mixed items ({literal.group(1)}) and cannot grow."
    else:
        return None
    return Explanation(
        why,
        "Keep one item type per list (convert: float(v), int(v)), or use a tuple for a fixed record of "
        "mixed values.",
        "heterogeneous-list",
    )


@_matcher
def _heterogeneous_dict(text: str) -> Explanation | None:
    found = re.search(
        r"setitem\(DictType\[(.*?),(.*?)\](?:<iv=.*?>)?, (.*?), (.*?)\)\s*$", text, re.MULTILINE
    )
    if not found:
        return None
    key, value, new_key, new_value = (g.strip() for g in found.groups())
    return Explanation(
        f"A dict in compiled code has one key type and one value type: this one maps {key} to {value}, "
        f"and the new item is {new_key} -> {new_value}.",
        "Keep one key type and one value type per dict (convert the values), or use several dicts.",
        "heterogeneous-dict",
    )


@_matcher
def _nested_list_array(text: str) -> Explanation | None:
    if (
        not re.search(r"\barray\((?:reflected )?list\((?:reflected )?list\(", text)
        and "cannot reflect element of reflected container" not in text
    ):
        return None
    return Explanation(
        "np.array in compiled code builds arrays from a flat list, a nested tuple or an array, not from a "
        "list of lists.",
        "Create the array in Python (np.array(rows)) and pass it in, or allocate it with np.empty((n, m)) "
        "and fill it in a loop.",
        "nested-list-array",
    )


@_matcher
def _mixed_tuple_index(text: str) -> Explanation | None:
    found = re.search(r"getitem\((Tuple\(.*?\)), (u?int\d+)\)", text)
    if not found:
        return None
    return Explanation(
        f"The tuple {found.group(1)} holds items of different types, so its item type depends on the "
        "index, and compiled code must know it: a variable index is not allowed.",
        "Index it with constants (t[0], t[1], ...), or make all items the same type.",
        "mixed-tuple-index",
    )


def _is_operator(name: str) -> bool:
    import operator

    return hasattr(operator, name)


@_matcher
def _numpy_function(text: str) -> Explanation | None:
    found = re.search(
        r"No implementation of function Function\(<(?:built-in )?function (\w+)(?: at 0x[0-9a-fA-F]+)?>\)",
        text,
    )
    if found is None:
        found = re.search(r"No implementation of function (np\.[\w.]+) found", text)
        if found is None:
            return None
    name = found.group(1).rsplit(".", 1)[-1]
    builtin = "<built-in function" in found.group(0)
    if name not in LINALG and (name not in _numpy_names() or (builtin and _is_operator(name))):
        return None
    shown = qualified(name)
    args = _signature_args(text) or ""
    keyword = re.search(r"got an unexpected keyword argument '(\w+)'", text)
    if name in LINALG_FLOAT_ONLY and re.search(r"array\((?:u?int\d+|bool)", args):
        return Explanation(
            f"{shown} in compiled code runs LAPACK, which works on float and complex arrays only; it was given "
            f"{args}.",
            f"Convert the array first: `{name}(m.astype(np.float64))` (or create it with dtype=np.float64).",
            "linalg-int",
            {"function": shown},
        )
    if keyword:
        return Explanation(
            f"{shown} in compiled code does not accept the keyword argument '{keyword.group(1)}' (Numba "
            "implements a subset of NumPy's arguments).",
            f"Call {shown} without '{keyword.group(1)}' and do that step another way, or call it in Python.",
            "numpy-keyword",
            {"function": shown, "keyword": keyword.group(1)},
        )
    return Explanation(
        f"Numba implements {shown} for some argument types only, and not for ({args}).",
        "Check the argument types against Numba's supported NumPy list (dtype, number of dimensions, "
        "contiguity); convert them, e.g. with .astype(np.float64) or np.ascontiguousarray.",
        "numpy-arguments",
        {"function": shown},
    )


@_matcher
def _operator(text: str) -> Explanation | None:
    import operator

    found = re.search(r"No implementation of function Function\(<built-in function (\w+)>\)", text)
    if found is None or not hasattr(operator, found.group(1)):
        return None
    name = found.group(1)
    return Explanation(
        f"The operation '{name}' has no implementation in compiled code for the operand types "
        f"({_signature_args(text) or 'see the message'}).",
        "Convert the operands to types that support it (hover them to see their types), e.g. numbers or "
        "arrays of the same kind.",
        "operator",
        {"operator": name},
    )


@_matcher
def _attribute(text: str) -> Explanation | None:
    found = re.search(r"Unknown attribute '(\w+)' of type (.+?)(?:\n|$)", text)
    if not found:
        return None
    attribute, owner = found.group(1), found.group(2).strip()
    return Explanation(
        f"Values of type {owner} have no attribute or method '{attribute}' in compiled code (Numba "
        "implements a subset of NumPy's and Python's methods).",
        f"Use a supported equivalent, or do the '{attribute}' step in Python on the function's result.",
        "attribute",
        {"attribute": attribute},
    )


_UNDECIDED_MEMBER_RE = re.compile(r"Undecided type \$\w*load_(?:method|attr)[\w.]* := <undecided>")
_NO_CONVERSION_RE = re.compile(r"No conversion from (.+?) to (.+?) for '([^']+)'(?:, defined at \S+)?")


def in_user_terms(message: str) -> str:
    """A short message of Numba's in the user's terms where it names Numba's own temporaries (`$6load_
    method.2`, `'$26return_value.3', defined at None`): what the code does, with the types."""
    if _UNDECIDED_MEMBER_RE.search(message):
        return (
            "The method or attribute used on this line has no type in compiled code, so neither has its "
            "result (the error about the attribute on this line says why)"
        )
    found = _NO_CONVERSION_RE.search(message)
    if found is None:
        return message
    source, target, name = plain_types(found.group(1)), plain_types(found.group(2)), found.group(3)
    if "return_value" in name:
        told = (
            f"A return statement gives {source}, but the function's return type is {target} (set by its "
            "other returns or its signature): a compiled function returns one type"
        )
    elif name.startswith("$"):
        told = f"A value of type {source} cannot be converted to {target} here"
    else:
        told = f"'{name.split('.')[0]}' gets a {source}, which cannot be converted to its type {target}"
    return message[: found.start()] + told + message[found.end() :]


@_matcher
def _return_conversion(text: str) -> Explanation | None:
    found = _NO_CONVERSION_RE.search(text)
    if found is None or "return_value" not in found.group(3):
        return None
    source, target = plain_types(found.group(1)), plain_types(found.group(2))
    return Explanation(
        f"A return statement gives {source}, but the function's return type is {target}: its other returns "
        "(or its declared signature) fix it, and a compiled function has one return type.",
        "Return the same type on every path (the same tuple shape everywhere, or a number everywhere), or "
        "declare the return type the function really has.",
        "unify-return",
    )


@_matcher
def _unify(text: str) -> Explanation | None:
    returns = re.search(r"Can't unify return type from the following types: (.+?)(?:\n|$)", text)
    if returns:
        types = returns.group(1).strip()
        return Explanation(
            f"The function returns values of different types on different paths ({types}), and a compiled "
            "function has one return type.",
            "Return the same type on every path (e.g. a float on each, or a tuple of the same shape).",
            "unify-return",
        )
    variable = re.search(r"Cannot unify (.+?) and (.+?) for '([^']+)'", text)
    if variable:
        first, second, name = variable.group(1), variable.group(2), variable.group(3)
        shown = name.split(".")[0] if not name.startswith("$") else "a value"
        return Explanation(
            f"'{shown}' is {first} on one path and {second} on another, and a compiled variable has one type.",
            f"Give '{shown}' the same type on every path, or use two variables.",
            "unify-variable",
            {"variable": shown},
        )
    return None


@_matcher
def _empty_container(text: str) -> Explanation | None:
    found = re.search(
        r"Cannot infer the type of variable '([^']+)', have imprecise type: (reflected )?(list|DictType|set)",
        text,
    )
    if not found:
        return None
    name = found.group(1).split(".")[0]
    container = {"DictType": "dict"}.get(found.group(3), found.group(3))
    typed = (
        f"`{name} = numba.typed.Dict.empty(key_type=numba.types.unicode_type, value_type=numba.float64)`"
        if container == "dict"
        else f"`{name} = [np.float64(x) for x in range(0)]` or `numba.typed.List.empty_list(numba.float64)`"
    )
    return Explanation(
        f"'{name}' starts as an empty {container} and nothing in this function adds an item to it, so "
        "Numba cannot tell its item type.",
        f"Create it with its type, e.g. {typed} (with your item types).",
        "empty-container",
        {"variable": name, "container": container},
    )


def plain_types(text: str) -> str:
    """Numba's type text for people: `Literal[int](1)` -> `int`, `list(int64)<iv=None>` -> `list(int64)`."""
    text = re.sub(r"Literal\[(\w+)\]\((?:[^()]|\([^()]*\))*\)", lambda m: m.group(1), text)
    return re.sub(r"<iv=[^<>]*>", "", text)


def explain(code: str, text: str) -> Explanation:
    """The cause and fix for one diagnostic: its code and Numba's (full) text."""
    if code in ("typing-error", "unsupported", "unify-return", "untyped-variable"):
        for matcher in _MATCHERS:
            found = matcher(text)
            if found is not None:
                found.why = plain_types(found.why)
                return found
    info = CODE_TABLE.get(code)
    if info is None:
        return Explanation("Numba Lens reported this finding.", "See the message.")
    return Explanation(info.why, info.fix)


def explain_diagnostic(diagnostic: Any) -> Explanation:
    """`explain` for a model.Diagnostic (its full text when it has one); keeps a why/fix set at analysis."""
    text = diagnostic.fullMessage or diagnostic.message or ""
    found = explain(diagnostic.code, text)
    data = diagnostic.data or {}
    if isinstance(data.get("why"), str) and isinstance(data.get("fix"), str):
        return Explanation(data["why"], data["fix"], found.kind, found.data)
    return found
