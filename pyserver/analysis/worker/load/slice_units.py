"""The statements of the top-level slice (toplevel_slice) as units, which `def`s and `class`es run whatever
is needed, and the needed names that statements run only for their effects leave without a value.

A `def` or `class` that is no root of the slice (no decorator but plain ones: `@lru_cache`,
`@pytest.fixture`, pytest's marks, `@property`) runs with the definitions only when running
it costs nothing: what it evaluates then (decorators, defaults, annotations; a class's bases, keywords,
body statements and its methods' decorators and defaults) calls nothing but its decorators' own calls
(`@lru_cache(maxsize=None)`, `@pytest.mark.parametrize("n", [1, 2])`), and reads only names that
cost nothing either: imports, what runs anyway, and such definitions and call-free assignments
(`N = 10`), transitively. Any other one (`@pytest.mark.parametrize("a", [expensive(x)])`,
`def f(x=setup())`, `class T: data = load()`, a decorator reading `CASES = [make(1)]`) runs only when
it is needed, as an assignment does: its name is read by a kept statement or by the body of a jitted,
decorated or needed function. A call there may compile a package's jitted functions for real, or act
on the world; nothing needed asks for it.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass, field

from pyserver.analysis.worker.load.names import DYNAMIC_NAMES, calls


@dataclass
class Unit:
    """One statement of the slice: a leaf statement, or an `if`/`try` holding units."""

    node: ast.stmt
    reads: set[str]  # names read when it runs
    binds: set[str]
    later_reads: set[str] = field(default_factory=set)  # names a def's (or class's methods') bodies read
    always: bool = False  # runs whatever is needed (imports, definitions, environment, jit builders)
    is_root: bool = False  # its later reads are needed (a jitted or decorated function, a jit builder)
    children: list[Unit | None] = field(default_factory=list)  # None: a statement that never runs
    parent: Unit | None = None
    kept: bool = False
    blocked: str | None = None  # what running it would do (effects.py): it never runs
    reason: str | None = None  # why it did not run, when it defines something needed
    # A `def` or `class` no root of the slice: it runs always only when running it costs nothing
    # (settle_definitions, which sets `always`).
    plain_definition: bool = False
    calls: bool = False  # what it evaluates when it runs calls something (definitions: but decorators)
    idle_reason: str | None = None  # why it did not run when nothing needed it (a plain definition)

    def inside(self, around: Unit) -> bool:
        """Whether it is a statement of `around` (its body, handlers, branches), at any depth."""
        parent = self.parent
        while parent is not None:
            if parent is around:
                return True
            parent = parent.parent
        return False


_TRIES = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)  # except* from Python 3.11
# statement -> whether running it calls anything (incremental parsing keeps unchanged statements' nodes)
_CALLS: weakref.WeakKeyDictionary[ast.stmt, bool] = weakref.WeakKeyDictionary()


def _statement_calls(node: ast.stmt) -> bool:
    found = _CALLS.get(node)
    if found is None:
        found = _CALLS[node] = calls([node])
    return found


def _runs_alone(unit: Unit) -> set[str] | None:
    """What running this unit (and the `if`/`try` statements around it) reads, when that calls nothing;
    None when it calls something, is a block of statements (a loop, a `with`) or runs for its effects."""
    node = unit.node
    if unit.blocked or isinstance(
        node, ast.If | ast.With | ast.AsyncWith | ast.For | ast.AsyncFor | ast.While
    ):
        return None
    if isinstance(node, _TRIES) or (unit.calls if unit.plain_definition else _statement_calls(node)):
        return None
    reads = set(unit.reads)
    around = unit.parent
    while around is not None:
        if isinstance(around.node, ast.If):
            header: list[ast.AST] = [around.node.test]
        elif isinstance(around.node, _TRIES):
            header = [h.type for h in around.node.handlers if h.type is not None]
        else:
            return None
        if around.blocked or calls(header):
            return None
        reads |= around.reads
        around = around.parent
    return reads


def settle_definitions(every: list[Unit], binders: dict[str, list[Unit]]) -> None:
    """Which plain definitions run whatever is needed (see the module docstring): those that cost nothing,
    as the least fixed point (names read in a cycle cost something)."""
    plain = [u for u in every if u.plain_definition]
    if not plain:
        return
    # What runs anyway costs nothing more when read.
    free: set[int] = {id(u) for u in every if u.always and not u.plain_definition}
    candidates: list[tuple[Unit, set[str]]] = []
    for unit in every:
        reads = None if id(unit) in free else _runs_alone(unit)
        if reads is not None:
            candidates.append((unit, reads))

    def costs_nothing(name: str) -> bool:
        return all(id(binder) in free for binder in binders.get(name, ()))

    changed = True
    while changed:
        changed = False
        for unit, reads in candidates:
            if id(unit) not in free and all(costs_nothing(name) for name in reads):
                free.add(id(unit))
                changed = True
    for unit in plain:
        unit.always = id(unit) in free
        if not unit.always:
            unit.idle_reason = _idle_reason(unit, binders, free)


def _idle_reason(unit: Unit, binders: dict[str, list[Unit]], free: set[int]) -> str:
    is_class = isinstance(unit.node, ast.ClassDef)
    if unit.calls:
        what = (
            "a class whose definition (bases, body, methods' decorators or defaults) calls"
            if is_class
            else "a `def` whose decorators, defaults or annotations call"
        )
        return f"{what} functions, and that no jitted function needs"
    costly = sorted(n for n in unit.reads if any(id(b) not in free for b in binders.get(n, ())))
    if not costly:  # the block around it calls, or reads what a call computes
        around = unit.parent.node.lineno if unit.parent is not None else unit.node.lineno
        kind = "class" if is_class else "`def`"
        return (
            f"a {kind} inside the block of line {around}, which calls when it runs, and that no jitted"
            " function needs"
        )
    name = costly[0]
    line = min(b.node.lineno for b in binders[name] if id(b) not in free)
    what = (
        "a class whose definition reads"
        if is_class
        else "a `def` whose decorators, defaults or annotations read"
    )
    return (
        f"{what} `{name}`, which line {line} computes only when something needs it, and that no jitted"
        " function needs"
    )


def unavailable_names(
    every: list[Unit], binders: dict[str, list[Unit]], needed: set[str], refused: list[Unit]
) -> dict[str, str]:
    """Needed names that a statement run only for effects binds or changes (whatever else binds them, their
    value is not the program's); the statements that read such a name do not run either, transitively (a
    definition whose decorators, defaults or annotations read one included: it would fail). Each refused
    statement's reason says which names it leaves without a value."""
    unavailable: dict[str, str] = {}

    def no_value(unit: Unit) -> None:
        for name in sorted(unit.binds & needed):
            if name not in unavailable:  # (another statement may bind it too: its value is still not right)
                unavailable[name] = f"line {unit.node.lineno} {unit.reason or 'did not run'}"

    for unit in refused:
        no_value(unit)
    changed = bool(unavailable)
    while changed:
        changed = False
        for unit in every:
            if unit.kept and unit.reads & unavailable.keys():
                name = sorted(unit.reads & unavailable.keys())[0]
                pending = [unit]
                while pending:
                    inner = pending.pop()
                    if inner.kept:
                        inner.kept = False
                        inner.reason = f"reads `{name}`, which has no value ({unavailable[name]})"
                        pending.extend(child for child in inner.children if child is not None)
                no_value(unit)
                changed = True
    for unit in refused:
        names = sorted(unit.binds & unavailable.keys())
        if names == [DYNAMIC_NAMES]:  # `globals().update(...)`: which names, only running it tells
            unit.reason = (
                f"it {unit.reason}: the analysis never runs that, so the names it defines have no value"
            )
        elif names:
            listed = ", ".join(f"`{name}`" for name in names)
            unit.reason = (
                f"it {unit.reason}: the analysis never runs that, so {listed} (needed by the jitted"
                f" functions) {'has' if len(names) == 1 else 'have'} no value"
            )
        else:
            unit.reason = None
    return unavailable
