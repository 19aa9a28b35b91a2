// The palette commands: restart, log, debug information, IR views, recording terminal.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { recordEvent } from "./events";
import { offerAfterDoctor } from "./gdbOffer";
import { IrKind, IrViews } from "./irView";
import { Recording } from "./recording";
import { Server } from "./server";
import { StatusItem } from "./status";

const IR_COMMANDS: [string, IrKind][] = [
  ["numbaLens.showTypes", "types"],
  ["numbaLens.showNumbaIR", "numba_ir"],
  ["numbaLens.showLLVM", "llvm"],
  ["numbaLens.showAssembly", "asm"],
];

function runDoctor(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 120_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? ((error as NodeJS.ErrnoException).code ?? "failed") : 0;
      resolve(`${stdout}${stderr ? `\n${stderr}` : ""}\n(exit status: ${code})`.trim());
    });
  });
}

async function debugInformation(context: vscode.ExtensionContext, server: Server, status: StatusItem): Promise<string> {
  const manifest = context.extension.packageJSON as { version: string };
  const settings = server.settings();
  const { command, args, env, choice } = await server.pyserverCommand(["doctor"]);
  const lines = [
    "# Numba Lens debug information",
    "",
    `- Numba Lens: ${manifest.version}`,
    `- Editor: ${vscode.env.appName} ${vscode.version} (${vscode.env.appHost}${vscode.env.remoteName ? `, remote ${vscode.env.remoteName}` : ""})`,
    `- Workspace trusted: ${vscode.workspace.isTrusted}`,
    `- Interpreter: \`${choice.command.join(" ")}\` — ${choice.reason}`,
    `- Import strategy: ${settings.importStrategy}${settings.importStrategy === "useBundled" ? ` (\`${server.bundledLibs}\`)` : ""}`,
    `- Language server: ${server.state}; status bar: ${status.text}`,
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

export function registerCommands(
  context: vscode.ExtensionContext,
  server: Server,
  status: StatusItem,
  irViews: IrViews,
  recording: Recording,
  log: vscode.LogOutputChannel,
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("numbaLens.restart", async () => {
      recordEvent("command", { command: "numbaLens.restart" });
      await server.restart("requested by the user");
    }),
    vscode.commands.registerCommand("numbaLens.showLog", () => log.show()),
    vscode.commands.registerCommand("numbaLens.showDebugInfo", async () => {
      const text = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Numba Lens: collecting debug information (runs the doctor)…" },
        () => debugInformation(context, server, status),
      );
      log.info(text);
      recordEvent("debugInfo", { text });
      offerAfterDoctor(server, text, log); // no gdb, or one that cannot see jitted code: offer one
      const document = await vscode.workspace.openTextDocument({ language: "markdown", content: text });
      await vscode.window.showTextDocument(document, { preview: false });
    }),
    vscode.commands.registerCommand("numbaLens.recordSignaturesInTerminal", () => recording.newTerminal()),
    ...IR_COMMANDS.map(([id, kind]) =>
      vscode.commands.registerCommand(id, (args?: { uri: string; line: number; signature?: number }) => irViews.show(kind, args)),
    ),
  );
}
