// The "N compiles · T s" lens's command: asks the server (numbaLens/compiles) and shows the answer as a
// read-only Markdown document beside the source (rendered by recompiles.ts).
import * as path from "node:path";
import * as vscode from "vscode";
import type { ServerRequests } from "./client";
import { recordEvent } from "./events";
import { CompilesResult, renderCompiles } from "./recompiles";

export const COMPILES_SCHEME = "numba-lens-compiles";

export class CompilesView implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly server: ServerRequests,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const provider: vscode.TextDocumentContentProvider = {
      onDidChange: this.changed.event,
      provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? "This view is closed: open it again from its lens.",
    };
    this.disposables.push(this.changed, vscode.workspace.registerTextDocumentContentProvider(COMPILES_SCHEME, provider));
  }

  /** The command: the compiles of the lens's function, beside the source. */
  async show(args?: { uri: string; function: string }): Promise<void> {
    if (!args) {
      void vscode.window.showInformationMessage("Use the “compiles” lens above a jitted function a recorded run compiled.");
      return;
    }
    let result: CompilesResult;
    try {
      result = await this.server.request<CompilesResult>("numbaLens/compiles", args);
    } catch (error) {
      this.log.warn(`numbaLens/compiles failed: ${String(error)}`);
      void vscode.window.showWarningMessage(`Numba Lens: the compiles of ${args.function} are unavailable: ${String(error)}`);
      return;
    }
    const source = vscode.Uri.parse(args.uri);
    const uri = vscode.Uri.from({
      scheme: COMPILES_SCHEME,
      path: `/${path.basename(source.fsPath)} · ${args.function} · compiles.md`,
      query: new URLSearchParams({ source: args.uri, function: args.function }).toString(),
    });
    this.texts.set(uri.toString(), renderCompiles(result));
    this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, "markdown");
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    recordEvent("compilesView", { function: args.function, compiles: result.compiles.length });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
