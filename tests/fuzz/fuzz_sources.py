"""Hypothesis strategies for Numba-style modules and their mutations (shared by the fuzz tests).

A generated module has one to three `@njit` functions whose parameters are annotated, so Numba Lens
knows their types and really type-checks them: random expressions over ints, floats, arrays, tuples,
empty lists and strings, if/for/while blocks nested a few levels deep, returns of different types,
calls between the functions. Mutations then delete, duplicate or swap lines, truncate the text, splice
in random text or bytes, or nest blocks and parentheses past Python's limits.
"""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("NUMBA_LENS_FUZZ_EXAMPLES", "25"))
LONG_RUN = "NUMBA_LENS_FUZZ_EXAMPLES" in os.environ

# The short run in `make test` is derandomised (the same examples every time: CI stays stable) and
# does not shrink a failure (that can take minutes); `make fuzz` explores new examples and shrinks.
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG_RUN,
    phases=list(Phase) if LONG_RUN else [Phase.explicit, Phase.reuse, Phase.generate],
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)

PARAMS = {
    "n": "int",
    "x": "float",
    "a": '"float64[:]"',
    "m": '"float64[:, :]"',
    "t": '"UniTuple(int64, 2)"',
    "b": "bool",
}
ATOMS = [
    "n", "x", "a", "m", "t", "b", "0", "1", "-3", "2.5", "1e300", "True", "None", "'text'", "[]",
    "a[0]", "a[n]", "m[0, 1]", "m[n]", "t[0]", "t[1]", "len(a)", "a.sum()", "a.shape[0]", "m.T",
    "np.sqrt(x)", "np.zeros(3)", "np.empty(n)", "np.arange(n)", "(n, x)", "(1, 2)", "a[1:]", "v", "w",
    "lst", "math.pi", "np.float32(x)", "1j",
]  # fmt: skip
BINARY = ["+", "-", "*", "/", "//", "%", "**", "<", "==", "!=", "and", "or", "&", "|", "@"]
CALLS = ["abs", "min", "max", "float", "int", "len", "np.sum", "np.abs", "bool", "str", "round"]
NAMES = ["v", "w", "lst", "total", "x", "n", "a"]


def expressions() -> st.SearchStrategy[str]:
    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.builds(
                lambda left, op, right: f"({left} {op} {right})", children, st.sampled_from(BINARY), children
            ),
            st.builds(lambda f, e: f"{f}({e})", st.sampled_from(CALLS), children),
            st.builds(
                lambda f, left, right: f"{f}({left}, {right})",
                st.sampled_from(["min", "max"]),
                children,
                children,
            ),
            st.builds(lambda e: f"-{e}", children),
            st.builds(lambda e: f"(not {e})", children),
            st.builds(lambda c, left, right: f"({left} if {c} else {right})", children, children, children),
            st.builds(lambda left, right: f"({left}, {right})", children, children),
            st.builds(lambda e, i: f"{e}[{i}]", children, children),
        )

    return st.recursive(st.sampled_from(ATOMS), extend, max_leaves=8)


def blocks(depth: int) -> st.SearchStrategy[list[str]]:
    """A list of statement lines (already indented relative to the block)."""
    expression = expressions()
    simple = st.one_of(
        st.builds(lambda n, e: [f"{n} = {e}"], st.sampled_from(NAMES), expression),
        st.builds(lambda n, e: [f"{n} += {e}"], st.sampled_from(NAMES), expression),
        st.builds(lambda e: [f"lst.append({e})"], expression),
        st.builds(lambda e: [f"return {e}"], expression),
        st.just(["lst = []"]),
        st.just(["pass"]),
        st.builds(lambda e: [f"a[0] = {e}"], expression),
    )
    if depth <= 0:
        return st.lists(simple, min_size=1, max_size=4).map(
            lambda parts: [line for part in parts for line in part]
        )
    inner = blocks(depth - 1)

    def indent(lines: list[str]) -> list[str]:
        return ["    " + line for line in lines]

    compound = st.one_of(
        st.builds(
            lambda c, body, other: [f"if {c}:", *indent(body), "else:", *indent(other)],
            expression,
            inner,
            inner,
        ),
        st.builds(lambda body: ["for i in range(n):", *indent(body)], inner),
        st.builds(lambda body: ["for e in a:", *indent(body)], inner),
        st.builds(lambda c, body: [f"while {c}:", *indent(body)], expression, inner),
    )
    return st.lists(st.one_of(simple, compound), min_size=1, max_size=4).map(
        lambda parts: [line for part in parts for line in part]
    )


@st.composite
def functions(draw: st.DrawFn, index: int) -> str:
    params = draw(st.lists(st.sampled_from(sorted(PARAMS)), min_size=1, max_size=4, unique=True))
    signature = ", ".join(f"{p}: {PARAMS[p]}" for p in params)
    decorator = draw(
        st.sampled_from(["@njit", "@njit(cache=False)", "@jit(nopython=True)", "@njit(fastmath=True)"])
    )
    body = draw(blocks(draw(st.integers(0, 2))))
    prologue = ["v = 0", "w = 1.0", "total = 0.0", "lst = [1.0]"]
    if index > 0 and draw(st.booleans()):
        prologue.append("total = f0(" + ", ".join(params) + ")")
    lines = [decorator, f"def f{index}({signature}):", *("    " + line for line in prologue + body)]
    lines.append("    return " + draw(st.sampled_from(["v", "w", "total", "lst", "n if b else x", "(v, w)"])))
    return "\n".join(lines)


@st.composite
def modules(draw: st.DrawFn) -> str:
    count = draw(st.integers(1, 3))
    header = "import math\n\nimport numpy as np\nfrom numba import jit, njit\n\n\n"
    return header + "\n\n\n".join(draw(functions(i)) for i in range(count)) + "\n"


# --- mutations ----------------------------------------------------------------------------------------
def _lines(text: str) -> list[str]:
    return text.split("\n")


@st.composite
def mutated(draw: st.DrawFn, source: str) -> str:
    lines = _lines(source)
    kind = draw(
        st.sampled_from(
            [
                "none",
                "delete",
                "duplicate",
                "swap",
                "truncate",
                "splice",
                "replace-char",
                "deep-nesting",
                "deep-parens",
                "dedent",
            ]
        )
    )
    if kind == "none":
        return source
    position = draw(st.integers(0, max(len(lines) - 1, 0)))
    if kind == "delete":
        count = draw(st.integers(1, 3))
        del lines[position : position + count]
    elif kind == "duplicate":
        lines.insert(position, lines[position])
    elif kind == "swap":
        other = draw(st.integers(0, len(lines) - 1))
        lines[position], lines[other] = lines[other], lines[position]
    elif kind == "truncate":
        return source[: draw(st.integers(0, len(source)))]
    elif kind == "splice":
        noise = draw(st.text(min_size=1, max_size=40))
        column = draw(st.integers(0, len(lines[position])))
        lines[position] = lines[position][:column] + noise + lines[position][column:]
    elif kind == "replace-char":
        offset = draw(st.integers(0, max(len(source) - 1, 0)))
        return source[:offset] + draw(st.characters()) + source[offset + 1 :]
    elif kind == "dedent":
        lines[position] = lines[position].lstrip()
    elif kind == "deep-nesting":
        depth = draw(st.integers(5, 120))
        nested = [" " * (4 * (level + 1)) + "if n > 0:" for level in range(depth)]
        nested.append(" " * (4 * (depth + 1)) + "n = n - 1")
        insert_at = next((i + 1 for i, line in enumerate(lines) if line.startswith("def f0(")), len(lines))
        lines[insert_at:insert_at] = nested
    elif kind == "deep-parens":
        depth = draw(st.integers(10, 400))
        insert_at = next((i + 1 for i, line in enumerate(lines) if line.startswith("def f0(")), len(lines))
        lines.insert(insert_at, "    v = " + "(" * depth + "1" + ")" * depth)
    return "\n".join(lines)


@st.composite
def fuzzed_sources(draw: st.DrawFn) -> str:
    return draw(mutated(draw(modules())))


@st.composite
def fuzzed_bytes(draw: st.DrawFn) -> bytes:
    """A module as bytes on disk: sometimes random bytes spliced in (invalid UTF-8, NULs)."""
    data = draw(fuzzed_sources()).encode("utf-8", errors="surrogatepass")
    if draw(st.booleans()):
        offset = draw(st.integers(0, len(data)))
        data = data[:offset] + draw(st.binary(min_size=1, max_size=32)) + data[offset:]
    return data


_BREAK = re.compile(r"\r\n|\r|\n")


def file_lines(text: str) -> list[str]:
    """Lines as LSP and Python's tokenizer count them (not str.splitlines, which also splits at \\x0c)."""
    return _BREAK.split(text)


def utf16_length(text: str) -> int:
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)
