// The heat overlay: each profiled line gets a background by its share of the samples and its percent
// after the code. It stays until the next run and follows edits (lines below an edit move with it;
// lines inside a multi-line edit lose their figure, since the code they measured is gone).
import * as vscode from "vscode";
import { BUCKETS, bucketOf, heatForFile, LineHeat, Profile, shiftLines } from "./profileModel";

export class ProfileHeat implements vscode.Disposable {
  private readonly types: vscode.TextEditorDecorationType[] = [];
  /** fsPath -> heat of its lines (0-based), moved through every edit since the run. */
  private heat = new Map<string, LineHeat[]>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      const alpha = 0.08 + (0.42 * bucket) / (BUCKETS - 1);
      this.types.push(
        vscode.window.createTextEditorDecorationType({
          isWholeLine: true,
          backgroundColor: `rgba(255, 80, 0, ${alpha.toFixed(2)})`,
          overviewRulerColor: `rgba(255, 80, 0, ${Math.min(1, alpha * 2).toFixed(2)})`,
          overviewRulerLane: vscode.OverviewRulerLane.Right,
          after: { margin: "0 0 0 2em", color: new vscode.ThemeColor("editorCodeLens.foreground") },
        }),
      );
    }
    this.disposables.push(
      vscode.window.onDidChangeVisibleTextEditors(() => this.render()),
      vscode.workspace.onDidChangeTextDocument((event) => this.follow(event)),
    );
  }

  /** Replaces the overlay with a new run's. */
  show(profile: Profile): void {
    const paths = new Set(profile.lines.map((l) => l.path));
    this.heat = new Map([...paths].map((p) => [p, heatForFile(profile, p)]));
    this.render();
  }

  clear(): void {
    this.heat.clear();
    this.render();
  }

  private follow(event: vscode.TextDocumentChangeEvent): void {
    const lines = this.heat.get(event.document.uri.fsPath);
    if (!lines || event.contentChanges.length === 0) return;
    let moved = lines;
    // Changes are reported against the document before the event; apply the bottom-most first.
    const changes = [...event.contentChanges].sort((a, b) => b.range.start.line - a.range.start.line);
    for (const change of changes) {
      moved = shiftLines(moved, {
        startLine: change.range.start.line,
        endLine: change.range.end.line,
        newLineCount: change.text.split(/\r\n|\r|\n/).length,
      });
    }
    this.heat.set(event.document.uri.fsPath, moved);
    this.render();
  }

  private render(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const lines = this.heat.get(editor.document.uri.fsPath) ?? [];
      const hottest = Math.max(0, ...lines.map((l) => l.percent));
      const byBucket: vscode.DecorationOptions[][] = this.types.map(() => []);
      for (const heat of lines) {
        if (heat.line >= editor.document.lineCount) continue;
        const range = editor.document.lineAt(heat.line).range;
        byBucket[bucketOf(heat.percent, hottest)].push({
          range,
          hoverMessage: new vscode.MarkdownString(`**Numba Lens profile**: ${heat.label} of all samples`),
          renderOptions: { after: { contentText: heat.label } },
        });
      }
      this.types.forEach((type, bucket) => editor.setDecorations(type, byBucket[bucket]));
    }
  }

  dispose(): void {
    for (const type of this.types) type.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
