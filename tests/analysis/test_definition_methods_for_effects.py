"""A module function's or class's method called at the top level for its effects (`Cls.override_doc(DOC)`,
`Records.register(...)`) is never run, and the definition keeps the value its `def` or `class` gave it:
a module that imports the class loads, and the jitted functions that need it are typed. A method of data
the module assigned (`SPEC.append(...)`) still changes that data: a name whose value only such a call
made has none."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from analysis_helpers import check_json, shown_args, write_package

from pyserver.analysis.worker.load.toplevel_slice import slice_module

RECORDS = textwrap.dedent(
    """\
    from typing import TypeVar

    import numpy as np

    __pdoc__ = {}
    record_dt = np.dtype([("id", np.int64), ("value", np.float64)])


    def mark(name):
        open(name + ".ran", "a").write("ran")


    def attach_combine(combine):
        def wrapper(cls):
            cls.__add__ = combine
            return cls

        return wrapper


    RecordsT = TypeVar("RecordsT", bound="Records")


    def combine(self: RecordsT, other: "Records") -> RecordsT:
        return self


    @attach_combine(combine)
    class Records:
        dtype = record_dt

        @classmethod
        def override_doc(cls, doc):
            mark("override_doc")
            doc[cls.__name__] = "records"


    Records.override_doc(__pdoc__)
    SPEC = []
    SPEC.append(mark("spec"))
    """
)

KERNELS = textwrap.dedent(
    """\
    import numpy as np
    from numba import njit

    from pkg.records import SPEC, Records


    @njit
    def total(values):
        out = np.zeros(1, dtype=np.float64)
        for v in values:
            out[0] += v
        return out[0]


    def total_of(records: Records):
        return total(np.ones(3))


    @njit
    def spec_size(x):
        return len(SPEC) + x
    """
)


def test_a_definitions_method_called_for_its_effects_leaves_it_its_value() -> None:
    sliced = slice_module(ast.parse(RECORDS), keep_assignments=True, source=RECORDS)
    kept = ast.unparse(sliced.tree)
    assert "class Records" in kept and "override_doc(__pdoc__)" not in kept
    assert not {"Records", "RecordsT", "combine"} & set(sliced.unavailable)
    assert "SPEC" in sliced.unavailable  # data changed by a call made for its effects: no value
    (call,) = [s for s in sliced.skipped if s.line == 38]
    assert call.reason == (
        "it makes a call of `Records.override_doc` for its effects: the analysis never runs that"
    )


def test_a_module_importing_the_class_loads_and_is_typed(tmp_path: Path) -> None:
    write_package(tmp_path, "pkg", {"records.py": RECORDS, "kernels.py": KERNELS})
    report = check_json(tmp_path, "pkg/kernels.py")
    assert sorted(p.name for p in tmp_path.rglob("*.ran")) == []
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == [], errors
    (file_report,) = report["files"]
    assert file_report["status"] == "ok", file_report
    assert shown_args(report)["total"] == [["array(float64, 1d, C)"]]


# The class is changed by an assignment that runs for its effects: it has no value, and neither have the
# names that read it, through a string (`bound="Table"`) and a definition's annotations and decorator: none
# of those statements runs (each would fail), and the module still loads for the modules importing it.
TABLE = textwrap.dedent(
    """\
    from typing import TypeVar


    def attach_combine(combine):
        def wrapper(cls):
            return cls

        return wrapper


    TableT = TypeVar("TableT", bound="Table")


    def combine(self: TableT) -> TableT:
        return self


    @attach_combine(combine)
    class Table:
        pass


    Table.note = print("table")
    SCALE = 2.0
    """
)

USES_TABLE = textwrap.dedent(
    """\
    from numba import njit

    from pkg.table import SCALE, Table


    @njit
    def scaled(x):
        return x * SCALE


    scaled(1.0)
    """
)


def test_definitions_reading_a_name_without_value_do_not_run(tmp_path: Path) -> None:
    sliced = slice_module(ast.parse(TABLE), keep_assignments=True, source=TABLE)
    assert {"Table", "TableT", "combine"} <= set(sliced.unavailable)
    kept = ast.unparse(sliced.tree)
    assert "def combine" not in kept and "class Table" not in kept and "SCALE = 2.0" in kept
    write_package(tmp_path, "pkg", {"table.py": TABLE, "uses_table.py": USES_TABLE})
    report = check_json(tmp_path, "pkg/uses_table.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    assert [f["status"] for f in report["files"]] == ["ok"]
    assert shown_args(report) == {"scaled": [["float64"]]}
