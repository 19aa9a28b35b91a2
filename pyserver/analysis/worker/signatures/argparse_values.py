"""Values a script reads from `argparse` (`args.n` after `parser.add_argument("--n", type=int,
default=100)`), typed without running `parse_args`: `type=int` always gives an int, `type=float` a
float, when the argument is always set (positional, `required=True`, or a default of that type or a
string that `type` converts). Anything else about the parser (groups, sub-parsers, `nargs`, actions,
`set_defaults`, a parser passed on) leaves every value unknown.

AST only: nothing here runs the parser or the script.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.indexed_file import IndexedFile

_PARSER_OPTIONS_THAT_CHANGE_VALUES = {"argument_default", "parents", "fromfile_prefix_chars"}


def _single_assign(node: ast.AST) -> tuple[str, ast.expr] | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    return None


class ArgparsePlan:
    """The parser statements a slice drops and the `args.<dest>` reads it replaces by typed stand-ins."""

    def __init__(self, roots: Iterable[ast.AST], indexed: IndexedFile) -> None:
        self.indexed = indexed
        self.dropped: set[int] = set()  # ids of the parser's statements
        # the variable parse_args's namespace goes to -> why its other reads are unknown
        self.namespaces: dict[str, str] = {}
        self.read_by_dropped: set[str] = set()  # names the dropped statements read or bind
        self._replaced_reads: set[int] = set()  # the namespace's Name nodes in replaced `args.n`
        self.replacements: dict[int, tuple[str, Any, bool]] = {}
        # A `for` header's statement holds its body, whose statements are roots too: each node once.
        nodes = list({id(n): n for root in roots for n in ast.walk(root)}.values())
        self._stores: dict[str, int] = {}
        for node in nodes:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self._stores[node.id] = self._stores.get(node.id, 0) + 1
        statements = [n for n in nodes if isinstance(n, ast.stmt)]
        for statement in statements:
            found = _single_assign(statement)
            if found and self._stores.get(found[0]) == 1 and self._is_parser(found[1]):
                self._plan_parser(found[0], statement, statements, nodes)
            elif found and self._stores.get(found[0]) == 1 and (helper := self._parsing_helper(found[1])):
                self._plan_helper(found[0], statement, helper, nodes)

    def _is_parser(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Call) or any(
            k.arg in _PARSER_OPTIONS_THAT_CHANGE_VALUES for k in node.keywords
        ):
            return False
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module, name = func.value.id, func.attr
            return name == "ArgumentParser" and self._imported(module) == ("argparse", None)
        return isinstance(func, ast.Name) and self._imported(func.id) == ("argparse", "ArgumentParser")

    def _imported(self, name: str) -> tuple[str, str | None] | None:
        found = self.indexed.imports.get(name)
        if found is None or found[1] or name in self._stores:
            return None
        return found[0], found[2]

    def _parsing_helper(self, value: ast.expr) -> ast.FunctionDef | None:
        """The module function that `value` calls, when all it does is build a parser and return what
        its `parse_args` gives (`args = parse_args()`, a script's own helper of that name)."""
        if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
            return None
        name = value.func.id
        helper = self.indexed.top_level_defs.get(name)
        if (
            not isinstance(helper, ast.FunctionDef)
            or helper.decorator_list
            or name in self._stores
            or name in self.indexed.imports
            or sum(
                isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == name
                for n in self.indexed.tree.body
            )
            != 1
        ):
            return None
        return helper

    def _plan_helper(
        self, namespace: str, assigned: ast.stmt, helper: ast.FunctionDef, nodes: list[ast.AST]
    ) -> None:
        """`namespace = helper()`: the helper's body must be the parser, its options and `return
        parser.parse_args(...)`, nothing else; its options then type `namespace.<dest>`."""
        body = helper.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        made = _single_assign(body[0]) if body else None
        returned = body[-1] if body else None
        if made is None or not self._is_parser(made[1]) or not isinstance(returned, ast.Return):
            return
        parser = made[0]
        call = returned.value
        if (
            self._method_of(call, parser) != "parse_args"  # type: ignore[arg-type]
            or len(call.args) > 1  # type: ignore[union-attr]
            or call.keywords  # type: ignore[union-attr]
        ):
            return  # parse_args(argv) still converts each option by its `type`; a namespace= does not
        helper_nodes = [n for statement in body for n in ast.walk(statement)]
        if (
            sum(
                isinstance(n, ast.Name) and n.id == parser and not isinstance(n.ctx, ast.Load)
                for n in helper_nodes
            )
            != 1
        ):
            return
        dests = self._options(parser, body[1:-1], helper_nodes, len(body) - 1)
        if dests is not None:
            self._replace(namespace, dests, {id(assigned)}, [assigned], nodes)

    def _options(
        self, parser: str, adds: list[ast.stmt], nodes: list[ast.AST], reads: int
    ) -> dict[str, type | None] | None:
        """dest -> type of each `parser.add_argument(...)` in `adds` (all of them must be); None when one
        cannot be followed or the parser is read elsewhere (`reads`: the reads its own statements make)."""
        dests: dict[str, type | None] = {}
        for statement in adds:
            if not (
                isinstance(statement, ast.Expr) and self._method_of(statement.value, parser) == "add_argument"
            ):
                return None
            assert isinstance(statement.value, ast.Call)
            dest, kind = self._argument(statement.value)
            if dest is None:
                return None
            dests[dest] = None if dest in dests else kind
        parser_reads = sum(
            1 for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == parser
        )
        return dests if parser_reads == reads else None

    def _plan_parser(
        self, parser: str, made: ast.stmt, statements: list[ast.stmt], nodes: list[ast.AST]
    ) -> None:
        dests: dict[str, type | None] = {}
        dropped = {id(made)}
        namespace: tuple[str, ast.stmt] | None = None
        for statement in statements:
            if isinstance(statement, ast.Expr) and self._method_of(statement.value, parser) == "add_argument":
                assert isinstance(statement.value, ast.Call)
                dest, kind = self._argument(statement.value)
                if dest is None:
                    return
                dests[dest] = None if dest in dests else kind
                dropped.add(id(statement))
                continue
            found = _single_assign(statement)
            if found and self._method_of(found[1], parser) == "parse_args":
                if namespace is not None or self._stores.get(found[0]) != 1:
                    return
                namespace = (found[0], statement)
                dropped.add(id(statement))
        if namespace is None:
            return
        # The parser must be read by its own statements only (no groups, sub-parsers, set_defaults).
        parser_reads = sum(
            1 for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == parser
        )
        if parser_reads != len(dropped) - 1:
            return
        self._replace(namespace[0], dests, dropped, [s for s in statements if id(s) in dropped], nodes)

    def _replace(
        self,
        name: str,
        dests: dict[str, type | None],
        dropped: set[int],
        dropped_statements: list[ast.stmt],
        nodes: list[ast.AST],
    ) -> None:
        """Plan the namespace `name`: its options' reads replaced by typed stand-ins, the parser's
        statements (`dropped`) left out of the slice."""
        replacements: dict[int, tuple[str, Any, bool]] = {}
        replaced_reads: set[int] = set()
        for node in nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
                if not isinstance(node.ctx, ast.Load):
                    return  # `args.n = ...`: its value may be anything
                kind = dests.get(node.attr)
                stand_in = None if kind is None else numba_api.python_value_stand_in(kind)
                if kind is not None and stand_in is not None:
                    replacements[id(node)] = (f"__lens_argparse_{kind.__name__}__", stand_in, True)
                    replaced_reads.add(id(node.value))
        self.dropped |= dropped
        self.read_by_dropped |= {
            n.id for statement in dropped_statements for n in ast.walk(statement) if isinstance(n, ast.Name)
        }
        self.namespaces[name] = (
            f"'{name}' comes from argparse; only an option with type=int or type=float that is always set "
            "(positional, required, or with a default of that type) has a known type"
        )
        self.replacements.update(replacements)
        self._replaced_reads |= replaced_reads

    def covered(self, roots: Iterable[ast.AST]) -> set[str]:
        """The namespaces that these nodes read only through replaced options (`args.n`)."""
        read_otherwise = {
            n.id
            for root in roots
            for n in ast.walk(root)
            if isinstance(n, ast.Name) and n.id in self.namespaces and id(n) not in self._replaced_reads
        }
        return set(self.namespaces) - read_otherwise

    @staticmethod
    def _method_of(node: ast.expr, receiver: str) -> str | None:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == receiver
        ):
            return node.func.attr
        return None

    def _argument(self, call: ast.Call) -> tuple[str | None, type | None]:
        """(dest, the type of its value when it is always set, else None); dest None: an argument this
        plan cannot follow (every value of the parser stays unknown)."""
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not flags or len(flags) != len(call.args):
            return None, None
        options = {k.arg: k.value for k in call.keywords}
        if None in options:  # **kwargs
            return None, None
        dest: str | None
        if not flags[0].startswith("-"):
            dest, always_set = flags[0], True
        else:
            long = next((f for f in flags if f.startswith("--")), flags[0])
            dest, always_set = long.lstrip("-").replace("-", "_"), False
        if "dest" in options:
            value = options["dest"]
            dest = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
        action = options.get("action")
        if "nargs" in options or (
            action is not None and not (isinstance(action, ast.Constant) and action.value == "store")
        ):
            return dest, None
        kind_node = options.get("type")
        kind = (
            {"int": int, "float": float}.get(kind_node.id)
            if isinstance(kind_node, ast.Name)
            and kind_node.id not in self._stores
            and kind_node.id not in self.indexed.imports
            and kind_node.id not in self.indexed.top_level_defs
            else None
        )
        if kind is None:
            return dest, None
        required = options.get("required")
        if isinstance(required, ast.Constant) and required.value is True:
            always_set = True
        default = options.get("default")
        if isinstance(default, ast.UnaryOp) and isinstance(default.op, ast.USub):
            default = default.operand  # the sign keeps the type
        if isinstance(default, ast.Constant):
            if isinstance(default.value, str) or type(default.value) is kind:
                always_set = True
        return dest, kind if always_set else None
