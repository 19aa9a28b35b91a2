"""A small workload of pynndescent's public API, run by test_pynndescent.py under `pyserver record`.

Usage: python pynndescent_workload.py WORKSPACE TRUTH.json

It imports pynndescent from WORKSPACE (a copy of the installed package, so its functions count as
workspace code), calls its public distance functions (`pynndescent.distances.named_distances`, the
sparse ones in `pynndescent.sparse.sparse_named_distances`) and heap utilities with small float32 and
float64 inputs, then writes Numba's own view of every overload it compiled to TRUTH.json: for each
workspace function and signature, the type of every IR variable (the compiled overload's
`type_annotation.typemap`, what `inspect_types` prints) with the line that defines it. The test
compares that with what Numba Lens shows. Building an NNDescent index is left out on purpose: it
compiles for minutes on a 2-core machine.
"""

from __future__ import annotations

import json
import os
import sys

workspace, truth_path = os.path.realpath(sys.argv[1]), sys.argv[2]
sys.path.insert(0, workspace)

import numpy as np  # noqa: E402
import pynndescent  # noqa: E402
from numba.core import ir, types  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402
from pynndescent import distances, sparse, utils  # noqa: E402

assert os.path.realpath(pynndescent.__file__).startswith(workspace + os.sep), pynndescent.__file__

# Distances whose compile is long (network simplex, Sinkhorn) or that need extra inputs are left out.
SKIPPED = {"kantorovich", "wasserstein", "sinkhorn", "circular_kantorovich", "circular_wasserstein"}
BINARY = {
    "hamming",
    "jaccard",
    "dice",
    "matching",
    "kulsinski",
    "rogerstanimoto",
    "russellrao",
    "sokalsneath",
    "sokalmichener",
    "yule",
    "bit_hamming",
    "bit_jaccard",
}


def dense_workload() -> None:
    rng = np.random.default_rng(0)
    done = set()
    for name, function in distances.named_distances.items():
        if name in SKIPPED or function in done:
            continue
        done.add(function)
        if name in ("bit_hamming", "bit_jaccard"):
            x, y = rng.integers(0, 255, 4).astype(np.uint8), rng.integers(0, 255, 4).astype(np.uint8)
        elif name in BINARY:
            x, y = (rng.random(8) > 0.5).astype(np.float32), (rng.random(8) > 0.5).astype(np.float32)
        elif name == "haversine":
            x, y = rng.random(2).astype(np.float32), rng.random(2).astype(np.float32)
        else:
            x, y = rng.random(8).astype(np.float32) + 0.1, rng.random(8).astype(np.float32) + 0.1
        function(x, y)
    # A second signature for a few of them: float64 vectors.
    for function in (distances.euclidean, distances.manhattan, distances.cosine):
        function(rng.random(8), rng.random(8))


def sparse_workload() -> None:
    rng = np.random.default_rng(1)
    ind1, ind2 = np.array([0, 2, 5], dtype=np.int32), np.array([1, 2, 6], dtype=np.int32)
    data1, data2 = rng.random(3).astype(np.float32) + 0.1, rng.random(3).astype(np.float32) + 0.1
    done = set()
    for name, function in sparse.sparse_named_distances.items():
        if name in SKIPPED or function in done:
            continue
        done.add(function)
        if name in sparse.sparse_need_n_features:
            function(ind1, data1, ind2, data2, 8)
        else:
            function(ind1, data1, ind2, data2)


def heap_workload() -> None:
    rng_state = np.array([12345, 67890, 13579], dtype=np.int64)
    heap = utils.make_heap(4, 3)
    for row in range(4):
        for candidate in utils.rejection_sample(3, 10, rng_state):
            utils.checked_heap_push(
                heap[1][row], heap[0][row], np.float32(rng_state[0] % 97), np.int32(candidate)
            )
    utils.deheap_sort(heap[0], heap[1])


def truth() -> dict[str, dict[str, list[dict[str, object]]]]:
    """{"path::qualname": {"(args)": [{"ssa_name", "type", "line", "is_arg"}, ...]}} for every overload."""
    found: dict[str, dict[str, list[dict[str, object]]]] = {}
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None) or ""
        if not os.path.realpath(file).startswith(workspace + os.sep):
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, CPUDispatcher):
                continue
            py_file = os.path.realpath(value.py_func.__code__.co_filename)
            if py_file != os.path.realpath(file):
                continue  # imported from another module: listed there
            key = f"{os.path.relpath(py_file, workspace)}::{value.py_func.__qualname__}"
            for args, overload in value.overloads.items():
                annotation = overload.type_annotation
                if annotation is None or isinstance(annotation, str):
                    continue  # loaded from a cache: only a text annotation
                lines = {}
                for block in annotation.blocks.values():
                    for stmt in block.body:
                        if isinstance(stmt, ir.Assign):
                            lines.setdefault(
                                stmt.target.name, (stmt.loc.line, isinstance(stmt.value, ir.Arg))
                            )
                variables = [
                    {
                        "ssa_name": name,
                        "type": str(ty),
                        "plain": str(types.unliteral(ty)),
                        "line": lines.get(name, (0, False))[0],
                        "is_arg": lines.get(name, (0, False))[1],
                    }
                    for name, ty in annotation.typemap.items()
                ]
                found.setdefault(key, {})["(" + ", ".join(str(a) for a in args) + ")"] = variables
    return found


dense_workload()
sparse_workload()
heap_workload()
with open(truth_path, "w", encoding="utf-8") as handle:
    json.dump(truth(), handle, indent=1, sort_keys=True)
print(f"pynndescent workload done: {sum(len(v) for v in truth().values())} overloads")
