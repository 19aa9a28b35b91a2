// "Profile": runs a file under `python -m pyserver profile` (the user's interpreter, the server's
// pyserver), then shows the result as a heat overlay, a hot-spots view and a flame graph. A code lens
// on Python files that use Numba starts it; the results stay until the next run.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { recordEvent } from "./events";
import { ProfileFlame } from "./profileFlame";
import { ProfileHeat } from "./profileHeat";
import { parseProfile, profileArguments, summary } from "./profileModel";
import { ProfileTree } from "./profileTree";
import { Server } from "./server";

class ProfileLenses implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!vscode.workspace.isTrusted || !/\bnumba\b/.test(document.getText())) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    return [new vscode.CodeLens(top, { title: "$(flame) Profile", command: "numbaLens.profileFile", arguments: [document.uri], tooltip: "Run this file under the Numba Lens sampling profiler" })];
  }
}

export function registerProfiling(context: vscode.ExtensionContext, server: Server, log: vscode.LogOutputChannel): void {
  const storage = vscode.Uri.joinPath(context.globalStorageUri, "profile");
  const heat = new ProfileHeat();
  const tree = new ProfileTree();
  const flame = new ProfileFlame(context.extensionUri, storage);
  const output = vscode.window.createOutputChannel("Numba Lens Profile");
  let running = false;

  async function profileFile(uri?: vscode.Uri): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== "file") {
      void vscode.window.showWarningMessage("Numba Lens: open a Python file to profile.");
      return;
    }
    if (running) {
      void vscode.window.showInformationMessage("Numba Lens: a profile is already running.");
      return;
    }
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
    if (document?.isDirty) await document.save();
    await fs.promises.mkdir(storage.fsPath, { recursive: true });
    const jsonOut = path.join(storage.fsPath, "profile.json");
    const flameOut = path.join(storage.fsPath, "profile.speedscope.json");
    const probe = await server.pyserverCommand([]);
    const python = [probe.command, ...probe.args.slice(0, probe.args.indexOf("-m"))];
    const { command, args, env } = await server.pyserverCommand(profileArguments(jsonOut, flameOut, [...python, target.fsPath]));
    const cwd = vscode.workspace.getWorkspaceFolder(target)?.uri.fsPath ?? path.dirname(target.fsPath);
    output.clear();
    output.appendLine(`$ ${[command, ...args].join(" ")}`);
    running = true;
    recordEvent("profileStarted", { file: target.fsPath });
    try {
      const code = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Profiling ${path.basename(target.fsPath)}`, cancellable: true },
        (_progress, token) =>
          new Promise<number | null>((resolve, reject) => {
            fs.rmSync(jsonOut, { force: true });
            const child = spawn(command, args, { cwd, env });
            child.stdout.on("data", (chunk: Buffer) => output.append(chunk.toString()));
            child.stderr.on("data", (chunk: Buffer) => output.append(chunk.toString()));
            token.onCancellationRequested(() => child.kill("SIGTERM"));
            child.on("error", reject);
            child.on("close", (exitCode) => resolve(exitCode));
          }),
      );
      if (!fs.existsSync(jsonOut)) {
        const message = `Numba Lens: the profile was not written (exit code ${code}). See the output.`;
        log.error(message);
        output.show(true);
        void vscode.window.showErrorMessage(message);
        return;
      }
      const profile = parseProfile(fs.readFileSync(jsonOut, "utf8"));
      heat.show(profile);
      tree.show(profile);
      if (fs.existsSync(flameOut)) flame.update(vscode.Uri.file(flameOut));
      recordEvent("profileShown", { samples: profile.samples, lines: profile.lines.length, exitCode: code });
      const crashed = code ? ` The program exited with code ${code}.` : "";
      void vscode.window.showInformationMessage(`Numba Lens profile: ${summary(profile)}.${crashed}`, "Flame graph", "Program output").then((choice) => {
        if (choice === "Flame graph") flame.show();
        if (choice === "Program output") output.show(true);
      });
    } catch (error) {
      const message = `Numba Lens: profiling failed: ${error instanceof Error ? error.message : String(error)}`;
      log.error(message);
      void vscode.window.showErrorMessage(message);
    } finally {
      running = false;
    }
  }

  context.subscriptions.push(
    heat,
    tree,
    flame,
    output,
    vscode.window.registerTreeDataProvider("numbaLens.hotSpots", tree),
    vscode.languages.registerCodeLensProvider({ language: "python", scheme: "file" }, new ProfileLenses()),
    vscode.commands.registerCommand("numbaLens.profileFile", (uri?: vscode.Uri) => profileFile(uri)),
    vscode.commands.registerCommand("numbaLens.showFlameGraph", () => flame.show()),
    vscode.commands.registerCommand("numbaLens.clearProfile", () => heat.clear()),
  );
}
