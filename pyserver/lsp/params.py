"""Request params as the handlers read them. pygls hands the params of custom methods
(numbaLens/...) over as namedtuples; the handlers want JSON values."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """`value` with every namedtuple turned into a dict and every tuple into a list."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def document_uri(params: Any) -> str | None:
    """The document a request is about: `textDocument.uri`, or `uri` in a custom request's params."""
    text_document = getattr(params, "text_document", None)
    if text_document is not None:
        uri = getattr(text_document, "uri", None)
        return uri if isinstance(uri, str) else None
    raw = plain(params)
    uri = raw.get("uri") if isinstance(raw, dict) else None
    return uri if isinstance(uri, str) else None
