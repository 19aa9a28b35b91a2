"""The definitions-only module run statement by statement (code of unchanged statements reused) does what
the module compiled whole does: its namespace, docstring, annotations, `__future__` flags, the error that
stops it and the SyntaxError Python gives."""

from __future__ import annotations

import ast
import builtins
import textwrap
import traceback
from typing import Any

import pytest

from pyserver.analysis.worker.load import module_codes, toplevel_slice

PATH = "/tmp/numba_lens_stepwise.py"

SOURCES = [
    '"""The docstring."""\nimport math\nA = 1\n"""not a docstring"""\nB: int = A + 1\n\ndef f(x=A):\n    return x\n',
    "from __future__ import annotations\nimport math\n\ndef f(x: Undefined) -> Nope:\n    return x\nC: Later = 3\n",
    "import math\nif math.pi > 3:\n    D: float = 1.0\nelse:\n    D = 2\n\ndef g():\n    return D\n",
    "import math\nE = 1\nF = 1 / 0\nG = 2\n\ndef h():\n    return E + F + G\n",
    "import math\nfrom __future__ import annotations\n\ndef f():\n    return 1\n",
    "import math\nH = 1\nglobal H\n\ndef f():\n    return H\n",
    "import math\nreturn 5\n\ndef f():\n    return 1\n",
    "x = 1; y = 2\nimport math\n\ndef f():\n    return x + y\n",
    "'''only a docstring'''\n",
    "",
]


def _run(codes: list[Any], annotates: bool) -> tuple[dict[str, Any], str | None]:
    namespace: dict[str, Any] = {"__name__": "stepwise", "__builtins__": builtins}
    if annotates:
        namespace["__annotations__"] = {}
    try:
        for code in codes:
            exec(code, namespace)
    except Exception as exc:
        frames = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == PATH]
        return namespace, f"{type(exc).__name__}: {exc} at {frames}"
    return namespace, None


def _observable(namespace: dict[str, Any]) -> dict[str, Any]:
    shown: dict[str, Any] = {}
    for name, value in namespace.items():
        if name == "__builtins__":
            continue
        if callable(value) and hasattr(value, "__code__"):
            code = value.__code__
            shown[name] = (
                "function",
                code.co_firstlineno,
                code.co_flags,
                value.__defaults__,
                value.__annotations__,
            )
        else:
            shown[name] = value if not isinstance(value, type(builtins)) else value.__name__
    return shown


def _whole(sliced: toplevel_slice.TopLevelSlice) -> Any:
    return compile(sliced.tree, PATH, "exec", flags=sliced.future_flags, dont_inherit=True)


@pytest.mark.parametrize("source", SOURCES)
def test_run_by_statement_equals_the_module_run_whole(source: str) -> None:
    tree = ast.parse(source)
    sliced = toplevel_slice.slice_module(tree, source=source)
    try:
        whole = _whole(sliced)
    except SyntaxError as exc:
        with pytest.raises(SyntaxError) as stepwise_error:
            module_codes.module_codes(sliced, PATH, source, {id(s) for s in tree.body})
        assert (stepwise_error.value.msg, stepwise_error.value.lineno) == (exc.msg, exc.lineno)
        return
    codes = [code for _, code in module_codes.module_codes(sliced, PATH, source, {id(s) for s in tree.body})]
    expected, expected_error = _run([whole], annotates=False)
    actual, actual_error = _run(codes, annotates=module_codes.annotates(sliced.tree.body))
    assert actual_error == expected_error
    assert _observable(actual) == _observable(expected)


def test_unchanged_statements_keep_their_code_and_an_edited_one_is_compiled_again() -> None:
    source = textwrap.dedent(
        """\
        import math

        def f():
            return 1

        def g():
            return 2
        """
    )
    edited = source.replace("return 2", "return 3")

    def codes(text: str) -> list[Any]:
        tree = ast.parse(text)
        sliced = toplevel_slice.slice_module(tree, source=text)
        return [code for _, code in module_codes.module_codes(sliced, PATH, text, {id(s) for s in tree.body})]

    first, second = codes(source), codes(edited)
    assert first[0] is second[0] and first[1] is second[1] and first[2] is not second[2]
    namespace, error = _run(second, annotates=False)
    assert error is None and namespace["g"]() == 3
    moved = codes("\n" + edited)  # one line down: compiled again, with its new line numbers
    assert all(a is not b for a, b in zip(second, moved, strict=True))
    assert _run(moved, annotates=False)[0]["g"].__code__.co_firstlineno == 7
