// "Numba Lens: Show debug information": versions, the interpreter and why it was chosen, the language
// server's state, the resolved settings, and the output of `python -m pyserver doctor`.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import type { Bootstrap } from "./bootstrap";
import type { LanguageServerClient } from "./client";
import { StatusItem } from "./status";

function runDoctor(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? ((error as NodeJS.ErrnoException).code ?? "failed") : 0;
      resolve(`${stdout}${stderr ? `\n${stderr}` : ""}\n(exit status: ${code})`.trim());
    });
  });
}

export async function debugInformation(
  context: vscode.ExtensionContext,
  bootstrap: Bootstrap,
  client: LanguageServerClient,
  status: StatusItem,
): Promise<string> {
  const manifest = context.extension.packageJSON as { version: string };
  const settings = bootstrap.settings();
  const { command, args, env, choice } = await bootstrap.command(["doctor"]);
  const lines = [
    "# Numba Lens debug information",
    "",
    `- Numba Lens: ${manifest.version}`,
    `- Editor: ${vscode.env.appName} ${vscode.version} (${vscode.env.appHost}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ""})`,
    `- Workspace trusted: ${vscode.workspace.isTrusted}`,
    `- Interpreter: \`${choice.command.join(" ")}\` — ${choice.reason}`,
    `- Import strategy: ${settings.importStrategy}${settings.importStrategy === "useBundled" ? ` (\`${bootstrap.bundledLibs}\`)` : ""}`,
    `- Language server: ${client.state}; status bar: ${status.text}`,
    `- Signature recording for terminals: ${settings.recordSignatures ? "on" : "off"}`,
    "",
    "## Settings",
    "",
    "```json",
    JSON.stringify(settings, null, 2),
    "```",
    "",
  ];
  let doctor: string;
  if (vscode.workspace.isTrusted || choice.source !== "Python extension") {
    doctor = await runDoctor(command, args, env);
  } else {
    doctor = "not run: untrusted workspace";
  }
  lines.push(`## \`${[command, ...args].join(" ")}\``, "", "```text", doctor, "```", "");
  return lines.join("\n");
}
