"""numbaLens/compiles: recompiles explained, the view behind the "N compiles · T s" lens: each compile
of a function in a recorded run, and why it compiled again (pyserver.analysis.worker.infer.recompiles)."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.params import plain

METHOD = "numbaLens/compiles"


def compiles(snapshot: DocumentSnapshot | None, params: Any) -> dict[str, Any]:
    from pyserver.analysis.api import compiles_payload as payload

    raw = plain(params)
    uri = raw.get("uri") if isinstance(raw, dict) else None
    name = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(uri, str) or not isinstance(name, str):
        raise JsonRpcInvalidParams(f"{METHOD} needs the uri of a document and a function name")
    analysed = snapshot.analysis if snapshot is not None else None
    info = analysed.info(name) if analysed is not None else None
    return payload(name, to_fs_path(uri) or uri, list(info.compiles) if info is not None else [])
