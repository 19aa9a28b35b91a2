"""The functions of an analysis's reply, sent as what changed: after a one-function edit most functions'
results are byte for byte those the engine already holds for the file, and unpickling them again (a
few thousand small objects) is most of what the reply costs the server.

The worker pickles each function on its own and sends, for each, either the index of the identical
pickle in the reply the engine says it holds for the file (`known`, a request id), or the pickle. Equal
pickles give equal objects, so the engine's result is the one a full reply gives. A new worker, or a
reply the engine dropped, holds nothing in common: every function is sent.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence

from pyserver.analysis.model import FunctionInfo
from pyserver.caches import BoundedCache, bounded_cache

Encoded = list[int | bytes]  # per function: an index into the known reply's functions, or its pickle


class SentFunctions:
    """The worker's side: per file, the request id of the last reply and its functions' pickles."""

    def __init__(self) -> None:
        self._sent: BoundedCache[str, tuple[int, list[bytes]]] = bounded_cache("worker.sent_functions", 32)

    def encode(self, path: str, functions: Sequence[FunctionInfo], known: int, request_id: int) -> Encoded:
        pickles = [pickle.dumps(f, pickle.HIGHEST_PROTOCOL) for f in functions]
        previous = self._sent.get(path)
        index = (
            {p: i for i, p in enumerate(previous[1])} if previous is not None and previous[0] == known else {}
        )
        self._sent[path] = (request_id, pickles)
        return [index.get(p, p) for p in pickles]

    def forget(self, path: str) -> None:
        """The reply for `path` could not be sent: the engine holds what it held before, or nothing."""
        self._sent.pop(path)


class ReceivedFunctions:
    """The engine's side: per file, the request id of the last reply received and its functions."""

    def __init__(self) -> None:
        self._received: BoundedCache[str, tuple[int, list[FunctionInfo]]] = bounded_cache(
            "engine.received_functions", 64
        )

    def known(self, path: str) -> int:
        """The request id whose functions the engine holds for `path` (0: none)."""
        found = self._received.get(path)
        return found[0] if found is not None else 0

    def decode(self, path: str, encoded: Encoded, known: int, request_id: int) -> list[FunctionInfo]:
        held = self._received.get(path)
        base = held[1] if held is not None and held[0] == known else None
        if base is None and any(isinstance(item, int) for item in encoded):
            raise RuntimeError(f"the worker's reply names functions of {path} the engine does not hold")
        functions = [base[item] if isinstance(item, int) else pickle.loads(item) for item in encoded]  # type: ignore[index]
        self._received[path] = (request_id, functions)
        return functions
