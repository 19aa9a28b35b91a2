// Activation: builds the bootstrap (interpreter, environment, pyserver commands), the language client
// it feeds, and the concerns, then registers the command table and the restart triggers.
import * as vscode from "vscode";
import { Bootstrap } from "./bootstrap";
import { LanguageServerClient } from "./client";
import { commandTable, registerCommands } from "./commands";
import { registerDebugging } from "./debug";
import { recordEvent } from "./events";
import { GdbOffer } from "./gdbOffer";
import { IrViews } from "./irView";
import { registerProfiling } from "./profile";
import { PythonInterpreter } from "./python";
import { CompilesView } from "./recompilesView";
import { Recording } from "./recording";
import { needsRestart } from "./settings";
import { StatusItem } from "./status";
import { TypeStabilityView } from "./typesView";

let activeClient: LanguageServerClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel("Numba Lens", { log: true });
  const status = new StatusItem();
  const python = new PythonInterpreter(log);
  // Where the gdb offer installs a gdb for the extension; every pyserver process is told (bootstrap).
  const gdbHome = vscode.Uri.joinPath(context.globalStorageUri, "gdb").fsPath;
  const bootstrap = new Bootstrap({ extensionUri: context.extensionUri, gdbHome, log, python });
  const client = new LanguageServerClient({
    log,
    status,
    settings: () => bootstrap.settings(),
    launch: () => bootstrap.serverLaunch(),
  });
  activeClient = client;
  const irViews = new IrViews(client, log);
  const typeStability = new TypeStabilityView(client, log);
  const compiles = new CompilesView(client, log);
  const recording = new Recording(context, bootstrap, log);
  context.subscriptions.push(log, status, python, irViews, typeStability, compiles, recording, { dispose: () => void client.dispose() });

  registerDebugging(context, bootstrap, recording, log);
  const profiler = registerProfiling(context, bootstrap, log);
  const gdbOffer = new GdbOffer(bootstrap, log);
  context.subscriptions.push(gdbOffer);
  const table = commandTable({ context, bootstrap, client, status, log, irViews, typeStability, compiles, recording, gdbOffer, profiler });
  context.subscriptions.push(...registerCommands(table));

  const restart = async (reason: string) => {
    await client.restart(reason);
    await recording.update();
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("numbaLens")) return;
      if (needsRestart((key) => event.affectsConfiguration(key))) {
        await restart("numbaLens.interpreter or numbaLens.importStrategy changed");
        return;
      }
      client.configurationChanged();
      if (event.affectsConfiguration("numbaLens.recordSignatures")) await recording.update();
    }),
    python.onDidChange(() => restart("the Python interpreter changed")),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart("the workspace is now trusted")),
  );

  log.info(`Numba Lens ${(context.extension.packageJSON as { version: string }).version} activated`);
  recordEvent("activated", { trusted: vscode.workspace.isTrusted });
  // Not awaited: activation (and every command) is ready while the interpreter is probed and the
  // server starts; the status item shows "starting" meanwhile.
  void client.start().then(() => recording.update());
}

export async function deactivate(): Promise<void> {
  await activeClient?.dispose();
  activeClient = undefined;
}
