"""numbaLens/irView: the Numba IR, LLVM IR or assembly of the jitted function at a line, compiled by
the engine between analyses. Errors are JSON-RPC server errors the client shows: unavailable (not
trusted, no Numba, no function there, a bad signature index) or failed (anything else)."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams, JsonRpcServerError
from pygls.uris import to_fs_path

from pyserver.lsp.engine_host import NumbaUnavailable
from pyserver.lsp.params import plain
from pyserver.lsp.session import Session
from pyserver.lsp.views import discover

logger = logging.getLogger("pyserver.lsp")

METHOD = "numbaLens/irView"
IR_KINDS = ("types", "numba_ir", "llvm", "asm")
# JSON-RPC server-error codes of the irView request.
IR_ERROR_UNAVAILABLE = -32001
IR_ERROR_FAILED = -32002


async def ir_view(session: Session, params: Any) -> dict[str, Any]:
    params = plain(params)
    if not isinstance(params, dict):
        raise JsonRpcInvalidParams(f"{METHOD} takes an object")
    uri, line, kind = params.get("uri"), params.get("line"), params.get("kind")
    signature = params.get("signature") or 0
    if not isinstance(uri, str) or not isinstance(line, int) or kind not in IR_KINDS:
        raise JsonRpcInvalidParams(
            f"{METHOD} needs uri, line (0-based) and kind in {IR_KINDS}; got {params!r}"
        )
    if not isinstance(signature, int) or signature < 0:
        raise JsonRpcInvalidParams("signature must be a non-negative index")
    if not session.trusted:
        raise JsonRpcServerError(
            "IR views compile your code, and this workspace is not trusted.", IR_ERROR_UNAVAILABLE
        )
    source = session.document_text(uri)
    path = to_fs_path(uri) or uri
    if source is None:
        try:
            source = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise JsonRpcInvalidParams(f"cannot read {path}: {exc}") from exc
    from pyserver.analysis.api import jitted_function_at

    function = jitted_function_at(list(discover(source)), line + 1)
    if function is None:
        raise JsonRpcServerError(
            f"no jitted function at line {line + 1} (or the file does not parse)", IR_ERROR_UNAVAILABLE
        )
    from pyserver.analysis.engine import AnalysisUnavailable

    text = source
    progress_key = f"ir-view-{uuid.uuid4()}"
    session.client.begin_progress(progress_key, f"compiling {function.name} ({kind.replace('_', ' ')})")
    try:
        view = await session.run_on_engine(
            lambda engine: engine.ir_view(path, text, function.name, signature, kind)
        )
    except (NumbaUnavailable, AnalysisUnavailable) as exc:
        raise JsonRpcServerError(str(exc), IR_ERROR_UNAVAILABLE) from exc
    except (ValueError, KeyError, IndexError, LookupError) as exc:
        raise JsonRpcServerError(f"{function.name}: {exc}", IR_ERROR_UNAVAILABLE) from exc
    except Exception as exc:
        logger.exception("IR view of %s failed", function.name)
        raise JsonRpcServerError(f"{function.name}: {type(exc).__name__}: {exc}", IR_ERROR_FAILED) from exc
    finally:
        session.client.end_progress(progress_key)
    return {
        "text": view.text,
        "language": view.language,
        "function": view.function,
        "signature": view.signature,
        "lineMap": {str(k): list(v) for k, v in view.line_map.items()},
    }
