"""Which top-level statements would act on the world if they ran: the analysis never runs those.

Definitions-only loading runs a statement only to define names. A statement is run for its effects,
and so never run by the analysis, when (statically, from the AST alone):
- it calls something that acts outside the process or waits: `print`, `input`, writes (`.write`,
  `open(..., "w")`, `np.save`, `.to_csv`, `savefig`), file-system and process calls (`os.remove`,
  `subprocess.*`, `shutil.*`), `time.sleep`, `sys.exit`, `parser.parse_args()`, plots (`plt.show`);
- it calls a jitted function of the module (that runs the program and compiles), or a function of the
  module whose body does one of the above, transitively;
- it is a bare call (`main()`, `run(3)`), unless it changes module data (`SPEC.append(x)`) or calls a
  module function that only sets module globals (`init()` with `global TABLE`);
- it is a top-level `while` loop (its end cannot be seen), or a `for` loop whose body does any of this;
- it is a plain `def` or `class` (slice_units) whose definition does any of this: a decorator's
  argument, a default, a base, a class body statement.
Reading files is allowed: `with open(path) as f: TABLE = json.load(f)` defines TABLE.
"""

from __future__ import annotations

import ast

from pyserver.analysis.worker.discover.discovery import ImportNames
from pyserver.pysource import statements_in

# Qualified names (through the module's imports) of calls that act on the world or wait.
_EFFECT_FUNCTIONS = frozenset(
    {
        "print",
        "input",
        "breakpoint",
        "exit",
        "quit",
        "sys.exit",
        "os._exit",
        "os.system",
        "os.remove",
        "os.unlink",
        "os.rmdir",
        "os.removedirs",
        "os.mkdir",
        "os.makedirs",
        "os.rename",
        "os.renames",
        "os.replace",
        "os.kill",
        "os.fork",
        "os.chdir",
        "os.truncate",
        "time.sleep",
        "pickle.dump",
        "json.dump",
        "numpy.save",
        "numpy.savez",
        "numpy.savez_compressed",
        "numpy.savetxt",
    }
)
# Modules every call of which acts on the world.
_EFFECT_MODULES = ("subprocess.", "shutil.", "webbrowser.", "socket.", "urllib.request.", "requests.")
# Method names that write, delete, show, wait or start something, whatever object they are called on.
_EFFECT_METHODS = frozenset(
    {
        "write",
        "writelines",
        "write_text",
        "write_bytes",
        "touch",
        "unlink",
        "rmdir",
        "mkdir",
        "savefig",
        "show",
        "pause",
        "to_csv",
        "to_parquet",
        "to_pickle",
        "to_hdf",
        "to_excel",
        "to_feather",
        "tofile",
        "savetxt",
        "savez",
        "parse_args",
        "parse_known_args",
        "sleep",
        "system",
        "Popen",
        "check_call",
        "check_output",
        "start",
        "kill",
        "terminate",
        "sendall",
        "urlopen",
    }
)
_WRITE_MODE_LETTERS = frozenset("wax+")


def _opens_for_writing(call: ast.Call, qualified: str | None, last: str) -> bool:
    """`open(p, "w")`, `io.open(p, mode="a")`, `path.open("w")`; a mode that is not a literal counts."""
    if qualified not in ("open", "io.open", "codecs.open") and last != "open":
        return False
    positional = 0 if qualified is None and isinstance(call.func, ast.Attribute) else 1  # path.open(mode)
    mode: ast.expr | None = call.args[positional] if len(call.args) > positional else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return bool(_WRITE_MODE_LETTERS & set(mode.value))
    return True


_JIT_BUILDERS = frozenset({"jit", "njit", "vectorize", "guvectorize", "cfunc", "stencil", "generated_jit"})


class EffectScanner:
    """Says why a statement, a call or a module function would act on the world (None: it would not)."""

    def __init__(self, tree: ast.Module, aliases: ImportNames, jitted: set[str], assigned: set[str]) -> None:
        self.aliases = aliases
        self.jitted = jitted  # names of the module's jitted functions
        self.assigned = assigned  # module names bound by assignments (data the module owns)
        self.functions: dict[str, list[ast.stmt]] = {}  # module function or class -> what calling it runs
        self.sets_globals: set[str] = set()  # module functions that assign module globals
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name] = list(node.body)
                # `global` is a statement: the statements are enough (not every expression node)
                if any(isinstance(inner, ast.Global) for inner, _ in statements_in([node])):
                    self.sets_globals.add(node.name)
            elif isinstance(node, ast.ClassDef):
                self.functions[node.name] = [
                    statement
                    for item in node.body
                    if isinstance(item, ast.FunctionDef) and item.name in ("__init__", "__post_init__")
                    for statement in item.body
                ]
        self._function_effects: dict[str, str | None] = {}

    # ---- calls and expressions --------------------------------------------------------------------
    def call_effect(self, call: ast.Call) -> str | None:
        func = call.func
        qualified = (
            self.aliases.resolve(func, keep_unknown=True)
            if isinstance(func, ast.Name | ast.Attribute)
            else None
        )
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Name) and func.id in self.jitted:
            return f"calls the jitted function `{func.id}`"
        if isinstance(func, ast.Name) and func.id in self.functions:
            inner = self.function_effect(func.id)
            return f"calls `{func.id}`, which {inner}" if inner else None
        if _opens_for_writing(call, qualified, last):
            return "opens a file for writing"
        if qualified in _EFFECT_FUNCTIONS or (qualified or "").startswith(_EFFECT_MODULES):
            return f"calls `{qualified}`"
        if qualified is not None and qualified.startswith("matplotlib.pyplot."):
            return f"calls `{qualified}`"
        if isinstance(func, ast.Attribute) and last in _EFFECT_METHODS:
            return f"calls `.{last}()`"
        return None

    def expression_effect(self, nodes: list[ast.AST]) -> str | None:
        """The first effect of a call in these nodes (lambda bodies are not run where they are made)."""
        pending: list[ast.AST] = list(nodes)
        while pending:
            node = pending.pop(0)
            if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(node, ast.Call):
                effect = self.call_effect(node)
                if effect:
                    return effect
            pending.extend(ast.iter_child_nodes(node))
        return None

    def function_effect(self, name: str) -> str | None:
        """What calling a module function (or making an instance of a module class) would do."""
        if name in self._function_effects:
            return self._function_effects[name]
        self._function_effects[name] = None  # a recursive call adds nothing
        effect = self.expression_effect(list(self.functions.get(name, [])))
        self._function_effects[name] = effect
        return effect

    # ---- statements -------------------------------------------------------------------------------
    def is_mutation(self, call: ast.Call) -> bool:
        """`SPEC.append(x)`, `TABLE.fill(0)`: a method of data the module assigned, changing it."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr in _EFFECT_METHODS:
            return False
        root: ast.expr = func.value
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.assigned

    def bare_call_effect(self, call: ast.Call) -> str | None:
        """A call made as a statement: run only to change module data or set module globals."""
        if self.is_mutation(call):
            return self.expression_effect([*call.args, *call.keywords])
        func = call.func
        if isinstance(func, ast.Name) and func.id in self.sets_globals:
            return self.expression_effect([call])
        effect = self.call_effect(call)
        if effect:
            return effect
        if self.defines_for_numba(call):
            return self.expression_effect([*call.args, *call.keywords])
        name = ast.unparse(func) if isinstance(func, ast.Name | ast.Attribute) else "a function"
        return f"makes a call of `{name}` for its effects"

    def defines_for_numba(self, call: ast.Call) -> bool:
        """`structref.define_proxy(...)`, `register_model(...)(...)`, `make_attribute_wrapper(...)`: a call
        into Numba's own API made as a statement defines types or typing for Numba, which the module's
        jitted functions need; it acts on nothing outside the process."""
        func = call.func
        while isinstance(func, ast.Call):  # register_model(T)(Model)
            func = func.func
        if not isinstance(func, ast.Name | ast.Attribute):
            return False
        qualified = self.aliases.resolve(func, keep_unknown=True)
        if qualified is None or not qualified.startswith("numba."):
            return False
        # `njit(f)(x)` compiles and runs f: a call of the program, not a definition.
        return qualified.rsplit(".", 1)[-1] not in _JIT_BUILDERS

    def header_effect(self, node: ast.stmt) -> str | None:
        """What an `if` test or a `with` statement's context managers would do (not their blocks)."""
        if isinstance(node, ast.If):
            return self.expression_effect([node.test])
        if isinstance(node, ast.With | ast.AsyncWith):
            return self.expression_effect([item.context_expr for item in node.items])
        return None

    def statement_effect(self, node: ast.stmt) -> str | None:
        """Why this top-level statement (or one nested in it) must not run; None when it may."""
        if isinstance(node, ast.While):
            return "is a `while` loop"
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self.bare_call_effect(node.value)
        if isinstance(node, ast.For | ast.AsyncFor):
            effect = self.expression_effect([node.iter])
            for inner in [*node.body, *node.orelse]:
                effect = effect or self.statement_effect(inner)
            if effect and not effect.startswith("is a"):
                return f"is a loop that {effect}"
            return effect
        if isinstance(node, ast.If | ast.With | ast.AsyncWith | ast.Try):
            effect = self.header_effect(node)
            if effect:
                return effect
            inner_statements = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            for handler in getattr(node, "handlers", []):
                inner_statements.extend(handler.body)
            for inner in inner_statements:
                effect = self.statement_effect(inner)
                if effect:
                    return effect
            return None
        if isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom
        ):
            return None
        return self.expression_effect([node])
