// Signature recording from real runs. With numbaLens.recordSignatures on, every terminal opened in the
// workspace carries the variables of `python -m pyserver record` (through the environment variable
// collection), so running the program or its tests once is enough for types to appear. The command
// "Record signatures in a new terminal" opens a shell under `pyserver record` for a one-off.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import type { Bootstrap } from "./bootstrap";
import { recordEvent } from "./events";
import { DUMP_ENVIRONMENT, diffEnvironment, Mutation, mutationsAsEnvironment } from "./recordEnv";

export const SIGNATURES_FILE = ".numba-lens/signatures.json";

export class Recording implements vscode.Disposable {
  private mutations: Mutation[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private generation = 0;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly bootstrap: Bootstrap,
    private readonly log: vscode.LogOutputChannel,
  ) {
    // Stale variables from an earlier session must not outlive it.
    context.environmentVariableCollection.persistent = false;
  }

  private signaturesFile(): vscode.Uri | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder ? vscode.Uri.joinPath(folder.uri, SIGNATURES_FILE) : undefined;
  }

  /** The variables for a debug launch (empty when recording is off or not yet known). */
  launchEnvironment(): Record<string, string> {
    return mutationsAsEnvironment(this.mutations);
  }

  /** Re-reads numbaLens.recordSignatures and applies (or clears) the terminal variables. */
  async update(): Promise<void> {
    const generation = ++this.generation;
    const collection = this.context.environmentVariableCollection;
    const settings = this.bootstrap.settings();
    const file = this.signaturesFile();
    if (!settings.recordSignatures || !vscode.workspace.isTrusted || !file) {
      collection.clear();
      this.mutations = [];
      recordEvent("recording", { on: false });
      return;
    }
    let mutations: Mutation[];
    try {
      mutations = await this.learnVariables(file);
    } catch (error) {
      const message = `Numba Lens could not set up signature recording for terminals: ${error instanceof Error ? error.message : String(error)}`;
      this.log.error(message);
      void vscode.window.showWarningMessage(message, "Show log").then((p) => p && this.log.show());
      return;
    }
    if (generation !== this.generation) return; // a newer update won
    collection.clear();
    collection.description = new vscode.MarkdownString(
      `Numba Lens records the signatures Numba compiles into \`${SIGNATURES_FILE}\` (numbaLens.recordSignatures).`,
    );
    for (const m of mutations) {
      if (m.kind === "replace") collection.replace(m.variable, m.value);
      else if (m.kind === "prepend") collection.prepend(m.variable, m.value);
      else collection.append(m.variable, m.value);
    }
    this.mutations = mutations;
    this.log.info(`Signature recording on for new terminals: ${mutations.map((m) => `${m.variable} (${m.kind})`).join(", ")}`);
    recordEvent("recording", { on: true, variables: mutations.map((m) => m.variable) });
  }

  /**
   * Runs `pyserver record -- python -c <print os.environ>` and keeps what record added: the hook's own
   * variable names are the record command's business, not ours.
   */
  private async learnVariables(file: vscode.Uri): Promise<Mutation[]> {
    const { command, args, env, choice } = await this.bootstrap.command(["record", "--signatures", file.fsPath, "--"]);
    // Baseline: the environment a terminal would start from. The server's extras (bundled PYTHONPATH)
    // count as additions, since the recording hook needs pyserver importable.
    const baseline: Record<string, string | undefined> = { ...process.env };
    const childEnv: Record<string, string> = { ...env };
    delete childEnv.PYTHONUNBUFFERED;
    delete childEnv.PYTHONIOENCODING;
    if (process.env.PYTHONUNBUFFERED !== undefined) childEnv.PYTHONUNBUFFERED = process.env.PYTHONUNBUFFERED;
    if (process.env.PYTHONIOENCODING !== undefined) childEnv.PYTHONIOENCODING = process.env.PYTHONIOENCODING;
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        command,
        [...args, ...choice.command, "-c", DUMP_ENVIRONMENT],
        { env: childEnv, timeout: 60_000, maxBuffer: 16 * 1024 * 1024, cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`${[command, ...args].join(" ")} failed: ${(stderr || error.message).trim()}`));
          else resolve(stdout);
        },
      );
    });
    const start = output.lastIndexOf("{\"");
    const after = JSON.parse(start >= 0 ? output.slice(start) : output) as Record<string, string>;
    return diffEnvironment(baseline, after);
  }

  /** A shell running under `python -m pyserver record`: everything run in it records its signatures. */
  async newTerminal(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage("Recording signatures runs your code: trust this workspace first.");
      return;
    }
    const file = this.signaturesFile();
    if (!file) {
      void vscode.window.showInformationMessage("Open a folder first: signatures are recorded into its .numba-lens/ folder.");
      return;
    }
    const shell = vscode.env.shell || process.env.SHELL || "/bin/bash";
    const { command, args, env } = await this.bootstrap.command(["record", "--signatures", file.fsPath, "--", shell]);
    const terminal = vscode.window.createTerminal({
      name: "Numba Lens: recording",
      shellPath: command,
      shellArgs: args,
      cwd: vscode.workspace.workspaceFolders?.[0]?.uri,
      env,
      message: `Numba Lens: every Python program run in this terminal records the signatures Numba compiles into ${SIGNATURES_FILE}. Run your program or its tests once; types appear on the next save.`,
    });
    terminal.show();
    recordEvent("recordingTerminal", { command: [command, ...args] });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
