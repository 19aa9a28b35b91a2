"""numbaLens/typeStability: the "Show type stability" view, each line of the jitted functions coloured
by its types (pyserver.lsp.stability)."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pyserver.lsp import stability
from pyserver.lsp.documents import DocumentSnapshot

METHOD = "numbaLens/typeStability"


def type_stability(snapshot: DocumentSnapshot | None, params: Any) -> dict[str, Any]:
    if snapshot is None:
        raise JsonRpcInvalidParams(f"{METHOD} needs the uri of an open document")
    return {"functions": stability.type_stability(snapshot.text, snapshot.analysis)}
