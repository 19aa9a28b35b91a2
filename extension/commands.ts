// Every palette and lens command in one table: id -> what it runs. The concerns expose their actions;
// this module maps the ids (commandIds.ts, the same list as package.json) to them and registers them.
import * as vscode from "vscode";
import type { Bootstrap } from "./bootstrap";
import type { LanguageServerClient } from "./client";
import { CommandId } from "./commandIds";
import { debugJitFunction, DebugJitFunctionArgs } from "./debug";
import { debugInformation } from "./debugInfo";
import { recordEvent } from "./events";
import type { GdbOffer } from "./gdbOffer";
import type { IrKind, IrViews } from "./irView";
import type { Profiler } from "./profile";
import type { Recording } from "./recording";
import type { CompilesView } from "./recompilesView";
import type { StatusItem } from "./status";
import type { TypeStabilityView } from "./typesView";

/** What the commands act on, built by activation. */
export interface CommandTargets {
  context: vscode.ExtensionContext;
  bootstrap: Bootstrap;
  client: LanguageServerClient;
  status: StatusItem;
  log: vscode.LogOutputChannel;
  irViews: IrViews;
  typeStability: TypeStabilityView;
  compiles: CompilesView;
  recording: Recording;
  gdbOffer: GdbOffer;
  profiler: Profiler;
}

// Commands receive whatever their caller passes (a lens's arguments, an explorer URI, nothing from the
// palette): each handler declares its own optional parameters.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (...args: any[]) => unknown;

type IrArgs = { uri: string; line: number; signature?: number };

async function showDebugInfo(targets: CommandTargets): Promise<void> {
  const { context, bootstrap, client, status, log, gdbOffer } = targets;
  const text = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Numba Lens: collecting debug information (runs the doctor)…" },
    () => debugInformation(context, bootstrap, client, status),
  );
  log.info(text);
  recordEvent("debugInfo", { text });
  gdbOffer.afterDoctor(text); // no gdb, or one that cannot see jitted code: offer one
  const document = await vscode.workspace.openTextDocument({ language: "markdown", content: text });
  await vscode.window.showTextDocument(document, { preview: false });
}

export function commandTable(targets: CommandTargets): Record<CommandId, Handler> {
  const { client, log, irViews, typeStability, compiles, recording, gdbOffer, profiler } = targets;
  const irView = (kind: IrKind) => (args?: IrArgs) => irViews.show(kind, args);
  return {
    "numbaLens.restart": async () => {
      recordEvent("command", { command: "numbaLens.restart" });
      await client.restart("requested by the user");
    },
    "numbaLens.showLog": () => log.show(),
    "numbaLens.showDebugInfo": () => showDebugInfo(targets),
    "numbaLens.installGdb": () => gdbOffer.offer("requested"),
    "numbaLens.recordSignaturesInTerminal": () => recording.newTerminal(),
    "numbaLens.showTypes": irView("types"),
    "numbaLens.showNumbaIR": irView("numba_ir"),
    "numbaLens.showLLVM": irView("llvm"),
    "numbaLens.showAssembly": irView("asm"),
    "numbaLens.showTypeStability": () => typeStability.toggle(),
    "numbaLens.showCompiles": (args?: { uri: string; function: string }) => compiles.show(args),
    "numbaLens.debugJitFunction": (args?: DebugJitFunctionArgs) => debugJitFunction(args),
    "numbaLens.profileFile": (uri?: vscode.Uri) => profiler.profileFile(uri),
    "numbaLens.profileTest": (uri?: vscode.Uri, nodeId?: string) => profiler.profileTest(uri, nodeId),
    "numbaLens.profileLaunch": () => profiler.profileLaunch(),
    "numbaLens.showFlameGraph": () => profiler.showFlameGraph(),
    "numbaLens.clearProfile": () => profiler.clearProfile(),
  };
}

/** Registers the table: the only place a command is registered. */
export function registerCommands(table: Record<CommandId, Handler>): vscode.Disposable[] {
  return Object.entries(table).map(([id, run]) => vscode.commands.registerCommand(id, run));
}
