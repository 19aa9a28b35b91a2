"""The analysis results, as plain data: what the CLI prints and the language server reads.

Everything here is JSON-serialisable through `to_json()`; the shape of `FileResult.to_json()` is the
`check --format json` contract, so fields may be added but never renamed.
Lines and characters are 0-based, as in LSP; `line` fields on functions and variables are 1-based
source lines (as Numba reports them) and say so in their names.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "information", "hint"]
Mode = Literal["nopython", "object", "unknown"]
TypeSource = Literal[
    "decorator", "annotation", "recorded", "kernel", "cache", "caller", "python-caller", "object-mode"
]

# Stable diagnostic codes (contract).
CODES = (
    "typing-error",
    "unify-return",
    "untyped-variable",
    "unsupported",
    "object-mode",
    "loop-lifted",
    "performance",
    "deprecation",
    "no-signature",
    "analysis-failed",
)


_LITERAL = re.compile(r"^Literal\[\w+\]\((?P<value>.*)\)$")


@dataclass
class Position:
    line: int
    character: int


@dataclass
class Range:
    start: Position
    end: Position

    @staticmethod
    def of(line: int, start_char: int, end_line: int, end_char: int) -> Range:
        return Range(Position(line, start_char), Position(end_line, end_char))


@dataclass
class RelatedInformation:
    path: str
    range: Range
    message: str


@dataclass
class Diagnostic:
    path: str
    range: Range
    severity: Severity
    code: str
    message: str
    function: str | None = None
    signature: str | None = None
    relatedInformation: list[RelatedInformation] = field(default_factory=list)
    source: str = "numba"
    # Extensions beyond the contract: the unshortened Numba text, LSP tags, a docs link and
    # machine-readable data for quick fixes:
    # - untyped-variable: {"variable": "values", "elementType": "float64" | None}: the element type the
    #   list's other uses (or a jitted callee it is passed to) give it in Numba's partial typemaps;
    #   None when nothing tells (never a guess).
    # - no-signature: {"function", "params", "recorded": ["(array(float64, 1d, C), int64)", ...]}:
    #   signatures the signatures file holds for the function but cannot use (exact types that do not
    #   decode here, or that `record` could not store). A usable recorded signature is a source of
    #   types, so a function that has one never gets no-signature.
    # - deprecation of nopython=False: {"kind": "nopython-false"}.
    fullMessage: str | None = None
    tags: list[Literal["unnecessary", "deprecated"]] = field(default_factory=list)
    codeDescription: str | None = None
    data: dict[str, Any] | None = None


@dataclass
class VariableType:
    """One IR variable of one signature: `x`, or an SSA version of it such as `x.1`."""

    name: str  # the source name, e.g. "x"
    ssa_name: str  # the IR name, e.g. "x.1"
    type: str  # Numba's str() of the type, e.g. "array(float64, 1d, C)"
    line: int  # 1-based source line where this version is defined (args: the def line)
    is_arg: bool = False
    literal: str | None = None  # "int64 (literal 1)" style text when the type is a Literal
    # 1-based lines where this version is read (from the Numba IR: the statements that use it). A use
    # of `x` on line N reads the version whose used_lines hold N; at a join (loop header, after a
    # branch) that is a phi version, whose type is Numba's merge of the versions flowing in.
    used_lines: list[int] = field(default_factory=list)

    def shown(self) -> str:
        """What the hover shows: `int64 (literal 1)` for a literal, the plain type otherwise."""
        if not self.literal:
            return self.type
        match = _LITERAL.match(self.literal)
        if match is None:
            return self.literal if self.type in self.literal else f"{self.type} ({self.literal})"
        return f"{self.type} (literal {match.group('value')})"

    phi: bool = False  # defined by a phi (a join of other versions), not by an assignment in the source


@dataclass
class CallType:
    """One typed call or operator of one signature: `add` (int64, float64) -> float64 on line 12."""

    line: int  # 1-based source line
    name: str  # "add", "len", "empty_like", "walk", "getitem", ...
    signature: str  # Numba's text, e.g. "(int64, float64) -> float64"


@dataclass
class CallerSite:
    """A call of a checked jitted function that passes a signature's argument types (source "caller")."""

    path: str  # the caller's file: this file, or another workspace module that imports the callee
    function: str  # the caller's qualified name
    line: int  # 1-based line of the call


@dataclass
class ParallelLoop:
    """A loop (or array expression, or NumPy call) of a parallel=True function, as the parfor pass left it."""

    line: int  # 1-based source line
    parallel: bool  # a parallel region (parfor) starts here
    what: str  # "prange loop", "array expression ((a mul 2.0) add 1.0)", "np.sum", "range loop"
    fused: list[str] = field(default_factory=list)  # "line 7: array expression (sqrt(c))", fused into it
    notes: list[str] = field(default_factory=list)  # why it runs serially; nested loops; fusion failures


@dataclass
class SignatureResult:
    args: list[str]  # Numba type strings, one per parameter
    source: TypeSource
    return_type: str | None = None
    mode: Mode = "unknown"
    ok: bool = False  # type inference succeeded without an error
    error_count: int = 0
    variables: list[VariableType] = field(default_factory=list)
    lifted_loops: list[int] = field(default_factory=list)  # 1-based first lines of lifted loops
    inference_ms: float | None = None
    compile_ms: float | None = None  # only when a real compile ran (object mode, IR views)
    # exact encoding of the argument types (JSON text, pyserver.record.types_codec): what Numba's
    # dispatcher compiles for this signature; None when they do not encode exactly
    exact: str | None = None
    call_types: list[CallType] = field(default_factory=list)
    callers: list[CallerSite] = field(default_factory=list)  # for source "caller": the calls passing them
    # parallel=True only: each loop or array expression and what Numba's parfor pass made of it
    parallel_loops: list[ParallelLoop] = field(default_factory=list)
    # mode "unknown": why these argument types give no types (not an error of the code)
    unknown_reason: str | None = None
    # Source "recorded" from a twin dispatcher (a parallel=True one and a serial one over the same Python
    # function): {"parallel": bool}, the options of the dispatcher whose compile gave these types.
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "(" + ", ".join(self.args) + ")" + (f" -> {self.return_type}" if self.return_type else "")


@dataclass
class FunctionInfo:
    path: str
    name: str  # qualified name inside the module, e.g. "walk" or "Point.norm"
    line: int  # 1-based line of the `def`
    end_line: int = 0
    decorator_line: int = 0  # 1-based line of the jit decorator
    kind: str = "njit"  # njit | jit | vectorize | guvectorize | cfunc | jitclass-method | ...
    options: dict[str, Any] = field(default_factory=dict)  # parallel, forceobj, nogil, fastmath, ...
    params: list[str] = field(default_factory=list)
    signatures: list[SignatureResult] = field(default_factory=list)
    # From recorded runs: each compile in the order it happened, its time, why it recompiled and
    # whether Numba's cache holds it (pyserver.analysis.worker.infer.recompiles.CompileRecord)
    compiles: list[Any] = field(default_factory=list)


@dataclass
class SkippedStatement:
    """A top-level statement the analysis did not run (definitions-only loading, pyserver.analysis.worker.load.toplevel_slice)."""

    line: int  # 1-based first line
    end_line: int  # 1-based last line
    reason: str  # why it was not needed, in words for the user: "a call that defines nothing ..."


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    functions: list[FunctionInfo] = field(default_factory=list)
    elapsed_ms: float = 0.0
    inferred: list[str] = field(default_factory=list)  # functions (re-)inferred in this run
    reused: list[str] = field(default_factory=list)  # functions answered from the cache
    skipped_statements: list[int] = field(default_factory=list)  # 1-based lines not executed
    # "ok" | "failed" (load, crash, time-out, memory) | "cancelled" | "untrusted" | "partial" (the module
    # hung or crashed at import; its definitions alone were loaded and checked: see skipped_statements)
    status: str = "ok"
    # Other files, analysed earlier by the same worker, whose jitted functions this file's callers now
    # pass argument types their last analysis did not have (or no longer pass): analyse them again to
    # show those types (`check` does; a server may for open documents).
    callers_changed: list[str] = field(default_factory=list)
    # How the module was loaded: "definitions" (only what defining its jitted functions needs ran; the
    # rest is in `skipped`) or "full" (its whole top level ran); "" when it was not loaded at all.
    loading: str = ""
    skipped: list[SkippedStatement] = field(default_factory=list)
    # Time the load spent importing modules from outside the workspace (not counted against the time-out).
    third_party_import_ms: float = 0.0
    third_party_import_cpu_ms: float = 0.0  # its CPU time

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity == "error" for d in diagnostics)


@dataclass
class IRView:
    """One compiled function shown as types, Numba IR, LLVM IR or assembly (engine.ir_view)."""

    text: str
    language: str  # a VS Code language id: "python", "llvm", "asm", "plaintext"
    line_map: dict[int, list[int]]  # 1-based source line -> 0-based output lines
    function: str
    signature: str
