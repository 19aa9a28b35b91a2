// Test mode (events.ts): what the language client received, diagnostics, lenses, inlay hints and
// hovers, appended to the event log so the end-to-end tests assert on it without reading the DOM.
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { recordEvent } from "./events";

function describe(value: vscode.Diagnostic["code"]): string | number | undefined {
  return typeof value === "object" ? value.value : value;
}

/** A notebook cell's place: the notebook's path and the cell's index among all its cells (markdown too). */
function cellOf(uri: vscode.Uri): { notebook: string; cell: number } | undefined {
  if (uri.scheme !== "vscode-notebook-cell") return undefined;
  const text = uri.toString();
  for (const notebook of vscode.workspace.notebookDocuments) {
    const cell = notebook.getCells().find((c) => c.document.uri.toString() === text);
    if (cell) return { notebook: notebook.uri.toString(), cell: cell.index };
  }
  return undefined;
}

export const recordingMiddleware: Middleware = {
  handleDiagnostics: (uri, diagnostics, next) => {
    recordEvent("diagnostics", {
      uri: uri.toString(),
      ...cellOf(uri),
      items: diagnostics.map((d) => ({
        line: d.range.start.line,
        character: d.range.start.character,
        endLine: d.range.end.line,
        severity: vscode.DiagnosticSeverity[d.severity],
        code: describe(d.code),
        message: d.message,
      })),
    });
    next(uri, diagnostics);
  },
  provideCodeLenses: async (document, token, next) => {
    const lenses = await next(document, token);
    recordEvent("codeLenses", {
      uri: document.uri.toString(),
      ...cellOf(document.uri),
      lenses: (lenses ?? []).map((l) => ({ line: l.range.start.line, title: l.command?.title, command: l.command?.command, arguments: l.command?.arguments })),
    });
    return lenses;
  },
  provideInlayHints: async (document, range, token, next) => {
    const hints = await next(document, range, token);
    recordEvent("inlayHints", {
      uri: document.uri.toString(),
      hints: (hints ?? []).map((h) => ({
        line: h.position.line,
        label: typeof h.label === "string" ? h.label : h.label.map((part) => part.value).join(""),
      })),
    });
    return hints;
  },
  provideHover: async (document, position, token, next) => {
    const hover = await next(document, position, token);
    const text = (hover?.contents ?? [])
      .map((c) => (typeof c === "string" ? c : "value" in c ? c.value : ""))
      .join("\n");
    recordEvent("hover", { uri: document.uri.toString(), ...cellOf(document.uri), line: position.line, character: position.character, text });
    return hover;
  },
};
