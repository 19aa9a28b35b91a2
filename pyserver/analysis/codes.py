"""The one table of diagnostic codes: a documentation link, a plain-language "why" and a "how to fix"
for each code (contract: codes are never renamed; new ones are added).

`check --format json` carries `why`/`fix` per diagnostic, SARIF carries them in each rule's `help`,
the LSP hover shows them, and docs/diagnostic-codes.md lists them. A diagnostic whose Numba message
matches a known error class gets a more specific why/fix from `pyserver.analysis.worker.report.explain`.
"""

from __future__ import annotations

from dataclasses import dataclass

NUMBA_DOCS = "https://numba.readthedocs.io/en/stable"
TROUBLESHOOT = f"{NUMBA_DOCS}/user/troubleshoot.html"


@dataclass(frozen=True)
class CodeInfo:
    title: str
    link: str
    why: str
    fix: str


CODE_TABLE: dict[str, CodeInfo] = {
    "typing-error": CodeInfo(
        "Numba cannot type this expression",
        f"{TROUBLESHOOT}#my-code-doesn-t-compile",
        "Numba compiles a function for the exact types of its values. Here it found no implementation "
        "of an operation or call for the types it inferred.",
        "Look at the types in the message (hover the variables): convert a value to a supported type, "
        "or use an operation Numba supports for these types.",
    ),
    "unify-return": CodeInfo(
        "Values of different types meet",
        f"{TROUBLESHOOT}#my-code-has-a-type-unification-problem",
        "A compiled function has one type per variable and one return type. Here two paths give the "
        "same variable (or the return value) types that no single type can hold.",
        "Make every path produce the same type: return the same kind of value everywhere (e.g. a float "
        "on both branches, or a tuple on both), or use separate variables.",
    ),
    "untyped-variable": CodeInfo(
        "Numba cannot tell a container's type",
        f"{TROUBLESHOOT}#my-code-has-an-untyped-list-problem",
        "An empty list or dict that nothing adds to in this function has no element type, and Numba "
        "needs one to compile it.",
        "Create the container with its type: `[np.float64(x) for x in range(0)]`, "
        "`numba.typed.List.empty_list(numba.float64)` or "
        "`numba.typed.Dict.empty(key_type=..., value_type=...)`.",
    ),
    "unsupported": CodeInfo(
        "Python feature not supported in compiled code",
        f"{NUMBA_DOCS}/reference/pysupported.html",
        "Compiled (nopython) code supports a subset of Python and NumPy. This construct, call or "
        "argument type is outside it.",
        "Rewrite it with supported features (see the linked list), or move this part out of the jitted "
        "function into plain Python.",
    ),
    "object-mode": CodeInfo(
        "Runs in object mode",
        f"{NUMBA_DOCS}/user/performance-tips.html#no-python-mode-vs-object-mode",
        "Object mode runs the function through the Python interpreter: usually no faster than plain Python.",
        "Where its body compiles in nopython mode, remove forceobj=True (@njit). Where it cannot (a method of "
        "a plain class, calls into libraries Numba does not know), the decorator gains nothing over plain "
        "Python: remove it, or move the numeric loops into an @njit function that it calls.",
    ),
    "loop-lifted": CodeInfo(
        "Loop compiled apart from its function",
        f"{NUMBA_DOCS}/glossary.html#term-loop-lifting",
        "In object mode Numba compiles this loop on its own (loop lifting); the rest of the function "
        "runs as Python.",
        "Move the loop into its own @njit function, or make the whole function compile in nopython mode.",
    ),
    "performance": CodeInfo(
        "parallel=True found nothing to parallelise",
        f"{NUMBA_DOCS}/user/parallel.html#diagnostics",
        "parallel=True only parallelises prange loops, array expressions and some NumPy calls; this "
        "function has none, so the option only adds compile time.",
        "Use numba.prange for independent loop iterations, or remove parallel=True.",
    ),
    "deprecation": CodeInfo(
        "Deprecated Numba usage",
        f"{NUMBA_DOCS}/reference/deprecation.html",
        "This usage works today but is deprecated and will stop working (or has no effect).",
        "Follow the replacement in the message: e.g. pass a numba.typed.List instead of a Python list, "
        "or remove nopython=False.",
    ),
    "no-signature": CodeInfo(
        "No argument types known",
        f"{NUMBA_DOCS}/user/jit.html#eager-compilation",
        "A lazy @njit function is compiled only when called, for the types it is called with. Without "
        "those types nothing can be checked.",
        "Give it a signature, annotate its parameters, call it from a checked jitted function, or record "
        "real calls with `python -m pyserver record -- python your_script.py`.",
    ),
    "analysis-failed": CodeInfo(
        "The file could not be analysed",
        TROUBLESHOOT,
        "Numba Lens had to run or parse the module to find its jitted functions, and that failed "
        "(syntax error, exception at import, time-out or a crash).",
        "Fix the error in the message, or guard slow or side-effecting top-level code with "
        "`if __name__ == '__main__':`.",
    ),
    "analysis-time-out": CodeInfo(
        "Typing took longer than the time-out",
        TROUBLESHOOT,
        "The module loaded, and typing its functions as Numba's front end does took longer than the "
        "time-out: very large functions, or many inlined ones, take Numba long to type (and longer to "
        "compile). The code is not at fault; its functions were not checked.",
        "Raise the time-out for this workspace: numbaLens.timeout, or `check --timeout S`.",
    ),
    "load-needs-effects": CodeInfo(
        "Loaded without the statements it needs",
        "https://docs.python.org/3/library/__main__.html",  # our own concept: the nearest public page
        "The analysis never runs a top-level statement for its effects (a call that registers a backend, "
        "fills a table or writes a file). Loading this module raised, reading what such a statement left "
        "undone: the related locations list them. A plain import runs them, so this is not an error in "
        "the code.",
        'Nothing to fix in the code. In a trusted workspace, numbaLens.moduleLoading "full" (or '
        "`check --loading full`) runs the whole top level as an import does.",
    ),
    "not-run": CodeInfo(
        "Not run by the analysis",
        "https://docs.python.org/3/library/__main__.html",  # our own concept: the nearest public page
        "To find the jitted functions without running the program, the analysis runs only the top-level "
        "statements their definitions need (imports, defs, the constants they read). This statement is "
        "not one of them, so it never ran: no file written, no plot, no long loop.",
        "Nothing to fix. If a jitted function needs what this statement makes, set numbaLens.moduleLoading "
        'to "full" (or `check --loading full`); `"severity": {"not-run": "off"}` hides these hints.',
    ),
    # --- surprises: code that compiles but does not do what it reads as -------------------------------
    "float-format": CodeInfo(
        "A float formatted inside compiled code",
        f"{NUMBA_DOCS}/reference/pysupported.html#str",
        'Compiled code cannot format floats: f"{x}", str(x) and format(x) of a float give the text '
        "'<object type:float64>' at run time, not the number.",
        "Return the number and format it in Python, or format an integer part yourself "
        "(e.g. str(int(x * 100))).",
    ),
    "bool-invert": CodeInfo(
        "`~` on a boolean",
        f"{NUMBA_DOCS}/reference/pysemantics.html#boolean-inversion",
        "In Python `~True` is -2 (an int, always truthy); compiled code follows NumPy and gives False. "
        "The same line gives different results with and without the JIT. Not reported where the value is a "
        "NumPy bool (an array's element, what a NumPy function returns), for which Python's `~` is a logical "
        "not too.",
        "Write `not flag` for a logical negation.",
    ),
    "frozen-global": CodeInfo(
        "A global read by compiled code changes later",
        f"{NUMBA_DOCS}/reference/pysemantics.html#global-and-closure-variables",
        "Compiled code sees a global's value at compile time, as a constant. This module assigns the "
        "global again, and the compiled function keeps the old value.",
        "Pass the value as an argument instead of reading the global.",
    ),
    # --- type-instability hints (off by default: numbaLens.typeHints) -------------------------------
    "type-object": CodeInfo(
        "A value Numba types as a Python object",
        f"{NUMBA_DOCS}/user/performance-tips.html#no-python-mode-vs-object-mode",
        "A pyobject value goes through the Python interpreter: slow, and not allowed in nopython code.",
        "Give the value a native type (a number, an array, a typed container).",
    ),
    "type-optional": CodeInfo(
        "A value that may be None",
        f"{NUMBA_DOCS}/reference/types.html#optional-types",
        "The variable is None on some path, so its type is Optional: every use checks for None at run "
        "time, and some operations do not accept it.",
        "Use a sentinel of the same type (e.g. -1 or np.nan) instead of None.",
    ),
    "type-reflected": CodeInfo(
        "A reflected (Python) list or set",
        f"{NUMBA_DOCS}/reference/deprecation.html#deprecation-of-reflection-for-list-and-set-types",
        "A Python list passed to compiled code is converted on every call and copied back afterwards "
        "(reflection): slow for large lists, and deprecated.",
        "Pass a numba.typed.List (or a NumPy array) instead.",
    ),
    "type-layout": CodeInfo(
        "An array of unknown layout used in a loop",
        f"{NUMBA_DOCS}/reference/types.html#arrays",
        "An 'A' layout array may be non-contiguous, so indexing it in a loop needs strides and usually "
        "blocks vectorisation (SIMD).",
        "Pass a contiguous array (np.ascontiguousarray) or declare the layout C (float64[::1]).",
    ),
    "type-promotion": CodeInfo(
        "An integer variable silently becomes a float",
        f"{TROUBLESHOOT}#my-code-has-a-type-unification-problem",
        "The variable starts as an integer and a float is added later: Numba types it float64 "
        "throughout, so it has one type on every path (unification).",
        "Initialise it as a float (`0.0`) if that is what you mean, or keep the integer in its own variable.",
    ),
    "type-mixed-tuple": CodeInfo(
        "Indexing a tuple of mixed types",
        f"{NUMBA_DOCS}/reference/pysupported.html#tuple",
        "A tuple whose items have different types can be indexed only with a constant; indexing it with "
        "a variable (e.g. in a loop) does not compile or needs a slow union.",
        "Use a tuple of one type, or index it with constants (t[0], t[1]).",
    ),
    # --- CUDA kernels (numba.cuda / numba-cuda) -------------------------------------------------------
    "cuda-kernel-return": CodeInfo(
        "A CUDA kernel that returns a value",
        f"{NUMBA_DOCS}/cuda/kernels.html#kernel-declaration",
        "A kernel launch has no result: many threads run the kernel at once, and Numba compiles a kernel only with a void return type.",
        "Write the result into an output array argument (out[i] = value) and return nothing. A device function (@cuda.jit(device=True)) may return a value.",
    ),
    "cuda-numpy-allocation": CodeInfo(
        "NumPy allocation inside a CUDA kernel",
        f"{NUMBA_DOCS}/cuda/memory.html#local-memory",
        "Kernels and device functions cannot allocate memory dynamically: np.empty, np.zeros, np.arange and the like have no implementation on the GPU.",
        "Allocate the array on the host (cuda.device_array) and pass it in, or use a fixed-size per-thread array (cuda.local.array(16, numba.float32)) or a per-block one (cuda.shared.array).",
    ),
    "cuda-array-shape": CodeInfo(
        "A local or shared array whose shape is not a constant",
        f"{NUMBA_DOCS}/cuda/memory.html#shared-memory-and-thread-synchronization",
        "cuda.local.array and cuda.shared.array are sized when the kernel is compiled, so their shape must be a literal or a global constant, never a variable or a parameter.",
        "Use a constant (a literal, or a module-level constant the kernel reads as a global); for a size known only at launch, use dynamic shared memory (cuda.shared.array(0, ...) and the launch's fourth configuration value).",
    ),
    "cuda-launch-arguments": CodeInfo(
        "A kernel launch with the wrong number of arguments",
        f"{NUMBA_DOCS}/cuda/kernels.html#kernel-invocation",
        "The launch passes a different number of arguments than the kernel has parameters: it fails when it runs.",
        "Pass one value per kernel parameter, in order; the launch configuration goes in the brackets (kernel[blocks, threads](...)).",
    ),
    "cuda-float64": CodeInfo(
        "float64 arithmetic on float32 values in a kernel",
        f"{NUMBA_DOCS}/cuda/fastmath.html",
        "A Python float constant is a float64, so float32 * 2.0 computes in float64: on most GPUs float64 is many times slower than float32.",
        "Write the constant as np.float32(2.0) (or numba.float32(2.0)), or divide by a float32 value, so the arithmetic stays float32.",
    ),
    "cuda-python-object": CodeInfo(
        "A Python object, string or list in a kernel",
        f"{NUMBA_DOCS}/cuda/cudapysupported.html",
        "The GPU runs compiled code only: strings, lists, dicts, sets and other Python objects cannot be created or used there.",
        "Use numbers, tuples and arrays in kernels; build strings and containers in the host code.",
    ),
    "cuda-exception": CodeInfo(
        "An exception raised in a kernel",
        f"{NUMBA_DOCS}/cuda/cudapysupported.html#exception-handling",
        "Without debug=True a kernel's raise does nothing: the thread stops quietly (or goes on) and the host never sees the error.",
        "Compile the kernel with debug=True, opt=False while debugging, or report errors through an output array (e.g. a flag the host checks).",
    ),
}

SURPRISE_CODES = ("float-format", "bool-invert", "frozen-global")
TYPE_HINT_CODES = (
    "type-object",
    "type-optional",
    "type-reflected",
    "type-layout",
    "type-promotion",
    "type-mixed-tuple",
)


def doc_link(code: str) -> str | None:
    info = CODE_TABLE.get(code)
    return info.link if info else None
