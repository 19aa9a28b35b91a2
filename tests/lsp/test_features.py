"""What a user sees in the editor, end to end: one real server over stdio on a copy of examples/
(plus a few files of our own), real Numba in its worker. Diagnostics with ranges and related
information, hover types (SSA versions, literals, unknown types), inlay hints, code lenses, quick
fixes applied and re-checked, IR views, settings changes without a restart, progress and status."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsp_session import Session, copy_examples, first, start_session
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio(loop_scope="module")

SSA = """\
from numba import njit


@njit
def ssa(n: int):
    x = 1
    y = x + 1
    x = 2.5
    z = x * 2
    k = 7
    total = 0.0
    for i in range(n):
        total += x
    return z + y + total + k


@njit
def untyped(a, b):
    return a + b


@njit
def two_kinds(a: "float64[:]", b: "int64[:]"):
    return first_of(a) + first_of(b)


@njit
def first_of(values):
    head = values[0]
    return head


@njit
def merges(n: int):
    x = 1
    for i in range(n):
        y = x
        x = 0.5
    w = 3; w = w * 1.5; v = w
    return x + y + v
"""

LEGACY = """\
from numba import jit


@jit(nopython=False)
def legacy(x: int):
    return x + 1


@jit(cache=False, nopython=False)
def legacy_with_options(x: int):
    return x - 1
"""

PLAIN_SCRIPT = """\
import pathlib

pathlib.Path(__file__).with_name("plain_script.ran").write_text("a module without Numba was executed")
print("hello")
"""

UNTYPED_KNOWN = """\
import numpy as np
from numba import njit


@njit
def grow(n: int):
    values = []
    for i in range(n):
        values += [np.int32(i)]
    return values
"""

RECORDED = """\
from numba import njit


@njit
def scaled(a, k):
    out = a * k
    return out
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def session(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    root = copy_examples(tmp_path_factory.mktemp("features"))
    (root / "ssa.py").write_text(SSA)
    (root / "legacy.py").write_text(LEGACY)
    (root / "recorded.py").write_text(RECORDED)
    (root / "plain_script.py").write_text(PLAIN_SCRIPT)
    (root / "untyped_list_2.py").write_text((root / "untyped_list.py").read_text())
    (root / "untyped_unknown.py").write_text((root / "untyped_list.py").read_text())
    (root / "untyped_known.py").write_text(UNTYPED_KNOWN)
    _record_signature(root, "recorded.py", "scaled")
    (root / "recorded_unusable.py").write_text(RECORDED.replace("scaled", "halved"))
    _record_unreadable_signature(root, "recorded_unusable.py", "halved")
    session = await start_session(root, settings={"inlayHints": {"maxLength": 30}})
    yield session
    await session.shutdown()


def _record_signature(root: Path, file_name: str, function: str) -> None:
    """A signatures file as `record` writes it, with real Numba types (float64 C array, float64)."""
    from numba.core import types

    from pyserver.record import store, types_codec

    args = (types.Array(types.float64, 1, "C"), types.float64)
    encoded = types_codec.encode_all(args)
    assert encoded is not None
    with store.locked(root / store.DEFAULT_RELATIVE) as data:
        store.merge(
            data, store.function_key(file_name, function), store.Entry([str(a) for a in args], encoded, True)
        )


def _record_unreadable_signature(root: Path, file_name: str, function: str) -> None:
    """An entry whose exact encoding this version cannot read back (as from a newer recorder), with its
    readable text intact."""
    from pyserver.record import store

    types = [
        {"kind": "array-v2", "dtype": "float64", "ndim": 1, "layout": "C"},
        {"kind": "named", "name": "float64"},
    ]
    with store.locked(root / store.DEFAULT_RELATIVE) as data:
        store.merge(
            data,
            store.function_key(file_name, function),
            store.Entry(["array(float64, 1d, C)", "float64"], types, True),
        )


def _line(diagnostic: lsp.Diagnostic) -> int:
    return diagnostic.range.start.line + 1


# --- diagnostics --------------------------------------------------------------------------------------
async def test_clean_file_publishes_an_empty_list(session: Session) -> None:
    assert await session.open("kernels.py") == []


async def test_a_module_without_jitted_code_is_never_run(session: Session) -> None:
    assert await session.open("plain_script.py") == []
    assert await session.save("plain_script.py") == []
    assert not (session.root / "plain_script.ran").exists()


async def test_typing_errors_have_ranges_links_and_the_full_numba_text(session: Session) -> None:
    diagnostics = await session.open("typing_errors.py")
    by_line = {_line(d): d for d in diagnostics}
    add = by_line[10]  # return x + (1, 2): the `+`
    assert add.code == "typing-error" and add.severity == lsp.DiagnosticSeverity.Error
    text = session.texts[session.uri("typing_errors.py")].split("\n")[9]
    assert text[add.range.start.character : add.range.end.character] == "+"
    assert add.code_description is not None and add.code_description.href.startswith(
        "https://numba.readthedocs.io"
    )
    assert add.source == "numba"
    assert "No implementation of function" in add.data["fullMessage"]
    full_text_hover = await session.hover("typing_errors.py", 9, add.range.start.character)
    assert full_text_hover is not None and "**Numba (typing-error)**" in full_text_hover
    assert "During: typing of" in full_text_hover or "No implementation of function" in full_text_hover
    assert by_line[16].code == "unsupported"  # float(text)
    # The error inside `scale`, called from `calls_scale` with a tuple: linked both ways.
    callee, caller = by_line[22], by_line[27]
    assert callee.related_information and caller.related_information
    assert callee.related_information[0].location.range.start.line + 1 == 27
    assert caller.related_information[0].location.range.start.line + 1 == 22
    assert callee.related_information[0].location.uri == session.uri("typing_errors.py")


async def test_unify_return_points_at_every_return(session: Session) -> None:
    diagnostics = await session.open("unify_return.py")
    unify = first(diagnostics, "unify-return")
    related_lines = sorted(r.location.range.start.line + 1 for r in unify.related_information or [])
    assert related_lines == [10, 11]
    assert any("UniTuple(int64 x 2)" in r.message for r in unify.related_information or [])


async def test_object_mode_and_lifted_loop(session: Session) -> None:
    diagnostics = await session.open("object_mode.py")
    assert _line(first(diagnostics, "object-mode")) == 8
    lifted = first(diagnostics, "loop-lifted")
    assert _line(lifted) == 11 and lifted.severity == lsp.DiagnosticSeverity.Information


async def test_deprecated_nopython_false_is_tagged_unnecessary(session: Session) -> None:
    diagnostics = await session.open("legacy.py")
    deprecations = [d for d in diagnostics if d.code == "deprecation"]
    assert len(deprecations) == 2
    assert all(list(d.tags or []) == [lsp.DiagnosticTag.Unnecessary] for d in deprecations)
    line = session.texts[session.uri("legacy.py")].split("\n")[3]
    d = deprecations[0]
    assert line[d.range.start.character : d.range.end.character] == "nopython=False"


# --- hover --------------------------------------------------------------------------------------------
async def test_hover_shows_numba_types(session: Session) -> None:
    await session.open("kernels.py")
    x = await session.hover_word("kernels.py", 16, "x")  # total += x * 2.0
    assert x is not None and "x: float64" in x
    out = await session.hover_word("kernels.py", 23, "out")
    assert out is not None and "out: array(float64, 1d, C)" in out
    param = await session.hover_word("kernels.py", 12, "a")
    assert param is not None and "a: array(float64, 1d, A)" in param
    function = await session.hover_word("kernels.py", 12, "walk")
    assert function is not None
    assert "(array(float64, 1d, A), int64) -> float64" in function
    assert "nopython mode" in function and "annotations" in function
    assert "type inference" in function  # the time it took


async def test_hover_resolves_ssa_versions_and_literals(session: Session) -> None:
    await session.open("ssa.py")
    assert "x: int64 (literal 1)" in (await session.hover_word("ssa.py", 6, "x") or "")
    assert "x: int64 (literal 1)" in (await session.hover_word("ssa.py", 7, "x") or "")  # y = x + 1
    assert "x: float64" in (await session.hover_word("ssa.py", 8, "x") or "")  # x = 2.5
    assert "x: float64" in (await session.hover_word("ssa.py", 9, "x") or "")  # z = x * 2
    assert "x: float64" in (await session.hover_word("ssa.py", 13, "x") or "")  # in the loop
    assert "k: int64 (literal 7)" in (await session.hover_word("ssa.py", 10, "k") or "")
    assert "total: float64" in (await session.hover_word("ssa.py", 14, "total") or "")


def _type_block(hover: str | None) -> str:
    """The ```python block of a hover: the types, without the signature line under it."""
    assert hover is not None and "```python\n" in hover, hover
    return hover.split("```python\n", 1)[1].split("\n```", 1)[0]


async def test_hover_at_a_join_shows_the_version_numba_reads_there(session: Session) -> None:
    await session.open("ssa.py")
    lines = session.texts[session.uri("ssa.py")].split("\n")
    loop_use = lines.index("        y = x") + 1
    # `x` is 1 before the loop and 0.5 inside it: at `y = x` Numba reads the merge of both, float64
    # (the int is converted on entry), so the hover is that one type, not the literal it started as.
    hover = _type_block(await session.hover_word("ssa.py", loop_use, "x"))
    assert hover == "x: float64", hover
    after = _type_block(await session.hover_word("ssa.py", lines.index("    return x + y + v") + 1, "x"))
    assert after == "x: float64", after
    # One line reading two versions of `w`: each read is listed, never one picked for both.
    same_line = lines.index("    w = 3; w = w * 1.5; v = w") + 1
    both = _type_block(await session.hover_word("ssa.py", same_line, "w", occurrence=3))
    assert "int64 (literal 3)" in both and "float64" in both, both


async def test_hover_on_a_function_without_types_says_how_to_get_them(session: Session) -> None:
    await session.open("ssa.py")
    text = await session.hover_word("ssa.py", 18, "untyped")
    assert text is not None and "Types unknown" in text and "record" in text and "annotate" in text
    variable = await session.hover_word("ssa.py", 19, "a")
    assert variable is not None and "types unknown" in variable
    assert "```" not in variable  # no type block: nothing is guessed


async def test_hover_lists_every_signature(session: Session) -> None:
    await session.open("ssa.py")
    head = await session.hover_word("ssa.py", 29, "head")
    assert head is not None
    assert "head: float64  # (array(float64, 1d, A))" in head
    assert "head: int64  # (array(int64, 1d, A))" in head


async def test_hover_keeps_the_last_result_while_the_buffer_changes(session: Session) -> None:
    await session.open("kernels.py")
    original = session.texts[session.uri("kernels.py")]
    edited = original.replace("import numpy as np\n", "import numpy as np\n\n# a new comment\n")
    session.change("kernels.py", edited)  # not saved: no analysis runs (analyzeOnType is off)
    try:
        moved = await session.hover_word("kernels.py", 18, "x")  # `x = a[i]`, two lines lower now
        assert moved is not None and "x: float64" in moved
        changed = edited.replace("        x = a[i]\n", "        x = a[i] + 1j\n")
        session.change("kernels.py", changed)
        stale = await session.hover_word("kernels.py", 17, "x")  # x = a[i] + 1j
        assert stale is not None and "float64" not in stale and "changed since the last analysis" in stale
    finally:
        session.change("kernels.py", original)


# --- inlay hints --------------------------------------------------------------------------------------
async def test_inlay_hints_for_assignments_and_return_types(session: Session) -> None:
    await session.open("kernels.py")
    hints = await session.inlay_hints("kernels.py")
    labels = {(h.position.line + 1, h.label) for h in hints}
    assert (13, ": float64") in labels  # total = 0.0
    assert (15, ": float64") in labels  # x = a[i]
    assert (23, ": array(float64, 1d, C)") in labels  # out = np.empty_like(a)
    assert (21, "-> array(float64, 1d, C)") in labels  # normalise's return type
    assert not any(line == 12 and label.startswith("->") for line, label in labels)  # `-> float` is written
    long = next(h for h in hints if h.position.line + 1 == 30 and str(h.label).startswith("->"))
    assert len(str(long.label)) == 30 and str(long.label).endswith("…")
    resolved = await session.client.inlay_hint_resolve_async(long)
    assert isinstance(resolved.tooltip, lsp.MarkupContent)
    assert "Tuple(UniTuple(float64 x 2), float64)" in resolved.tooltip.value


async def test_inlay_hints_show_plain_types_for_literals(session: Session) -> None:
    await session.open("ssa.py")
    hints = {(h.position.line + 1, str(h.label)): h for h in await session.inlay_hints("ssa.py")}
    assert (6, ": int64") in hints and (8, ": float64") in hints and (10, ": int64") in hints
    resolved = await session.client.inlay_hint_resolve_async(hints[(10, ": int64")])
    assert isinstance(resolved.tooltip, lsp.MarkupContent) and "int64 (literal 7)" in resolved.tooltip.value


async def test_inlay_hint_settings_apply_without_restart(session: Session) -> None:
    await session.open("kernels.py")
    session.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"numbaLens": {"inlayHints": {"variableTypes": False}}})
    )
    try:
        hints = await session.inlay_hints("kernels.py")
        assert hints and all(str(h.label).startswith("->") for h in hints)
    finally:
        session.client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams(settings={"numbaLens": {"inlayHints": {"variableTypes": True}}})
        )
    assert any(str(h.label).startswith(":") for h in await session.inlay_hints("kernels.py"))


# --- code lenses --------------------------------------------------------------------------------------
async def test_code_lenses_show_signatures_status_and_commands(session: Session) -> None:
    await session.open("kernels.py")
    lenses = await session.code_lenses("kernels.py")
    at_walk = [lens.command for lens in lenses if lens.range.start.line == 10 and lens.command]
    titles = [c.title for c in at_walk]
    assert (
        titles[0]
        == (
            "(array(float64, 1d, A), int64) -> float64, (array(float64, 1d, C), int64) -> float64 · nopython ✓"
            " · types from the call at line 39"  # the annotations' signature, and main()'s call (python-caller)
        )
        and at_walk[0].command == ""
    )
    debug = [c for c in at_walk if c.command == "numbaLens.debugJitFunction"]
    assert [(c.title, list(c.arguments or [])) for c in debug] == [
        (
            "Debug JIT function",
            [{"uri": session.uri("kernels.py"), "function": "walk", "line": 12, "mode": "mixed"}],
        ),
        (
            "Debug as Python",
            [{"uri": session.uri("kernels.py"), "function": "walk", "line": 12, "mode": "python"}],
        ),
    ]
    shown = {c.command: c.arguments for c in at_walk if c.command.startswith("numbaLens.show")}
    assert set(shown) == {
        "numbaLens.showTypes",
        "numbaLens.showNumbaIR",
        "numbaLens.showLLVM",
        "numbaLens.showAssembly",
    }
    assert all(
        list(args or []) == [{"uri": session.uri("kernels.py"), "line": 11}] for args in shown.values()
    )


async def test_code_lens_status_for_errors_object_mode_and_unknown_types(session: Session) -> None:
    await session.open("typing_errors.py")
    statuses = {
        lens.range.start.line + 1: lens.command.title
        for lens in await session.code_lenses("typing_errors.py")
        if lens.command and lens.command.command == ""
    }
    assert statuses[7].endswith("· 1 error")
    await session.open("object_mode.py")
    lenses = await session.code_lenses("object_mode.py")
    assert any(lens.command and lens.command.title.endswith("object mode") for lens in lenses)
    await session.open("ssa.py")
    lenses = await session.code_lenses("ssa.py")
    assert any(lens.command and lens.command.title == "types unknown" for lens in lenses)


async def test_code_lenses_follow_the_setting(session: Session) -> None:
    await session.open("kernels.py")
    session.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"numbaLens": {"codeLens": {"enable": False}}})
    )
    try:
        assert await session.code_lenses("kernels.py") == []
    finally:
        session.client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams(settings={"numbaLens": {"codeLens": {"enable": True}}})
        )
    assert await session.code_lenses("kernels.py")


# --- severity setting ---------------------------------------------------------------------------------
async def test_severity_setting_changes_and_drops_codes_without_reanalysis(session: Session) -> None:
    await session.open("unify_return.py")
    diagnostics = await session.open("typing_errors.py")
    uri = session.uri("typing_errors.py")
    before = session.publish_count(uri)
    session.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(
            settings={"numbaLens": {"severity": {"typing-error": "warning", "unsupported": "off"}}}
        )
    )
    try:
        republished = await session.next_publish(uri, before)
        assert {d.code for d in republished} == {"typing-error"}
        assert all(d.severity == lsp.DiagnosticSeverity.Warning for d in republished)
        assert len(republished) == len([d for d in diagnostics if d.code == "typing-error"])
    finally:
        count = session.publish_count(uri)
        session.client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams(settings={"numbaLens": {"severity": {}}})
        )
        restored = await session.next_publish(uri, count)
    assert {d.code for d in restored} == {"typing-error", "unsupported"}


# --- quick fixes --------------------------------------------------------------------------------------
async def _fix_and_recheck(session: Session, name: str, code: str, title_part: str) -> list[lsp.Diagnostic]:
    diagnostics = await session.open(name)
    diagnostic = first(diagnostics, code)
    fixes = await session.code_actions(name, diagnostic)
    chosen = [f for f in fixes if title_part in f.title]
    assert chosen, [f.title for f in fixes]
    assert chosen[0].kind == lsp.CodeActionKind.QuickFix
    fixed = session.apply(name, chosen[0])
    return await session.save(name, fixed)


async def test_quick_fix_typed_empty_list_comprehension(session: Session) -> None:
    after = await _fix_and_recheck(session, "untyped_list.py", "untyped-variable", "for x in range(0)")
    assert "values = [np.float64(x) for x in range(0)]" in session.texts[session.uri("untyped_list.py")]
    assert [d.code for d in after if d.severity == lsp.DiagnosticSeverity.Error] == []


async def test_quick_fix_typed_list_empty_list(session: Session) -> None:
    after = await _fix_and_recheck(session, "untyped_list_2.py", "untyped-variable", "empty_list")
    text = session.texts[session.uri("untyped_list_2.py")]
    assert "values = numba.typed.List.empty_list(numba.float64)" in text
    assert "\nimport numba\n" in text
    assert [d.code for d in after if d.severity == lsp.DiagnosticSeverity.Error] == []


async def test_quick_fix_uses_the_element_type_the_list_gets_elsewhere(session: Session) -> None:
    diagnostics = await session.open("untyped_known.py")
    diagnostic = first(diagnostics, "untyped-variable")
    assert isinstance(diagnostic.data, dict) and diagnostic.data["elementType"] == "int32"
    fixes = await session.code_actions("untyped_known.py", diagnostic)
    assert fixes and all("unknown" not in f.title for f in fixes), [f.title for f in fixes]
    (comprehension,) = [f for f in fixes if "for x in range(0)" in f.title]
    assert comprehension.is_preferred
    after = await session.save("untyped_known.py", session.apply("untyped_known.py", comprehension))
    assert "values = [np.int32(x) for x in range(0)]" in session.texts[session.uri("untyped_known.py")]
    assert [d.code for d in after if d.severity == lsp.DiagnosticSeverity.Error] == []


async def test_quick_fix_for_an_unknown_element_type_says_so(session: Session) -> None:
    diagnostics = await session.open("untyped_unknown.py")
    diagnostic = first(diagnostics, "untyped-variable")
    assert isinstance(diagnostic.data, dict) and diagnostic.data["elementType"] is None
    fixes = await session.code_actions("untyped_unknown.py", diagnostic)
    assert len(fixes) == 2, [f.title for f in fixes]
    for fix in fixes:
        assert "element type unknown" in fix.title and "placeholder" in fix.title and not fix.is_preferred


async def test_quick_fix_removes_nopython_false(session: Session) -> None:
    diagnostics = await session.open("legacy.py")
    for _ in range(2):
        deprecation = first(diagnostics, "deprecation")
        fixes = await session.code_actions("legacy.py", deprecation)
        assert len(fixes) == 1 and "0.59" in fixes[0].title and fixes[0].is_preferred
        diagnostics = await session.save("legacy.py", session.apply("legacy.py", fixes[0]))
    text = session.texts[session.uri("legacy.py")]
    assert "@jit\ndef legacy(" in text and "@jit(cache=False)\ndef legacy_with_options(" in text
    assert diagnostics == []


async def test_no_signature_offers_to_record_a_run(session: Session) -> None:
    diagnostics = await session.open("ssa.py")
    missing = first(diagnostics, "no-signature")
    assert _line(missing) == 18 and missing.severity == lsp.DiagnosticSeverity.Information
    idle = await session.wait_for(
        lambda: [
            s for s in session.statuses if s.get("uri") == session.uri("ssa.py") and s["state"] == "idle"
        ],
        what="idle status",
    )
    assert idle[-1]["typesUnknown"] == 1  # `untyped`; `first_of` has its caller's types
    fixes = await session.code_actions("ssa.py", missing)
    assert [f.command.command for f in fixes if f.command] == ["numbaLens.recordSignaturesInTerminal"]
    assert all(f.edit is None for f in fixes)  # nothing is written without known types


async def test_no_signature_with_unusable_recorded_signatures_offers_them(session: Session) -> None:
    diagnostics = await session.open("recorded_unusable.py")
    missing = first(diagnostics, "no-signature")
    assert isinstance(missing.data, dict)
    assert missing.data["recorded"] == ["(array(float64, 1d, C), float64)"]
    fixes = await session.code_actions("recorded_unusable.py", missing)
    titles = [f.title for f in fixes]
    assert not [f for f in fixes if f.command], titles  # something to write: no "record a run" offer
    (decorator,) = [f for f in fixes if "decorator signature" in f.title]
    after = await session.save("recorded_unusable.py", session.apply("recorded_unusable.py", decorator))
    assert '@njit("(float64[::1], float64)")' in session.texts[session.uri("recorded_unusable.py")]
    assert [d.code for d in after] == []  # typed now, and clean


async def test_recorded_types_can_be_written_into_the_source(session: Session) -> None:
    await session.open("recorded.py")
    hover = await session.hover_word("recorded.py", 5, "scaled")
    assert hover is not None and "signatures recorded from a run" in hover
    result = await session.client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(session.uri("recorded.py")),
            lsp.Range(lsp.Position(5, 4), lsp.Position(5, 4)),
            lsp.CodeActionContext(diagnostics=[]),
        )
    )
    actions = [a for a in result or [] if isinstance(a, lsp.CodeAction)]
    titles = [a.title for a in actions]
    decorator = next(a for a in actions if "decorator" in a.title)
    annotation = next(a for a in actions if "annotations" in a.title)
    assert "(float64[::1], float64)" in decorator.title, titles
    annotated = session.apply("recorded.py", annotation)
    assert 'def scaled(a: "float64[::1]", k: "float64"):' in annotated
    diagnostics = await session.save("recorded.py", annotated)
    assert diagnostics == []
    hover = await session.hover_word("recorded.py", 5, "scaled")
    assert hover is not None and "annotations" in hover and "array(float64, 1d, C)" in hover
    with_decorator = session.apply("recorded.py", decorator).replace(
        'a: "float64[::1]", k: "float64"', "a, k"
    )
    assert '@njit("(float64[::1], float64)")' in with_decorator
    assert await session.save("recorded.py", with_decorator) == []
    hover = await session.hover_word("recorded.py", 5, "scaled")
    assert hover is not None and "decorator" in hover and "array(float64, 1d, C)" in hover


# --- IR views -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "language", "needle"),
    [
        ("types", None, "float64"),
        ("numba_ir", None, "getitem"),
        ("llvm", "llvm", "define"),
        ("asm", None, ""),
    ],
)
async def test_ir_views_map_source_lines(
    session: Session, kind: str, language: str | None, needle: str
) -> None:
    await session.open("kernels.py")
    view = await session.ir_view("kernels.py", 14, kind)  # the cursor inside walk
    assert view["function"] == "walk"
    assert "float64" in view["signature"]
    if language:
        assert view["language"] == language
    assert needle in view["text"]
    assert view["lineMap"], "no source line maps into the output"
    lines = view["text"].split("\n")
    for source_line, output_lines in view["lineMap"].items():
        assert 11 <= int(source_line) <= 17  # walk's decorator to its last line
        assert all(0 <= n < len(lines) for n in output_lines)
    assert "15" in view["lineMap"] or "16" in view["lineMap"]


async def test_ir_view_errors_are_lsp_errors(session: Session) -> None:
    await session.open("kernels.py")
    with pytest.raises(JsonRpcException, match="no jitted function"):
        await session.ir_view("kernels.py", 37, "llvm")  # inside main(), not jitted
    with pytest.raises(JsonRpcException):
        await session.ir_view("kernels.py", 14, "bytecode")
    with pytest.raises(JsonRpcException, match=r"unavailable|signature"):
        await session.ir_view("kernels.py", 14, "llvm", signature=5)  # walk has one signature


# --- progress and status ------------------------------------------------------------------------------
async def test_progress_and_status_follow_each_analysis(session: Session) -> None:
    await session.open("kernels.py")
    uri = session.uri("unify_return.py")
    statuses_before = len(session.statuses)
    tokens_before = set(session.client.progress_reports)
    await session.save("unify_return.py")
    states = [s for s in session.statuses[statuses_before:] if s.get("uri") == uri]
    assert [s["state"] for s in states][:1] == ["analyzing"]
    idle = await session.wait_for(
        lambda: [
            s for s in session.statuses[statuses_before:] if s.get("uri") == uri and s["state"] == "idle"
        ],
        what="idle status",
    )
    assert idle[-1]["errors"] == 1 and idle[-1]["warnings"] == 0 and idle[-1]["typesUnknown"] == 0
    new_tokens = set(session.client.progress_reports) - tokens_before
    assert new_tokens

    def kinds() -> list[str]:
        return [type(r).__name__ for t in new_tokens for r in session.client.progress_reports[t]]

    await session.wait_for(lambda: "WorkDoneProgressEnd" in kinds(), what="progress end")
    assert kinds()[0] == "WorkDoneProgressBegin"


SCALER = """\
from numba import njit


@njit
def scale(values, factor):
    return values * factor
"""

SCALER_CALLER = """\
import numpy as np
from numba import njit

from scaler import scale


@njit
def run(a: "float64[:]"):
    return scale(a, 2.5)
"""


async def test_callers_in_another_file_type_an_open_callee(session: Session) -> None:
    (session.root / "scaler.py").write_text(SCALER)
    (session.root / "scaler_caller.py").write_text(SCALER_CALLER)
    diagnostics = await session.open("scaler.py")
    assert [d.code for d in diagnostics] == ["no-signature"]
    hover = await session.hover_word("scaler.py", 5, "scale")
    assert hover is not None and "Types unknown" in hover
    callee = session.uri("scaler.py")
    before = session.publish_count(callee)
    # Opening the caller is enough: the server re-analyses the open callee with the caller's types.
    await session.open("scaler_caller.py")
    assert await session.next_publish(callee, before) == []
    hover = await session.hover_word("scaler.py", 5, "scale")
    assert hover is not None and "(array(float64, 1d, A), float64) -> array(float64, 1d, C)" in hover
    assert "types from a caller with known types (`run` at [scaler_caller.py:9](file://" in hover
    values = await session.hover_word("scaler.py", 6, "values")
    assert values is not None and "array(float64, 1d, A)" in values
