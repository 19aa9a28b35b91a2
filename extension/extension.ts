// Entry point: activation wires the concerns together (placeholder until the client issue lands).
import * as vscode from "vscode";

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("Numba Lens", { log: true });
  context.subscriptions.push(output);
  output.info("Numba Lens activated");
}

export function deactivate(): void {}
