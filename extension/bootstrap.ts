// Everything before a pyserver process runs: the resolved numbaLens.* settings, the interpreter (the
// setting, the Python extension's choice, or python3), the environment (bundled libraries, the
// extension's gdb folder), the probe that the interpreter starts at all, and the command line of
// `python -m pyserver <lsp|dap|doctor|profile|record ...>`. The language client lives in client.ts and is
// handed what it needs from here.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { InterpreterChoice } from "./interpreter";
import { PythonInterpreter } from "./python";
import { probeCommand, probeProblem, PyserverCommand, pyserverCommand, pyserverEnvironment } from "./pyserverCommand";
import { resolveSettings, Settings } from "./settings";

export interface BootstrapOptions {
  extensionUri: vscode.Uri;
  /** The extension's own gdb folder (where the gdb offer installs one); fixed for the session. */
  gdbHome: string;
  log: vscode.LogOutputChannel;
  python: PythonInterpreter;
}

/** The language server's command, or the reason it cannot run (then nothing should be started). */
export interface ServerLaunch {
  command: PyserverCommand;
  problem?: string;
}

export class Bootstrap {
  private readonly reportedProblems = new Set<string>();

  constructor(private readonly options: BootstrapOptions) {}

  get bundledLibs(): string {
    return vscode.Uri.joinPath(this.options.extensionUri, "dist", "bundled", "libs").fsPath;
  }

  get gdbHome(): string {
    return this.options.gdbHome;
  }

  settings(): Settings {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const resolved = resolveSettings(vscode.workspace.getConfiguration("numbaLens", folder?.uri), {
      workspaceFolder: folder?.uri.fsPath,
    });
    for (const problem of resolved.problems) {
      // Settings are read often (every workspace/configuration request): say each problem once.
      if (this.reportedProblems.has(problem)) continue;
      this.reportedProblems.add(problem);
      this.options.log.warn(problem);
    }
    return resolved.settings;
  }

  /** The interpreter for the first workspace folder. */
  interpreter(): Promise<InterpreterChoice> {
    return this.options.python.choose(vscode.workspace.workspaceFolders?.[0]?.uri);
  }

  /** `python -m pyserver <subcommand>` with the chosen interpreter and its environment. */
  async command(subcommand: string[]): Promise<PyserverCommand> {
    const choice = await this.interpreter();
    const settings = this.settings();
    const env = pyserverEnvironment({ importStrategy: settings.importStrategy, bundledLibs: this.bundledLibs, gdbHome: this.gdbHome }, process.env);
    return pyserverCommand(choice, subcommand, env);
  }

  /** `python -m pyserver lsp`, after checking that the interpreter starts and is new enough. */
  async serverLaunch(): Promise<ServerLaunch> {
    const settings = this.settings();
    const command = await this.command(["lsp"]);
    const log = this.options.log;
    log.info(`Interpreter: ${command.choice.command.join(" ")} (${command.choice.reason})`);
    log.info(`Import strategy: ${settings.importStrategy}${settings.importStrategy === "useBundled" ? ` (${this.bundledLibs})` : ""}`);
    return { command, problem: await this.probe(command) };
  }

  private probe(server: PyserverCommand): Promise<string | undefined> {
    const { command, args } = probeCommand(server.choice);
    return new Promise((resolve) => {
      execFile(command, args, { env: server.env, timeout: 30_000 }, (error, stdout, stderr) => {
        const failure = error ? { code: (error as NodeJS.ErrnoException).code, text: String(error) } : undefined;
        resolve(probeProblem(command, { error: failure, stdout, stderr }));
      });
    });
  }
}
