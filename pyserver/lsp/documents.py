"""A document as one request sees it: an immutable snapshot of its text and of what the server knew
about it when the request arrived, so a handler running on a worker thread reads one consistent state
and never the session's live dictionaries."""

from __future__ import annotations

from dataclasses import dataclass, field

from lsprotocol import types as lsp

from pyserver.lsp.notebooks import CellWindow
from pyserver.lsp.settings import Settings
from pyserver.lsp.source_edits import Edit
from pyserver.lsp.text import client_to_index, index_to_client, line_at
from pyserver.lsp.views import AnalysedDocument, cached_lines


@dataclass(frozen=True)
class DocumentSnapshot:
    uri: str
    version: int | None
    text: str
    # The latest analysis whose module loaded: the types hover, hints and lenses show. It may be of an
    # earlier version of the text; pyserver.lsp.views maps it onto this one.
    analysis: AnalysedDocument | None = None
    # The latest analysis of any outcome: what is published (its module may have failed to load).
    latest: AnalysedDocument | None = None
    settings: Settings = field(default_factory=Settings)
    encoding: str = "utf-16"  # the negotiated position encoding
    trusted: bool = True
    busy: bool = False  # an analysis of this document is pending or running
    numba_unavailable: str | None = None  # why no analysis can run (Numba missing, ...)
    # A notebook cell: `text` and the analyses are its notebook's module; requests about the cell are
    # answered through pyserver.lsp.notebooks.in_cell.
    cell: CellWindow | None = None

    @property
    def load_failed(self) -> str:
        """Why the latest analysis failed, "" when it did not: the types shown are then older."""
        if self.latest is None or self.latest.result.status != "failed":
            return ""
        if any(d.code == "analysis-time-out" for d in self.latest.result.diagnostics):
            return "timed out typing its functions"
        return "could not load the module"

    # --- positions: the client's encoding <-> code points ------------------------------------------
    def to_index(self, position: lsp.Position) -> int:
        line = line_at(cached_lines(self.text), position.line)
        return client_to_index(line, position.character, self.encoding)

    def to_client(self, line: int, index: int) -> lsp.Position:
        return lsp.Position(
            line, index_to_client(line_at(cached_lines(self.text), line), index, self.encoding)
        )

    def text_edits(self, edits: list[Edit]) -> list[lsp.TextEdit]:
        return [
            lsp.TextEdit(
                range=lsp.Range(
                    self.to_client(edit.line, edit.col), self.to_client(edit.end_line, edit.end_col)
                ),
                new_text=edit.new_text,
            )
            for edit in edits
        ]
