// Activation: wires the concerns together. Each concern lives in its own file.
import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { registerDebugging } from "./debug";
import { recordEvent } from "./events";
import { registerGdbOffer } from "./gdbOffer";
import { IrViews } from "./irView";
import { registerProfiling } from "./profile";
import { PythonInterpreter } from "./python";
import { Recording } from "./recording";
import { registerCompilesView } from "./recompilesView";
import { Server } from "./server";
import { needsRestart } from "./settings";
import { StatusItem } from "./status";

let server: Server | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Numba Lens", { log: true });
  const status = new StatusItem();
  const python = new PythonInterpreter(log);
  server = new Server(context, log, status, python);
  const irViews = new IrViews(server, log);
  const recording = new Recording(context, server, log);
  context.subscriptions.push(log, status, python, irViews, recording, { dispose: () => void server?.dispose() });

  registerCommands(context, server, status, irViews, recording, log);
  registerDebugging(context, server, recording, log);
  registerProfiling(context, server, log);
  registerGdbOffer(context, server, log);
  registerCompilesView(context, server, log); // issue 16: the compiles lens's view

  const current = server;
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("numbaLens")) return;
      if (needsRestart((key) => event.affectsConfiguration(key))) {
        await current.restart("numbaLens.interpreter or numbaLens.importStrategy changed");
        await recording.update();
        return;
      }
      current.configurationChanged();
      if (event.affectsConfiguration("numbaLens.recordSignatures")) await recording.update();
    }),
    python.onDidChange(async () => {
      await current.restart("the Python interpreter changed");
      await recording.update();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      await current.restart("the workspace is now trusted");
      await recording.update();
    }),
  );

  log.info(`Numba Lens ${(context.extension.packageJSON as { version: string }).version} activated`);
  recordEvent("activated", { trusted: vscode.workspace.isTrusted });
  // Not awaited: activation (and every command) is ready while the interpreter is probed and the
  // server starts; the status item shows "starting" meanwhile.
  void server.start().then(() => recording.update());
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
  server = undefined;
}
