// "Profile": runs a file, a test or a launch configuration under `python -m pyserver profile` (the
// user's interpreter, the server's pyserver), then shows the result as a heat overlay, a hot-spots view
// and a flame graph. Code lenses start it (on Python files that use Numba, and on pytest tests); the
// results stay until the next run.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Bootstrap } from "./bootstrap";
import { recordEvent } from "./events";
import { ProfileFlame } from "./profileFlame";
import { ProfileHeat } from "./profileHeat";
import { LaunchLike, launchArguments, parseProfile, profileArguments, summary, testTargets } from "./profileModel";
import { ProfileTree } from "./profileTree";

class ProfileLenses implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!vscode.workspace.isTrusted) return [];
    const text = document.getText();
    const lenses: vscode.CodeLens[] = [];
    if (/\bnumba\b/.test(text)) {
      const top = new vscode.Range(0, 0, 0, 0);
      lenses.push(
        new vscode.CodeLens(top, {
          title: "$(flame) Profile",
          command: "numbaLens.profileFile",
          arguments: [document.uri],
          tooltip: "Run this file under the Numba Lens sampling profiler",
        }),
      );
    }
    if (/(^|[\\/])(test_[^\\/]*|[^\\/]*_test)\.py$/.test(document.uri.fsPath)) {
      for (const target of testTargets(text)) {
        const range = new vscode.Range(target.line, 0, target.line, 0);
        lenses.push(
          new vscode.CodeLens(range, {
            title: "$(flame) Profile test",
            command: "numbaLens.profileTest",
            arguments: [document.uri, target.nodeId],
            tooltip: `Run ${target.nodeId} with pytest under the Numba Lens sampling profiler`,
          }),
        );
      }
    }
    return lenses;
  }
}

/** The profiling commands, for the command table. */
export interface Profiler {
  profileFile(uri?: vscode.Uri): Promise<void>;
  profileTest(uri?: vscode.Uri, nodeId?: string): Promise<void>;
  profileLaunch(): Promise<void>;
  showFlameGraph(): void;
  clearProfile(): void;
}

export function registerProfiling(context: vscode.ExtensionContext, bootstrap: Bootstrap, log: vscode.LogOutputChannel): Profiler {
  const storage = vscode.Uri.joinPath(context.globalStorageUri, "profile");
  const heat = new ProfileHeat();
  const tree = new ProfileTree();
  const hotSpotsView = vscode.window.createTreeView("numbaLens.hotSpots", { treeDataProvider: tree });
  const flame = new ProfileFlame(context.extensionUri);
  const output = vscode.window.createOutputChannel("Numba Lens Profile");
  let running = false;

  /** Runs `python PROGRAM_ARGS...` under the profiler and shows the result. */
  async function runProfile(title: string, programArgs: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      // Profiling runs the program: never in a workspace the user has not trusted.
      void vscode.window.showWarningMessage("Numba Lens: profiling runs your program, so it is off in an untrusted workspace.");
      return;
    }
    if (running) {
      void vscode.window.showInformationMessage("Numba Lens: a profile is already running.");
      return;
    }
    await fs.promises.mkdir(storage.fsPath, { recursive: true });
    const jsonOut = path.join(storage.fsPath, "profile.json");
    const flameOut = path.join(storage.fsPath, "profile.speedscope.json");
    const python = (await bootstrap.interpreter()).command;
    const { command, args, env } = await bootstrap.command(profileArguments(jsonOut, flameOut, [...python, ...programArgs]));
    output.clear();
    output.appendLine(`$ ${[command, ...args].join(" ")}`);
    running = true;
    recordEvent("profileStarted", { title });
    try {
      const code = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Profiling ${title}`, cancellable: true },
        (_progress, token) =>
          new Promise<number | null>((resolve, reject) => {
            fs.rmSync(jsonOut, { force: true });
            const child = spawn(command, args, { cwd, env: { ...env, ...extraEnv } });
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
      const hottest = tree.show(profile);
      // Bring the hot-spots view into sight (opening the Explorer if need be) but leave the focus in
      // the editor, as the test explorer does with its results.
      if (hottest) await Promise.resolve(hotSpotsView.reveal(hottest, { select: false, focus: false })).catch((error: unknown) => log.warn(`hot spots: ${String(error)}`));
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

  async function fileTarget(uri?: vscode.Uri): Promise<vscode.Uri | undefined> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== "file") {
      void vscode.window.showWarningMessage("Numba Lens: open a Python file to profile.");
      return undefined;
    }
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
    if (document?.isDirty) await document.save();
    return target;
  }

  function folderOf(target: vscode.Uri): string {
    return vscode.workspace.getWorkspaceFolder(target)?.uri.fsPath ?? path.dirname(target.fsPath);
  }

  async function profileFile(uri?: vscode.Uri): Promise<void> {
    const target = await fileTarget(uri);
    if (target) await runProfile(path.basename(target.fsPath), [target.fsPath], folderOf(target));
  }

  async function profileTest(uri?: vscode.Uri, nodeId?: string): Promise<void> {
    const target = await fileTarget(uri);
    if (!target) return;
    const node = nodeId ? `${target.fsPath}::${nodeId}` : target.fsPath;
    await runProfile(nodeId ?? path.basename(target.fsPath), ["-m", "pytest", "-q", "-p", "no:cacheprovider", node], folderOf(target));
  }

  async function profileLaunch(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void vscode.window.showWarningMessage("Numba Lens: open a folder with a launch.json to profile a launch configuration.");
      return;
    }
    const configurations = (vscode.workspace.getConfiguration("launch", folder.uri).get<(LaunchLike & { name?: string; type?: string })[]>("configurations") ?? []).filter(
      (c) => (c.type === "numba" || c.type === "python" || c.type === "debugpy") && (c.program || c.module),
    );
    if (configurations.length === 0) {
      void vscode.window.showWarningMessage("Numba Lens: no launch configuration with a program or a module (types numba, python, debugpy).");
      return;
    }
    const picked = await vscode.window.showQuickPick(
      configurations.map((c) => ({ label: c.name ?? c.program ?? c.module ?? "?", config: c })),
      { placeHolder: "Profile which launch configuration?" },
    );
    if (!picked) return;
    const file = vscode.window.activeTextEditor?.document.uri.fsPath ?? "";
    const substitute = (value: string) => value.replaceAll("${workspaceFolder}", folder.uri.fsPath).replaceAll("${file}", file);
    const programArgs = launchArguments(picked.config, substitute);
    if (!programArgs) return;
    const cwd = picked.config.cwd ? substitute(picked.config.cwd) : folder.uri.fsPath;
    const env = Object.fromEntries(Object.entries(picked.config.env ?? {}).map(([k, v]) => [k, substitute(String(v))]));
    await runProfile(picked.label, programArgs, cwd, env);
  }

  context.subscriptions.push(
    heat,
    tree,
    flame,
    output,
    hotSpotsView,
    vscode.languages.registerCodeLensProvider({ language: "python", scheme: "file" }, new ProfileLenses()),
  );
  return { profileFile, profileTest, profileLaunch, showFlameGraph: () => flame.show(), clearProfile: () => heat.clear() };
}
