// The VS Code side of gdbInstall.ts: the offer after a launch or attach that failed for want of a
// usable gdb, after the doctor (debug information) found one, and the palette command.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { recordEvent } from "./events";
import { DoctorRunner, GdbProblem, gdbProblem, OfferUi, offerGdbInstall, withGdbHome } from "./gdbInstall";
import type { Server } from "./server";

let gdbHome: string | undefined;

/** Adds the extension's gdb folder to an environment for the adapter and the doctor. */
export function gdbHomeEnvironment(env: Record<string, string>): Record<string, string> {
  return withGdbHome(env, gdbHome);
}

const ui: OfferUi = {
  ask: (message, ...choices) => Promise.resolve(vscode.window.showWarningMessage(message, ...choices)),
  progress: (title, task) => Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, task)),
  info: (message, ...choices) => Promise.resolve(vscode.window.showInformationMessage(message, ...choices)),
  error: (message) => void vscode.window.showErrorMessage(message),
};

export async function offerGdb(server: Server, problem: GdbProblem, log: vscode.LogOutputChannel, again?: vscode.DebugSession): Promise<void> {
  const { command, args, env, choice } = await server.pyserverCommand([]);
  const run: DoctorRunner = (doctorArgs) =>
    new Promise((resolve) => {
      execFile(command, [...args, ...doctorArgs], { env, timeout: 900_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` });
      });
    });
  const result = await offerGdbInstall(problem, choice.command.join(" "), ui, run);
  log.info(`gdb offer (${problem}): ${result.kind}`);
  recordEvent("gdbOffer", { problem, result: result.kind });
  if (result.kind === "installed" && result.debugAgain && again) {
    await vscode.debug.startDebugging(again.workspaceFolder, again.configuration);
  }
}

/** After the doctor ran (debug information): the offer when its report names a gdb problem. */
export function offerAfterDoctor(server: Server, report: string, log: vscode.LogOutputChannel): void {
  const problem = gdbProblem(report);
  if (problem) void offerGdb(server, problem, log);
}

export function registerGdbOffer(context: vscode.ExtensionContext, server: Server, log: vscode.LogOutputChannel): void {
  gdbHome = vscode.Uri.joinPath(context.globalStorageUri, "gdb").fsPath;
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterTrackerFactory("numba", {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (message: { type?: string; command?: string; success?: boolean; message?: string }) => {
          if (message.type !== "response" || message.success !== false) return;
          if (message.command !== "launch" && message.command !== "attach") return;
          const problem = gdbProblem(message.message ?? "");
          if (problem) void offerGdb(server, problem, log, session);
        },
      }),
    }),
    vscode.commands.registerCommand("numbaLens.installGdb", () => offerGdb(server, "requested", log)),
  );
}
