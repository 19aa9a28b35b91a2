// Types / Numba IR / LLVM IR / assembly of the function at the cursor, as read-only virtual documents
// beside the source. The output lines of the cursor's source line are highlighted and follow the cursor.
import * as path from "node:path";
import * as vscode from "vscode";
import { recordEvent } from "./events";
import type { ServerRequests } from "./client";

export const IR_SCHEME = "numba-lens-ir";

/** The server's numbaLens/irView request and answer (the contract's shapes). */
export interface IrViewParams {
  uri: string;
  line: number;
  kind: "types" | "numba_ir" | "llvm" | "asm";
  signature?: number;
}
export interface IrViewResult {
  text: string;
  language: string;
  function: string;
  signature: string;
  lineMap: Record<string, number[]>;
}
export type IrKind = IrViewParams["kind"];

const TITLES: Record<IrKind, string> = { types: "types", numba_ir: "Numba IR", llvm: "LLVM IR", asm: "assembly" };
const EXTENSIONS: Record<IrKind, string> = { types: "py", numba_ir: "nir", llvm: "ll", asm: "s" };

interface View {
  source: vscode.Uri;
  kind: IrKind;
  /** The 0-based line the view was asked for; refreshed views ask again for it. */
  line: number;
  signature?: number;
  result: IrViewResult;
}

export class IrViews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly views = new Map<string, View>();
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
    borderColor: new vscode.ThemeColor("editor.rangeHighlightBorder"),
    borderStyle: "solid",
    borderWidth: "0 0 0 2px",
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.rangeHighlightForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly server: ServerRequests,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      this.changed,
      this.highlight,
      vscode.workspace.registerTextDocumentContentProvider(IR_SCHEME, this),
      vscode.window.onDidChangeTextEditorSelection((event) => this.follow(event.textEditor)),
      vscode.window.onDidChangeVisibleTextEditors(() => {
        const source = vscode.window.activeTextEditor;
        if (source) this.follow(source);
      }),
      vscode.workspace.onDidSaveTextDocument((document) => void this.refresh(document.uri)),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document.uri.scheme === IR_SCHEME) this.views.delete(document.uri.toString());
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const view = this.views.get(uri.toString());
    if (!view) return "This view is closed: open it again from the source file (Numba Lens: Show …).";
    return view.result.text;
  }

  private uriFor(source: vscode.Uri, kind: IrKind, result: IrViewResult, signature: number | undefined): vscode.Uri {
    const name = `${path.basename(source.fsPath)} · ${result.function} · ${TITLES[kind]}.${EXTENSIONS[kind]}`;
    const query = new URLSearchParams({ source: source.toString(), function: result.function, kind, signature: String(signature ?? 0) });
    return vscode.Uri.from({ scheme: IR_SCHEME, path: `/${name}`, query: query.toString() });
  }

  /** The command: ask the server, open (or update) the view beside the source, highlight the cursor's line. */
  async show(kind: IrKind, args?: { uri: string; line: number; signature?: number }): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const source = args ? vscode.Uri.parse(args.uri) : editor?.document.uri;
    const line = args ? args.line : editor?.selection.active.line;
    if (!source || line === undefined || source.scheme !== "file") {
      void vscode.window.showInformationMessage(`Put the cursor in a jitted function to see its ${TITLES[kind]}.`);
      return;
    }
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(`Showing the ${TITLES[kind]} compiles the function: trust this workspace first.`);
      return;
    }
    const params: IrViewParams = { uri: source.toString(), line, kind, ...(args?.signature !== undefined ? { signature: args.signature } : {}) };
    let result: IrViewResult;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Numba: compiling for the ${TITLES[kind]}…` },
        () => this.server.request<IrViewResult>("numbaLens/irView", params),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn(`${TITLES[kind]} of line ${line + 1}: ${message}`);
      recordEvent("irViewError", { kind, message });
      void vscode.window.showWarningMessage(`Numba Lens: no ${TITLES[kind]} here: ${message}`);
      return;
    }
    const uri = this.uriFor(source, kind, result, args?.signature);
    this.views.set(uri.toString(), { source, kind, line, signature: args?.signature, result });
    this.changed.fire(uri);
    recordEvent("irView", { kind, function: result.function, signature: result.signature, lines: result.text.split("\n").length });
    let document = await vscode.workspace.openTextDocument(uri);
    const languages = await vscode.languages.getLanguages();
    const language = languages.includes(result.language) ? result.language : kind === "types" ? "python" : "plaintext";
    if (document.languageId !== language) document = await vscode.languages.setTextDocumentLanguage(document, language);
    const sourceColumn = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === source.toString())?.viewColumn;
    await vscode.window.showTextDocument(document, {
      viewColumn: sourceColumn ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
      preserveFocus: true,
      preview: false,
    });
    const sourceEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === source.toString());
    if (sourceEditor) this.follow(sourceEditor, line);
  }

  /** Highlights, in every open view of this source, the output lines of the cursor's line. */
  private follow(editor: vscode.TextEditor, lineOverride?: number): void {
    if (editor.document.uri.scheme === IR_SCHEME) return;
    const source = editor.document.uri.toString();
    const line = lineOverride ?? editor.selection.active.line;
    for (const viewEditor of vscode.window.visibleTextEditors) {
      const view = this.views.get(viewEditor.document.uri.toString());
      if (!view || view.source.toString() !== source) continue;
      const outputLines = view.result.lineMap[String(line + 1)] ?? [];
      const ranges = outputLines
        .filter((l) => l >= 0 && l < viewEditor.document.lineCount)
        .map((l) => viewEditor.document.lineAt(l).range);
      viewEditor.setDecorations(this.highlight, ranges);
      recordEvent("irFollow", { kind: view.kind, line, outputLines: ranges.map((r) => r.start.line) });
      if (ranges.length > 0) viewEditor.revealRange(ranges[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }

  /** After a save, every view of that source is recompiled from the saved text. */
  private async refresh(source: vscode.Uri): Promise<void> {
    for (const [key, view] of this.views) {
      if (view.source.toString() !== source.toString()) continue;
      try {
        view.result = await this.server.request<IrViewResult>("numbaLens/irView", {
          uri: source.toString(),
          line: view.line,
          kind: view.kind,
          ...(view.signature !== undefined ? { signature: view.signature } : {}),
        });
      } catch (error) {
        view.result = { ...view.result, text: `Unavailable after the last save: ${error instanceof Error ? error.message : String(error)}`, lineMap: {} };
      }
      this.changed.fire(vscode.Uri.parse(key));
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
