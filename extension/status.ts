// The status bar item: analysing, errors in the active file, types unknown, untrusted, failed.
// A click opens the server log.
import * as vscode from "vscode";
import { recordEvent } from "./events";

/** The server's numbaLens/status notification (the contract's shape). */
export interface ServerStatus {
  state: "analyzing" | "idle" | "untrusted" | "failed";
  uri?: string;
  errors: number;
  warnings: number;
  typesUnknown: number;
  message?: string;
}

type ClientState =
  | { kind: "starting" }
  | { kind: "running" }
  | { kind: "stopped" }
  | { kind: "untrusted"; message?: string }
  | { kind: "failed"; message: string };

export class StatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private client: ClientState = { kind: "starting" };
  private analyzing = false;
  private serverFailure: string | undefined;
  private readonly perFile = new Map<string, ServerStatus>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.item = vscode.window.createStatusBarItem("numbaLens.status", vscode.StatusBarAlignment.Left, 10);
    this.item.name = "Numba Lens";
    this.item.command = "numbaLens.showLog";
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
    );
    this.render();
  }

  setClientState(state: ClientState): void {
    this.client = state;
    if (state.kind !== "running") this.analyzing = false;
    if (state.kind === "starting") this.serverFailure = undefined;
    this.render();
  }

  /** A numbaLens/status notification from the server. */
  update(status: ServerStatus): void {
    recordEvent("status", { ...status });
    // "failed" is server-wide (e.g. Numba missing): per-file statuses that follow do not clear it;
    // a restart or a server-wide (uri-less) idle status does.
    if (status.state === "failed") this.serverFailure = status.message ?? "the server reported a failure";
    else if (status.state === "idle" && !status.uri) this.serverFailure = undefined;
    this.analyzing = status.state === "analyzing";
    if (status.uri && status.state !== "analyzing") this.perFile.set(status.uri, status);
    if (status.state === "untrusted") this.client = { kind: "untrusted", message: status.message };
    this.render();
  }

  forget(uri: string): void {
    this.perFile.delete(uri);
    this.render();
  }

  private render(): void {
    const item = this.item;
    item.backgroundColor = undefined;
    const activeUri = vscode.window.activeTextEditor?.document.uri.toString();
    const file = activeUri ? this.perFile.get(activeUri) : undefined;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.isTrusted = { enabledCommands: ["numbaLens.showLog", "numbaLens.restart", "numbaLens.showDebugInfo"] };

    if (this.client.kind === "untrusted") {
      item.text = "$(shield) Numba: untrusted";
      tooltip.appendMarkdown(
        "**Numba Lens is off in this untrusted workspace.**\n\nIt analyses code by importing it, and debugging runs " +
          "it, so nothing runs until you trust the workspace. " +
          (this.client.message ? `\n\n${this.client.message}` : ""),
      );
    } else if (this.client.kind === "failed" || this.serverFailure) {
      const message = this.client.kind === "failed" ? this.client.message : (this.serverFailure ?? "");
      item.text = "$(error) Numba: failed";
      item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
      tooltip.appendMarkdown(`**Numba Lens cannot analyse.**\n\n`);
      tooltip.appendText(message);
    } else if (this.client.kind === "starting") {
      item.text = "$(loading~spin) Numba: starting";
      tooltip.appendMarkdown("Starting the Numba Lens language server…");
    } else if (this.client.kind === "stopped") {
      item.text = "$(circle-slash) Numba: stopped";
      tooltip.appendMarkdown("The language server is stopped. [Restart](command:numbaLens.restart)");
    } else if (this.analyzing) {
      item.text = "$(sync~spin) Numba: analysing";
      tooltip.appendMarkdown("Numba is inferring types for the jitted functions of this file.");
    } else if (file && file.errors > 0) {
      item.text = `$(error) Numba: ${file.errors} error${file.errors === 1 ? "" : "s"}`;
      tooltip.appendMarkdown(`${file.errors} Numba error(s), ${file.warnings} warning(s) in this file.`);
    } else if (file && file.typesUnknown > 0) {
      item.text = `$(question) Numba: types unknown (${file.typesUnknown})`;
      tooltip.appendMarkdown(
        `${file.typesUnknown} jitted function(s) have no known argument types. Add annotations or a signature, ` +
          "or record signatures (**Numba Lens: Record signatures in a new terminal**).",
      );
    } else if (file) {
      item.text = file.warnings > 0 ? `$(warning) Numba: ${file.warnings} warning${file.warnings === 1 ? "" : "s"}` : "$(check) Numba";
      tooltip.appendMarkdown(file.warnings > 0 ? `${file.warnings} Numba warning(s) in this file.` : "No Numba problems in this file.");
    } else {
      item.text = "$(check) Numba";
      tooltip.appendMarkdown("Numba Lens is running.");
    }
    tooltip.appendMarkdown(
      "\n\n[Show log](command:numbaLens.showLog) · [Restart server](command:numbaLens.restart) · " +
        "[Debug information](command:numbaLens.showDebugInfo)",
    );
    item.tooltip = tooltip;
    item.show();
  }

  /** The text shown, for the debug-information report and tests. */
  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
