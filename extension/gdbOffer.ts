// The VS Code side of gdbInstall.ts: the offer after a launch or attach that failed for want of a
// usable gdb, after the doctor (debug information) found one, and the palette command. The doctor runs
// through the bootstrap, whose environment names the extension's gdb folder: that is where
// `doctor --fix` installs, and where the adapter and the doctor look afterwards.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import type { Bootstrap } from "./bootstrap";
import { DEBUG_TYPE } from "./debugConfig";
import { recordEvent } from "./events";
import { DoctorRunner, GdbProblem, gdbProblem, OfferUi, offerGdbInstall } from "./gdbInstall";

const ui: OfferUi = {
  ask: (message, ...choices) => Promise.resolve(vscode.window.showWarningMessage(message, ...choices)),
  progress: (title, task) => Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, task)),
  info: (message, ...choices) => Promise.resolve(vscode.window.showInformationMessage(message, ...choices)),
  error: (message) => void vscode.window.showErrorMessage(message),
};

export class GdbOffer implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly bootstrap: Bootstrap,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (message: { type?: string; command?: string; success?: boolean; message?: string }) => {
            if (message.type !== "response" || message.success !== false) return;
            if (message.command !== "launch" && message.command !== "attach") return;
            const problem = gdbProblem(message.message ?? "");
            if (problem) void this.offer(problem, session);
          },
        }),
      }),
    );
  }

  /** Offers to install a gdb; after an install, `again` (the session that failed) can be started again. */
  async offer(problem: GdbProblem, again?: vscode.DebugSession): Promise<void> {
    const { command, args, env, choice } = await this.bootstrap.command([]);
    const run: DoctorRunner = (doctorArgs) =>
      new Promise((resolve) => {
        execFile(command, [...args, ...doctorArgs], { env, timeout: 900_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
          resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` });
        });
      });
    const result = await offerGdbInstall(problem, choice.command.join(" "), ui, run);
    this.log.info(`gdb offer (${problem}): ${result.kind}`);
    recordEvent("gdbOffer", { problem, result: result.kind });
    if (result.kind === "installed" && result.debugAgain && again) {
      await vscode.debug.startDebugging(again.workspaceFolder, again.configuration);
    }
  }

  /** After the doctor ran (debug information): the offer when its report names a gdb problem. */
  afterDoctor(report: string): void {
    const problem = gdbProblem(report);
    if (problem) void this.offer(problem);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
