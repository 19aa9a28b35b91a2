"""Compare what `check --format json --variables` says with what Numba compiled (truth.py's dump).

A function counts as *typed* when `check` shows variable types for one of the argument types Numba
compiled it for (the same `args` strings). A *wrong type* is a variable (IR name) or a return type we
show for such a signature that differs from Numba's typemap; "unknown" is never wrong. A *false
error* is an error diagnostic in a file that imports (a package module) or runs (a script) fine in
plain Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = {"unknown", "undefined", "pyobject"}


@dataclass
class Figures:
    compiled: int = 0  # functions Numba compiled at least once
    found: int = 0  # of those, listed by check
    typed_first: int = 0  # typed at first sight (no recording)
    typed_after: int = 0  # typed with the recorded signatures
    false_errors: int = 0
    wrong_types: int = 0
    hover_equal: int = 0  # variables whose shown type equals Numba's (both runs, matched signatures)
    check_s: float = 0.0  # wall time of the check command, after record (start-up included)
    check_first_s: float = 0.0
    analysis_s: float = 0.0  # of which: the warm worker analysing the files (its "timing")
    # the worker's CPU time over those analyses, less its imports of modules from outside the source
    # (scipy, scikit-learn: what the program pays at its start too, and Numba's side does not time)
    analysis_cpu_s: float = 0.0
    import_cpu_s: float = 0.0  # those imports' CPU time
    numba_compile_s: float = 0.0  # Numba compiling what the workload compiled (the truth run)
    numba_same_s: float = 0.0  # Numba compiling what check typed (a fresh process, no cache)
    numba_same_cpu_s: float = 0.0
    # of which Numba's front end, the passes up to its type inference, which the analysis runs too
    numba_front_end_cpu_s: float = 0.0
    check_signatures: int = 0  # signatures check typed (after record)
    numba_signatures: int = 0  # signatures Numba compiled in the numba_same run (callees' included)
    same_compiled: int = 0  # of check_signatures, those the numba_same run compiled itself
    same_failed_cpu_s: float = 0.0  # its compiles that failed: left out of numba_same_cpu_s
    # of check_signatures, those it could not: "path:line qualname (args): why"
    same_not_compiled: list[str] = field(default_factory=list)
    peak_mb: float = 0.0
    differences: list[str] = field(default_factory=list)

    @property
    def has_reference(self) -> bool:
        """Did Numba's side compile most of the signatures check typed (at least half), so that the two
        times measure the same work? (Closures whose argument types hold other closures' dispatchers have
        no exact encoding: Numba's side cannot compile them, PyMPDATA's nearly all.)"""
        return self.numba_same_cpu_s > 0 and 2 * self.same_compiled >= self.check_signatures

    def add(self, other: Figures) -> None:
        for name in (
            "compiled",
            "found",
            "typed_first",
            "typed_after",
            "false_errors",
            "wrong_types",
            "hover_equal",
            "check_signatures",
            "numba_signatures",
            "same_compiled",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.check_s += other.check_s
        self.check_first_s += other.check_first_s
        self.numba_compile_s += other.numba_compile_s
        for name in (
            "analysis_s",
            "analysis_cpu_s",
            "import_cpu_s",
            "numba_same_s",
            "numba_same_cpu_s",
            "numba_front_end_cpu_s",
            "same_failed_cpu_s",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.peak_mb = max(self.peak_mb, other.peak_mb)
        self.differences.extend(other.differences)
        self.same_not_compiled.extend(other.same_not_compiled)


_CLASS_ID = re.compile(r"#[0-9a-f]{6,}")  # instance.jitclass.Bag#7f3a1d3f4490<...>: the class's id()
# a jitted function's type, `dispatcher(name)` in check's output: the name can be `<lambda>` or dotted
_DISPATCHER_TYPE = re.compile(r"type\((?:CPU|CUDA)?Dispatcher\(<function ([\w.<>]+) at 0x[0-9a-fA-F]+>\)\)")


# a function's address in a type (`Function(<function sort at 0x7f...>)`): another in each process
_FUNCTION_ADDRESS = re.compile(r"(<function [\w.<>]+) at 0x[0-9a-fA-F]+>")


def normalised(text: str) -> str:
    """A type's text without what differs from one process to the next (object addresses)."""
    text = _DISPATCHER_TYPE.sub(r"dispatcher(\1)", _CLASS_ID.sub("", text))
    return _FUNCTION_ADDRESS.sub(r"\1>", text)


def _args(signature: dict[str, Any]) -> list[str]:
    return [normalised(a) for a in signature["args"]]


def _functions_by_key(check: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(path, qualified name) -> the function; two `def`s of one name (in two branches of a factory) are
    listed apart by check and merged here, as Numba's dump keys them by name too."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for function in check.get("functions", []):
        key = (function["path"], function["name"])
        # which `def` each signature is of, to pair it with the compile of that `def` (_typed_signatures)
        signatures = [{**s, "def_line": function["line"]} for s in function["signatures"]]
        function = {**function, "signatures": signatures}
        if key in found:
            found[key] = {**found[key], "signatures": found[key]["signatures"] + function["signatures"]}
        else:
            found[key] = function
    return found


def _short(signature: dict[str, Any]) -> str:
    return "(" + ", ".join(signature["args"]) + ")"


def _typed_signatures(
    function: dict[str, Any] | None, truth_function: dict[str, Any]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(ours, Numba's) pairs for the argument types Numba compiled, where we show variable types."""
    if function is None:
        return []
    pairs = []
    for truth_signature in truth_function["signatures"]:
        same = [
            s
            for s in function.get("signatures", [])
            if _args(s) == _args(truth_signature) and _shows_types(s, truth_signature)
        ]
        # Of twin dispatchers' signatures, the one recorded from the same dispatcher (`options`) first; of
        # two `def`s of one name, the one at Numba's line (its first decorator's: ours is the `def`'s).
        same.sort(
            key=lambda s: (
                s.get("options", {}).get("parallel") != truth_signature.get("parallel"),
                _lines_apart(s.get("def_line"), truth_function["line"]),
            )
        )
        if same:
            pairs.append((same[0], truth_signature))
    return pairs


def _lines_apart(def_line: int | None, numba_line: int) -> int:
    """How far our `def` line is below Numba's first line of the function (decorators come first)."""
    if def_line is None or def_line < numba_line:
        return 1_000_000
    return def_line - numba_line


def _shows_types(ours: dict[str, Any], truth_signature: dict[str, Any]) -> bool:
    """Do we show the signature's types: its variables, or, for a function that has none of its own (no
    parameter, no named local: only Numba's `$` temporaries), its return type?"""
    if ours.get("variables"):
        return True
    has_own = any(not name.startswith("$") for name in truth_signature.get("typemap", {}))
    return ours.get("variables") == [] and bool(ours.get("return_type")) and not has_own


# A variable of an inlined function (`inline="always"`, inline_closurecall) is renamed `<callee>_v<N>_<name>`
# with N from a counter of the whole process: the same copy of `_join_row`'s `start` is `_join_row_v196_start`
# in one process and `_join_row_v198_start` in another that inlined something else first, and with two calls
# inlined, one process's v196 is the other's second copy. Inlining runs in the same order in both compiles of
# the same function, so a copy is named by the rank of its N among that function's copies of that callee.
_INLINED = re.compile(r"^(?P<callee>.+?)_v(?P<counter>\d+)_(?P<rest>.*)$")


def _inlined_names(names: list[str]) -> tuple[dict[str, str], dict[str, int]]:
    """name -> its name with the counter replaced by the copy's rank, and callee -> number of copies."""
    counters: dict[str, set[int]] = {}
    for name in names:
        match = _INLINED.match(name)
        if match:
            counters.setdefault(match["callee"], set()).add(int(match["counter"]))
    ranks = {callee: {n: rank for rank, n in enumerate(sorted(found))} for callee, found in counters.items()}
    renamed = {}
    for name in names:
        match = _INLINED.match(name)
        if match:
            rank = ranks[match["callee"]][int(match["counter"])]
            renamed[name] = f"{match['callee']}_v#{rank}_{match['rest']}"
    return renamed, {callee: len(found) for callee, found in counters.items()}


def _numba_types_by_our_names(ours: dict[str, Any], typemap: dict[str, str]) -> dict[str, list[str]]:
    """Our variable's IR name -> the types Numba's typemap has for it: one, or for a copy of an inlined
    function whose copies we do not all show (ranks would not line up), those of every copy of that name."""
    our_names = [v["ssa_name"] for v in ours.get("variables", [])]
    our_ranked, our_copies = _inlined_names(our_names)
    numba_ranked, numba_copies = _inlined_names(list(typemap))
    by_rank = {ranked: typemap[name] for name, ranked in numba_ranked.items()}
    by_any_copy: dict[str, list[str]] = {}
    for name, ranked in numba_ranked.items():
        callee, _, rest = ranked.partition("_v#")
        by_any_copy.setdefault(f"{callee}_{rest.partition('_')[2]}", []).append(typemap[name])
    found: dict[str, list[str]] = {}
    for name in our_names:
        ranked = our_ranked.get(name)
        if ranked is None:
            if name in typemap:
                found[name] = [typemap[name]]
            continue
        callee = _INLINED.match(name)["callee"]  # type: ignore[index]
        if our_copies[callee] == numba_copies.get(callee):
            if ranked in by_rank:
                found[name] = [by_rank[ranked]]
        else:
            rest = ranked.partition("_v#")[2].partition("_")[2]
            if f"{callee}_{rest}" in by_any_copy:
                found[name] = by_any_copy[f"{callee}_{rest}"]
    return found


def _compare_types(
    where: str, ours: dict[str, Any], truth: dict[str, Any], run: str, figures: Figures, seen: set[str]
) -> None:
    numba_types = _numba_types_by_our_names(ours, truth["typemap"])
    for variable in ours.get("variables", []):
        candidates = numba_types.get(variable["ssa_name"])
        numba_type = None if not candidates else candidates[0]
        shown = normalised(variable.get("numba_type", variable["type"]))
        if numba_type is None or shown in UNKNOWN:
            continue
        numba_type = normalised(numba_type)
        if shown == numba_type or shown in {normalised(t) for t in candidates or ()}:
            figures.hover_equal += 1
            continue
        line = (
            f"{where}:{variable['line']}: wrong type ({run}) {_short(truth)}: "
            f"we said {variable['name']} ({variable['ssa_name']}) is {shown}; Numba typed it {numba_type}"
        )
        if line not in seen:
            seen.add(line)
            figures.wrong_types += 1
            figures.differences.append(line)
    returned = ours.get("return_type")
    if (
        returned
        and returned not in UNKNOWN
        and not truth.get("objectmode")
        and normalised(returned) != normalised(truth["return_type"])
    ):
        line = (
            f"{where}: wrong return type ({run}) {_short(truth)}: we said {returned}; "
            f"Numba compiled {truth['return_type']}"
        )
        if line not in seen:
            seen.add(line)
            figures.wrong_types += 1
            figures.differences.append(line)


def compare(
    truth_functions: list[dict[str, Any]],
    first: dict[str, Any],
    after: dict[str, Any],
) -> Figures:
    """Figures and readable differences for the functions Numba compiled (paths relative to one root)."""
    figures = Figures()
    first_by_key = _functions_by_key(first)
    after_by_key = _functions_by_key(after)
    seen: set[str] = set()
    for truth_function in truth_functions:
        if not truth_function["signatures"]:
            continue
        figures.compiled += 1
        key = (truth_function["path"], truth_function["qualname"])
        where = f"{truth_function['path']}:{truth_function['line']}: {truth_function['qualname']}"
        numba_said = ", ".join(_short(s) for s in truth_function["signatures"][:3])
        ours_first = first_by_key.get(key)
        ours_after = after_by_key.get(key)
        if ours_first is None and ours_after is None:
            figures.differences.append(f"{where}: not found by check; Numba compiled {numba_said}")
            continue
        figures.found += 1
        first_pairs = _typed_signatures(ours_first, truth_function)
        after_pairs = _typed_signatures(ours_after, truth_function)
        figures.typed_first += bool(first_pairs)
        figures.typed_after += bool(after_pairs)
        for run, function, pairs in (
            ("first sight", ours_first, first_pairs),
            ("after record", ours_after, after_pairs),
        ):
            if not pairs:
                said = (
                    ", ".join(
                        f"{_short(s)} [{s['source']}{'' if s.get('variables') else ', no variables'}]"
                        for s in (function or {}).get("signatures", [])[:3]
                    )
                    or "no signature"
                )
                figures.differences.append(
                    f"{where}: untyped ({run}): we said {said}; Numba compiled {numba_said}"
                )
            for ours, truth in pairs:
                _compare_types(where, ours, truth, run, figures, seen)
    return figures


def error_files(check: dict[str, Any]) -> dict[str, list[str]]:
    """path -> the error diagnostics' readable lines."""
    found: dict[str, list[str]] = {}
    for diagnostic in check.get("diagnostics", []):
        if diagnostic.get("severity") != "error":
            continue
        line = diagnostic["range"]["start"]["line"] + 1
        message = diagnostic["message"].splitlines()[0][:200]
        found.setdefault(diagnostic["path"], []).append(
            f"{diagnostic['path']}:{line}: [{diagnostic['code']}] {message}"
        )
    return found
