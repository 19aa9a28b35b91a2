// The "N compiles · T s" lens's command: asks the server (numbaLens/compiles) and shows the answer as a
// read-only Markdown document beside the source (rendered by recompiles.ts).
import * as path from "node:path";
import * as vscode from "vscode";
import { recordEvent } from "./events";
import { CompilesResult, renderCompiles } from "./recompiles";
import { Server } from "./server";

export const COMPILES_SCHEME = "numba-lens-compiles";

export function registerCompilesView(context: vscode.ExtensionContext, server: Server, log: vscode.LogOutputChannel): void {
  const texts = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = {
    onDidChange: changed.event,
    provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? "This view is closed: open it again from its lens.",
  };
  context.subscriptions.push(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(COMPILES_SCHEME, provider),
    vscode.commands.registerCommand("numbaLens.showCompiles", async (args?: { uri: string; function: string }) => {
      if (!args) {
        void vscode.window.showInformationMessage("Use the “compiles” lens above a jitted function a recorded run compiled.");
        return;
      }
      let result: CompilesResult;
      try {
        result = await server.request<CompilesResult>("numbaLens/compiles", args);
      } catch (error) {
        log.warn(`numbaLens/compiles failed: ${String(error)}`);
        void vscode.window.showWarningMessage(`Numba Lens: the compiles of ${args.function} are unavailable: ${String(error)}`);
        return;
      }
      const source = vscode.Uri.parse(args.uri);
      const uri = vscode.Uri.from({
        scheme: COMPILES_SCHEME,
        path: `/${path.basename(source.fsPath)} · ${args.function} · compiles.md`,
        query: new URLSearchParams({ source: args.uri, function: args.function }).toString(),
      });
      texts.set(uri.toString(), renderCompiles(result));
      changed.fire(uri);
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(document, "markdown");
      await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
      recordEvent("compilesView", { function: args.function, compiles: result.compiles.length });
    }),
  );
}
