// The flame graph: speedscope (from the npm registry, its release files shipped in dist/speedscope)
// in a web view, opening the speedscope-format file of the last run through its #profileURL= hash.
// The file travels inside the page and speedscope fetches it from a blob: URL: a fetch of the file
// as a web view resource could hang in code-server (about one run in four, speedscope's toolbar up,
// no profile).
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as vscode from "vscode";

export class ProfileFlame implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private file: vscode.Uri | undefined;

  constructor(private readonly extensionUri: vscode.Uri) {}

  private get speedscopeRoot(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, "dist", "speedscope");
  }

  /** Remembers the last run's file and refreshes an open flame graph. */
  update(file: vscode.Uri): void {
    this.file = file;
    if (this.panel) this.panel.webview.html = this.html(this.panel.webview);
  }

  show(): void {
    if (!this.file) {
      void vscode.window.showInformationMessage("Numba Lens: no profile yet. Run “Numba Lens: Profile this file” first.");
      return;
    }
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside);
      return;
    }
    this.panel = vscode.window.createWebviewPanel("numbaLens.flameGraph", "Profile: flame graph", vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [this.speedscopeRoot], // the profile itself travels inside the page
    });
    this.panel.onDidDispose(() => (this.panel = undefined));
    this.panel.webview.html = this.html(this.panel.webview);
  }

  private html(webview: vscode.Webview): string {
    const index = vscode.Uri.joinPath(this.speedscopeRoot, "index.html").fsPath;
    if (!fs.existsSync(index) || !this.file) {
      return `<!DOCTYPE html><html><body><p>The flame graph is unavailable: speedscope's files are missing from this build of the extension (${index}).</p></body></html>`;
    }
    const source = fs.readFileSync(index, "utf8");
    const css = source.match(/href="(speedscope-[^"]+\.css)"/)?.[1];
    const script = source.match(/src="(speedscope-[^"]+\.js)"/)?.[1];
    if (!css || !script) return `<!DOCTYPE html><html><body><p>The flame graph is unavailable: speedscope's index.html has changed shape.</p></body></html>`;
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.speedscopeRoot, name)).toString();
    // JSON inside a script element: only "<" could end it early, and JSON may escape it.
    const profileJson = fs.readFileSync(this.file.fsPath, "utf8").replaceAll("<", "\\u003c");
    const nonce = crypto.randomBytes(16).toString("base64");
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data: blob:`,
      `style-src ${webview.cspSource} 'unsafe-inline'`,
      `font-src ${webview.cspSource} data:`,
      `script-src ${webview.cspSource} 'nonce-${nonce}'`,
      `connect-src ${webview.cspSource} blob:`,
    ].join("; ");
    return `<!DOCTYPE html>
<html>
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="${asset(css)}">
<script type="application/json" id="numba-lens-profile">${profileJson}</script>
<script nonce="${nonce}">
const profileText = document.getElementById("numba-lens-profile").textContent;
const profileUrl = URL.createObjectURL(new Blob([profileText], { type: "application/json" }));
history.replaceState(null, "", "#profileURL=" + encodeURIComponent(profileUrl) + "&title=Numba%20Lens%20profile");
</script>
</head>
<body>
<script nonce="${nonce}" src="${asset(script)}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
