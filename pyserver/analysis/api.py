"""The analysis as the shells (lsp/, debug/, the check command) use it in their own process.

The analysis itself runs in the worker process, reached only through `pyserver.analysis.engine`
(AnalysisEngine: requests and results over pipes; results are `pyserver.analysis.model`). What the
parent side also needs of the worker's stages is re-exported here: the parts that read source text and
results only (no Numba, no user code), so that nothing outside the worker names `analysis.worker.*`.
"""

from pyserver.analysis.worker.discover.created import with_analysed
from pyserver.analysis.worker.discover.discovery import (
    OVERLOAD_KINDS,
    TYPED_FROM_JITTED_CALLS,
    JitFunction,
    find_jitted_functions,
    find_jitted_functions_in_tree,
    jitted_function_at,
)
from pyserver.analysis.worker.discover.makes_jitted import may_make_jitted
from pyserver.analysis.worker.infer import kernels
from pyserver.analysis.worker.infer.kernels import how_to_get_types, loop_signature
from pyserver.analysis.worker.infer.recompiles import hover_markdown as compiles_hover_markdown
from pyserver.analysis.worker.infer.recompiles import payload as compiles_payload
from pyserver.analysis.worker.infer.recompiles import summary as compiles_summary
from pyserver.analysis.worker.load.toplevel_slice import MAIN_BLOCK_REASON
from pyserver.analysis.worker.report.explain import explain_diagnostic
from pyserver.analysis.worker.report.insight import type_hints

__all__ = [
    "MAIN_BLOCK_REASON",
    "OVERLOAD_KINDS",
    "TYPED_FROM_JITTED_CALLS",
    "JitFunction",
    "compiles_hover_markdown",
    "compiles_payload",
    "compiles_summary",
    "explain_diagnostic",
    "find_jitted_functions",
    "find_jitted_functions_in_tree",
    "how_to_get_types",
    "jitted_function_at",
    "kernels",
    "loop_signature",
    "may_make_jitted",
    "type_hints",
    "with_analysed",
]
