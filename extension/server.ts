// The language server: `python -m pyserver lsp` over stdio through vscode-languageclient. Start, stop,
// restart (serialised), settings answered from the resolved numbaLens.* values, status and failures.
import * as vscode from "vscode";
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  ServerOptions,
  ShowMessageNotification,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { execFile } from "node:child_process";
import { recordEvent } from "./events";
import { gdbHomeEnvironment } from "./gdbOffer";
import { InterpreterChoice, serverEnvironment } from "./interpreter";
import { PythonInterpreter } from "./python";
import { resolveSettings, serverSettings, Settings, shouldNotify } from "./settings";
import { ServerStatus, StatusItem } from "./status";

const MAX_CRASHES = 3;
const CRASH_WINDOW_MS = 3 * 60_000;

export interface IrViewParams {
  uri: string;
  line: number;
  kind: "types" | "numba_ir" | "llvm" | "asm";
  signature?: number;
}
export interface IrViewResult {
  text: string;
  language: string;
  function: string;
  signature: string;
  lineMap: Record<string, number[]>;
}

function describe(value: vscode.Diagnostic["code"]): string | number | undefined {
  return typeof value === "object" ? value.value : value;
}

export class Server implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private lastChoice: InterpreterChoice | undefined;
  private pending: Promise<void> = Promise.resolve();
  private crashes: number[] = [];
  /** Messages already shown as notifications: each failure is shown once, not on every status. */
  private readonly shown = new Set<string>();
  private readonly reportedProblems = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly status: StatusItem,
    private readonly python: PythonInterpreter,
  ) {}

  get bundledLibs(): string {
    return vscode.Uri.joinPath(this.context.extensionUri, "dist", "bundled", "libs").fsPath;
  }

  get interpreter(): InterpreterChoice | undefined {
    return this.lastChoice;
  }

  get state(): string {
    if (!this.client) return "not started";
    return State[this.client.state].toLowerCase();
  }

  /** The running client, for requests (IR views); undefined while stopped. */
  get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
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
      this.log.warn(problem);
    }
    return resolved.settings;
  }

  /** The environment and command line for `python -m pyserver <sub>` with the chosen interpreter. */
  async pyserverCommand(subcommand: string[]): Promise<{ command: string; args: string[]; env: Record<string, string>; choice: InterpreterChoice }> {
    const choice = await this.python.choose(vscode.workspace.workspaceFolders?.[0]?.uri);
    const settings = this.settings();
    const env = gdbHomeEnvironment(serverEnvironment(settings.importStrategy, this.bundledLibs, process.env));
    delete env[`NUMBA_LENS_TEST_EVENTS`];
    return { command: choice.command[0], args: [...choice.command.slice(1), "-m", "pyserver", ...subcommand], env, choice };
  }

  /** Runs one start/stop at a time: a restart while starting waits for the start to finish. */
  private serialise(step: () => Promise<void>): Promise<void> {
    this.pending = this.pending.then(step, step);
    return this.pending;
  }

  start(): Promise<void> {
    return this.serialise(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.serialise(() => this.doStop());
  }

  restart(reason: string): Promise<void> {
    return this.serialise(async () => {
      this.log.info(`Restarting the language server: ${reason}`);
      this.crashes = [];
      this.shown.clear();
      await this.doStop();
      await this.doStart();
    });
  }

  private notify(kind: "error" | "warning" | "info", message: string, ...actions: string[]): void {
    if (this.shown.has(message)) return;
    this.shown.add(message);
    recordEvent("notification", { kind, message });
    if (!shouldNotify(this.settings().showNotifications, kind)) return;
    const show =
      kind === "error"
        ? vscode.window.showErrorMessage
        : kind === "warning"
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    // The server's Numba message ends with the command that fixes it: offer to copy it.
    const install = /Install it with:\s*(.+?)\s*$/.exec(message)?.[1];
    const offered = [...(install ? ["Copy install command"] : []), ...actions, "Show log"];
    void show(message, ...offered).then((picked) => {
      if (picked === "Show log") this.log.show();
      else if (picked === "Copy install command" && install) void vscode.env.clipboard.writeText(install);
      else if (picked === "Open settings") void vscode.commands.executeCommand("workbench.action.openSettings", "numbaLens.interpreter");
    });
  }

  /** Checks that the interpreter starts at all and is new enough, to give one clear message instead of a crash. */
  private probe(command: string, args: string[], env: Record<string, string>): Promise<string | undefined> {
    const script = "import sys; print('%d.%d' % sys.version_info[:2])";
    return new Promise((resolve) => {
      execFile(command, [...args.slice(0, args.indexOf("-m")), "-c", script], { env, timeout: 30_000 }, (error, stdout, stderr) => {
        if (error) {
          const code = (error as NodeJS.ErrnoException).code;
          resolve(
            code === "ENOENT"
              ? `The Python interpreter "${command}" was not found. Set numbaLens.interpreter to a Python with Numba, or select one with the Python extension.`
              : `The Python interpreter "${command}" failed to start: ${(stderr || String(error)).trim().split("\n").pop()}`,
          );
          return;
        }
        const [major, minor] = stdout.trim().split(".").map(Number);
        if (!(major > 3 || (major === 3 && minor >= 10))) {
          resolve(`Numba Lens needs Python 3.10 or newer; "${command}" is Python ${stdout.trim()}. Set numbaLens.interpreter.`);
          return;
        }
        resolve(undefined);
      });
    });
  }

  private async doStart(): Promise<void> {
    if (this.client) return;
    this.status.setClientState({ kind: "starting" });
    const settings = this.settings();
    const trusted = vscode.workspace.isTrusted;
    const { command, args, env, choice } = await this.pyserverCommand(["lsp"]);
    this.lastChoice = choice;
    this.log.info(`Interpreter: ${choice.command.join(" ")} (${choice.reason})`);
    this.log.info(`Import strategy: ${settings.importStrategy}${settings.importStrategy === "useBundled" ? ` (${this.bundledLibs})` : ""}`);

    const problem = await this.probe(command, args, env);
    if (problem) {
      this.log.error(problem);
      this.status.setClientState({ kind: "failed", message: problem });
      recordEvent("serverFailed", { message: problem });
      this.notify("error", problem, "Open settings");
      return;
    }

    const folder = vscode.workspace.workspaceFolders?.[0];
    const serverOptions: ServerOptions = {
      command,
      args,
      transport: TransportKind.stdio,
      options: { env, cwd: folder?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file", language: "python" }],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      initializationOptions: { trusted, settings: serverSettings(settings) },
      errorHandler: {
        error: (error, _message, count) => {
          this.log.error(`Language server connection error: ${error.message}`);
          return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
        },
        closed: () => this.onClosed(),
      },
      middleware: {
        workspace: {
          // Answer with resolved values (variables substituted, relative signature files made absolute).
          configuration: (params, token, next) => {
            if (params.items.every((item) => item.section !== "numbaLens")) return next(params, token);
            const resolved = serverSettings(this.settings());
            return params.items.map((item) => (item.section === "numbaLens" ? resolved : null));
          },
        },
        handleDiagnostics: (uri, diagnostics, next) => {
          recordEvent("diagnostics", {
            uri: uri.toString(),
            items: diagnostics.map((d) => ({
              line: d.range.start.line,
              character: d.range.start.character,
              endLine: d.range.end.line,
              severity: vscode.DiagnosticSeverity[d.severity],
              code: describe(d.code),
              message: d.message,
            })),
          });
          next(uri, diagnostics);
        },
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          recordEvent("codeLenses", {
            uri: document.uri.toString(),
            lenses: (lenses ?? []).map((l) => ({ line: l.range.start.line, title: l.command?.title, command: l.command?.command, arguments: l.command?.arguments })),
          });
          return lenses;
        },
        provideInlayHints: async (document, range, token, next) => {
          const hints = await next(document, range, token);
          recordEvent("inlayHints", {
            uri: document.uri.toString(),
            hints: (hints ?? []).map((h) => ({
              line: h.position.line,
              label: typeof h.label === "string" ? h.label : h.label.map((part) => part.value).join(""),
            })),
          });
          return hints;
        },
        provideHover: async (document, position, token, next) => {
          const hover = await next(document, position, token);
          const text = (hover?.contents ?? [])
            .map((c) => (typeof c === "string" ? c : "value" in c ? c.value : ""))
            .join("\n");
          recordEvent("hover", { uri: document.uri.toString(), line: position.line, character: position.character, text });
          return hover;
        },
      },
    };

    const client = new LanguageClient("numbaLens", "Numba Lens", serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((event) => {
      recordEvent("serverState", { state: State[event.newState] });
      if (event.newState === State.Running) this.status.setClientState(trusted ? { kind: "running" } : { kind: "untrusted" });
    });
    // Registered before start: the server may report "failed" right after `initialized`.
    this.disposables.push(
      client.onNotification("numbaLens/status", (params: ServerStatus) => {
        this.status.update(params);
        if (params.state === "failed" && params.message) {
          this.log.error(params.message);
          this.notify("error", params.message);
        }
      }),
    );
    // The server's window/showMessage goes through numbaLens.showNotifications (and is shown once),
    // instead of the client library's handler that shows every message.
    this.disposables.push(
      client.onNotification(ShowMessageNotification.type, (params) => {
        const kind = params.type === MessageType.Error ? "error" : params.type === MessageType.Warning ? "warning" : "info";
        this.log[kind === "info" ? "info" : kind === "warning" ? "warn" : "error"](params.message);
        this.notify(kind, params.message);
      }),
    );
    try {
      await client.start();
    } catch (error) {
      const message = `The Numba Lens language server did not start with "${choice.command.join(" ")}": ${error instanceof Error ? error.message : String(error)}`;
      this.log.error(message);
      this.status.setClientState({ kind: "failed", message });
      recordEvent("serverFailed", { message });
      this.notify("error", message);
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      return;
    }
    if (!trusted) this.status.setClientState({ kind: "untrusted" });
    recordEvent("serverReady", { interpreter: choice.command, trusted });
    this.log.info("Language server running");
  }

  private onClosed(): { action: CloseAction; handled: boolean } {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    if (this.crashes.length < MAX_CRASHES) {
      this.log.warn(`The language server stopped; restarting (${this.crashes.length}/${MAX_CRASHES - 1}).`);
      return { action: CloseAction.Restart, handled: true };
    }
    const message = `The Numba Lens language server stopped ${MAX_CRASHES} times in 3 minutes and will not be restarted. The log has the details; "Numba Lens: Restart server" tries again.`;
    this.log.error(message);
    this.status.setClientState({ kind: "failed", message });
    recordEvent("serverFailed", { message });
    this.notify("error", message);
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      if (client.state === State.Running) await client.stop(5000);
      await client.dispose(2000);
    } catch (error) {
      this.log.warn(`Stopping the language server: ${String(error)}`);
    }
    this.status.setClientState({ kind: "stopped" });
  }

  /** Tells the running server to re-read numbaLens.* (it pulls them with workspace/configuration). */
  configurationChanged(): void {
    void this.client?.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
  }

  async request<R>(method: string, params: unknown): Promise<R> {
    const client = this.running;
    if (!client) throw new Error("The Numba Lens language server is not running.");
    return client.sendRequest<R>(method, params);
  }

  async dispose(): Promise<void> {
    await this.stop();
    for (const d of this.disposables) d.dispose();
  }
}
