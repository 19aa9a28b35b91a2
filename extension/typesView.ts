// "Show type stability": colours each line of the file's jitted functions by its types, like Numba's
// `--annotate-html`, inside the editor: green where every value has one native type, yellow where a
// type-instability hint or a surprise applies (Optional, reflected list, 'A' layout in a loop, an int
// promoted to float, ...), red at errors and Python objects. Hovering a line lists its variables'
// types and the reasons. A toggle per file; the colours follow each new analysis.
import * as vscode from "vscode";
import { recordEvent } from "./events";
import type { ServerRequests } from "./client";

type Level = "stable" | "unstable" | "problem";
interface LineTypes {
  line: number;
  level: Level;
  types: string[];
  reasons: string[];
}
interface TypeStability {
  functions: { name: string; current: boolean; lines: LineTypes[] }[];
}

const COLOURS: Record<Level, { background: string; ruler: string }> = {
  stable: { background: "rgba(46, 160, 67, 0.08)", ruler: "rgba(46, 160, 67, 0.6)" },
  unstable: { background: "rgba(210, 153, 34, 0.18)", ruler: "rgba(210, 153, 34, 0.9)" },
  problem: { background: "rgba(218, 54, 51, 0.18)", ruler: "rgba(218, 54, 51, 0.9)" },
};

export class TypeStabilityView implements vscode.Disposable {
  private readonly shown = new Set<string>();
  private readonly styles: Record<Level, vscode.TextEditorDecorationType>;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly server: ServerRequests,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const style = (level: Level) =>
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: COLOURS[level].background,
        overviewRulerColor: COLOURS[level].ruler,
        overviewRulerLane: vscode.OverviewRulerLane.Left,
      });
    this.styles = { stable: style("stable"), unstable: style("unstable"), problem: style("problem") };
    this.disposables.push(
      ...Object.values(this.styles),
      // A new analysis publishes diagnostics: recolour from its types.
      vscode.languages.onDidChangeDiagnostics((event) => {
        for (const uri of event.uris) if (this.shown.has(uri.toString())) void this.refresh(uri);
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of editors) if (this.shown.has(editor.document.uri.toString())) void this.refresh(editor.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((document) => this.shown.delete(document.uri.toString())),
    );
  }

  /** The command: colours on for the active file, or off when they are on. */
  async toggle(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "python") {
      void vscode.window.showInformationMessage("Open a Python file with jitted functions to colour its lines by type stability.");
      return;
    }
    const key = editor.document.uri.toString();
    if (this.shown.delete(key)) {
      for (const level of Object.keys(this.styles) as Level[]) editor.setDecorations(this.styles[level], []);
      recordEvent("typeStability", { uri: key, shown: false });
      return;
    }
    this.shown.add(key);
    await this.refresh(editor.document.uri);
  }

  private async refresh(uri: vscode.Uri): Promise<void> {
    let result: TypeStability;
    try {
      result = await this.server.request<TypeStability>("numbaLens/typeStability", { uri: uri.toString() });
    } catch (error) {
      this.log.warn(`type stability of ${uri.fsPath}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const ranges: Record<Level, vscode.DecorationOptions[]> = { stable: [], unstable: [], problem: [] };
    for (const fn of result.functions) {
      for (const entry of fn.lines) {
        const hover = new vscode.MarkdownString();
        hover.appendMarkdown(`**${fn.name}** · line types (${entry.level})${fn.current ? "" : " · from the last analysis"}\n\n`);
        if (entry.types.length > 0) hover.appendCodeblock(entry.types.join("\n"), "python");
        for (const reason of entry.reasons) hover.appendMarkdown(`- ${reason}\n`);
        ranges[entry.level].push({ range: new vscode.Range(entry.line, 0, entry.line, 0), hoverMessage: hover });
      }
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== uri.toString()) continue;
      for (const level of Object.keys(this.styles) as Level[]) editor.setDecorations(this.styles[level], ranges[level]);
    }
    recordEvent("typeStability", {
      uri: uri.toString(),
      shown: true,
      lines: Object.fromEntries((Object.keys(ranges) as Level[]).map((level) => [level, ranges[level].map((r) => r.range.start.line)])),
    });
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
