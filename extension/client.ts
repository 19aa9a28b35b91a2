// The language client: `python -m pyserver lsp` over stdio through vscode-languageclient. Start, stop,
// restart (serialised), settings answered from the resolved numbaLens.* values, status and failures.
// What to run (interpreter, environment with the gdb folder) is handed in by the bootstrap each start.
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
import type { ServerLaunch } from "./bootstrap";
import { recordingMiddleware } from "./clientEvents";
import { recordEvent } from "./events";
import { serverSettings, Settings, shouldNotify } from "./settings";
import { ServerStatus, StatusItem } from "./status";

const MAX_CRASHES = 3;
const CRASH_WINDOW_MS = 3 * 60_000;

/** What the client needs from the rest of the extension, passed in rather than looked up. */
export interface ClientDependencies {
  log: vscode.LogOutputChannel;
  status: StatusItem;
  /** The resolved numbaLens.* settings: the server's initialization options and configuration answers. */
  settings(): Settings;
  /** The `pyserver lsp` command to start (asked again on every start: the interpreter may have changed). */
  launch(): Promise<ServerLaunch>;
}

/** Requests to the running server (the IR, type-stability and compiles views). */
export interface ServerRequests {
  request<R>(method: string, params: unknown): Promise<R>;
}

export class LanguageServerClient implements ServerRequests, vscode.Disposable {
  private client: LanguageClient | undefined;
  private pending: Promise<void> = Promise.resolve();
  private crashes: number[] = [];
  /** Messages already shown as notifications: each failure is shown once, not on every status. */
  private readonly shown = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly log: vscode.LogOutputChannel;
  private readonly status: StatusItem;

  constructor(private readonly dependencies: ClientDependencies) {
    this.log = dependencies.log;
    this.status = dependencies.status;
  }

  get state(): string {
    if (!this.client) return "not started";
    return State[this.client.state].toLowerCase();
  }

  /** The running client, for requests; undefined while stopped. */
  private get running(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
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
    if (!shouldNotify(this.dependencies.settings().showNotifications, kind)) return;
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

  private async doStart(): Promise<void> {
    if (this.client) return;
    this.status.setClientState({ kind: "starting" });
    const trusted = vscode.workspace.isTrusted;
    const { command: launch, problem } = await this.dependencies.launch();
    const { command, args, env, choice } = launch;
    if (problem) {
      this.log.error(problem);
      this.status.setClientState({ kind: "failed", message: problem });
      recordEvent("serverFailed", { message: problem });
      this.notify("error", problem, "Open settings");
      return;
    }
    const settings = this.dependencies.settings();

    const folder = vscode.workspace.workspaceFolders?.[0];
    const serverOptions: ServerOptions = {
      command,
      args,
      transport: TransportKind.stdio,
      options: { env, cwd: folder?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      // Notebook cells too: the server syncs them as notebooks and answers per cell.
      documentSelector: [
        { scheme: "file", language: "python" },
        { notebook: "*", language: "python" },
      ],
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
            const resolved = serverSettings(this.dependencies.settings());
            return params.items.map((item) => (item.section === "numbaLens" ? resolved : null));
          },
        },
        ...recordingMiddleware,
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
