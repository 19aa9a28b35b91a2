// The `numba` debugger: configurations (current file without launch.json), the adapter process
// (`python -m pyserver dap` with the chosen interpreter), and the "Debug JIT function" lens command.
import * as path from "node:path";
import * as vscode from "vscode";
import type { Bootstrap } from "./bootstrap";
import { currentFileConfig, DEBUG_TYPE, DebugConfig, jitFunctionLaunch, Mode, MODES, resolveDebugConfig } from "./debugConfig";
import { chooseEntry, Entry, stopTarget } from "./entry";
import { recordEvent } from "./events";
import { Recording } from "./recording";

/** The lens command's argument (the contract's shape). */
export interface DebugJitFunctionArgs {
  uri: string;
  function: string;
  line: number;
  mode?: Mode;
}

const EXCLUDE = "{**/node_modules/**,**/.venv/**,**/venv/**,**/.tox/**,**/site-packages/**,**/.git/**}";
const MAX_CANDIDATES = 2000;

class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly bootstrap: Bootstrap,
    private readonly recording: Recording,
  ) {}

  provideDebugConfigurations(folder: vscode.WorkspaceFolder | undefined): vscode.DebugConfiguration[] {
    const editor = vscode.window.activeTextEditor;
    const configs: vscode.DebugConfiguration[] = [];
    if (editor?.document.languageId === "python" && editor.document.uri.scheme === "file") {
      const file = folder ? path.relative(folder.uri.fsPath, editor.document.uri.fsPath) : editor.document.uri.fsPath;
      configs.push({ ...currentFileConfig("${workspaceFolder}/" + file), name: `Numba: ${path.basename(file)}` } as vscode.DebugConfiguration);
    }
    configs.push({ type: DEBUG_TYPE, request: "launch", name: "Numba: current file", program: "${file}", mode: "mixed" });
    return configs;
  }

  resolveDebugConfiguration(
    _folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): vscode.ProviderResult<vscode.DebugConfiguration> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage("Numba Lens debugging runs the program: trust this workspace first.");
      return undefined;
    }
    if (!config.type && !config.request && !config.name) {
      const editor = vscode.window.activeTextEditor;
      const resolution = resolveDebugConfig(
        {},
        {
          activeFile: editor?.document.uri.scheme === "file" ? editor.document.uri.fsPath : undefined,
          activeLanguage: editor?.document.languageId,
          interpreter: [],
          showInternalFrames: false,
        },
      );
      if ("cancel" in resolution) {
        void vscode.window.showInformationMessage(resolution.cancel);
        return undefined;
      }
      if ("error" in resolution) return undefined;
      return { ...resolution.config, program: resolution.config.program } as vscode.DebugConfiguration;
    }
    return config;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    const editor = vscode.window.activeTextEditor;
    const settings = this.bootstrap.settings();
    const choice = await this.bootstrap.command(["dap"]).then((c) => c.choice);
    const resolution = resolveDebugConfig(config as DebugConfig, {
      activeFile: editor?.document.uri.scheme === "file" ? editor.document.uri.fsPath : undefined,
      activeLanguage: editor?.document.languageId,
      workspaceFolder: (folder ?? vscode.workspace.workspaceFolders?.[0])?.uri.fsPath,
      interpreter: choice.command,
      showInternalFrames: settings.debug.showInternalFrames,
      recordEnvironment: settings.recordSignatures ? this.recording.launchEnvironment() : undefined,
    });
    if ("error" in resolution) {
      recordEvent("debugConfigError", { message: resolution.error });
      // Returning null opens launch.json so the user can fix the configuration.
      void vscode.window.showErrorMessage(`Numba Lens: ${resolution.error}`);
      return config.__fromLens ? undefined : (null as unknown as undefined);
    }
    if ("cancel" in resolution) {
      void vscode.window.showInformationMessage(resolution.cancel);
      return undefined;
    }
    const resolved = resolution.config as vscode.DebugConfiguration;
    delete resolved.__fromLens;
    recordEvent("debugConfig", { config: resolved });
    return resolved;
  }
}

class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(
    private readonly bootstrap: Bootstrap,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async createDebugAdapterDescriptor(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
    const { command, args, env, choice } = await this.bootstrap.command(["dap"]);
    this.log.info(`Debug adapter for "${session.name}": ${[command, ...args].join(" ")} (${choice.reason})`);
    recordEvent("debugAdapter", { command: [command, ...args] });
    return new vscode.DebugAdapterExecutable(command, args, {
      env,
      cwd: session.workspaceFolder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    });
  }
}

/** In test mode, every DAP message summarised into the event log (what the e2e test asserts on). */
function summarise(message: Record<string, unknown>): Record<string, unknown> {
  const body = (message.body ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = { type: message.type, command: message.command, dapEvent: message.event };
  if (message.type === "response") {
    out.success = message.success;
    if (message.message) out.message = message.message;
    if (message.command === "stackTrace") {
      out.frames = ((body.stackFrames ?? []) as { id: number; name: string; line: number; source?: { path?: string } }[]).map((f) => ({
        id: f.id,
        name: f.name,
        line: f.line,
        path: f.source?.path,
      }));
    } else if (message.command === "variables") {
      out.variables = ((body.variables ?? []) as { name: string; value: string; type?: string }[]).map((v) => ({
        name: v.name,
        value: v.value,
        type: v.type,
      }));
    } else if (message.command === "scopes") {
      out.scopes = ((body.scopes ?? []) as { name: string }[]).map((s) => s.name);
    } else if (message.command === "threads") {
      out.threads = body.threads;
    }
  } else if (message.type === "event") {
    if (message.event === "stopped") out.body = body;
    else if (message.event === "output") out.output = String(body.output ?? "").slice(0, 500);
    else if (message.event === "breakpoint" || message.event === "exited" || message.event === "terminated") out.body = body;
  } else if (message.type === "request") {
    out.arguments = message.arguments;
  }
  return out;
}

async function pickEntry(current: vscode.TextDocument, functionName: string): Promise<Entry | undefined> {
  const files = await vscode.workspace.findFiles("**/*.py", EXCLUDE, MAX_CANDIDATES);
  const candidates: { path: string; source: string }[] = [];
  for (const uri of files) {
    if (uri.fsPath === current.uri.fsPath) continue;
    try {
      candidates.push({ path: uri.fsPath, source: new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)) });
    } catch {
      // A file that vanished or cannot be read is simply not offered.
    }
  }
  const choice = chooseEntry({ path: current.uri.fsPath, source: current.getText() }, functionName, candidates);
  recordEvent("entryChoice", { kind: choice.kind });
  if (choice.kind === "current") return choice.entry;
  if (choice.kind === "none") {
    void vscode.window.showWarningMessage(
      `"${functionName}" is in a file without an \`if __name__ == "__main__":\` block, and no script or test in the workspace can run it. Add one, or write a launch configuration with "stopAtJitFunction": "${functionName}".`,
    );
    return undefined;
  }
  const root = vscode.workspace.getWorkspaceFolder(current.uri)?.uri.fsPath;
  const picked = await vscode.window.showQuickPick(
    choice.entries.map((entry) => ({
      label: `${entry.kind === "test" ? "$(beaker)" : "$(play)"} ${root ? path.relative(root, entry.path) : entry.path}`,
      description: entry.detail,
      entry,
    })),
    { title: `Debug JIT function ${functionName}: what should run?`, placeHolder: "A script or a test file that calls it" },
  );
  return picked?.entry;
}

/** The "Debug JIT function" lens: run the file's entry and stop at the function's first line. */
export async function debugJitFunction(args: DebugJitFunctionArgs | undefined): Promise<boolean> {
  const target = args ?? (await jitFunctionAtCursor());
  if (!target) {
    void vscode.window.showInformationMessage("Put the cursor in a jitted function (or use its \"Debug JIT function\" lens).");
    return false;
  }
  recordEvent("debugJitFunction", { ...target });
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage("Debugging runs the program: trust this workspace first.");
    return false;
  }
  const uri = vscode.Uri.parse(target.uri);
  const document = await vscode.workspace.openTextDocument(uri);
  if (document.isDirty) await document.save();
  const entry = await pickEntry(document, target.function);
  if (!entry) return false;
  const folder = vscode.workspace.getWorkspaceFolder(entry.kind === "script" ? vscode.Uri.file(entry.path) : uri);
  const mode: Mode = target.mode && (MODES as readonly string[]).includes(target.mode) ? target.mode : "mixed";
  const stopAt = stopTarget(target.function, uri.fsPath, entry, folder?.uri.fsPath);
  const config = { ...jitFunctionLaunch(entry, stopAt, mode, folder?.uri.fsPath), __fromLens: true };
  return vscode.debug.startDebugging(folder, config as vscode.DebugConfiguration);
}

/** Without arguments (command palette): the function whose lens is at or above the cursor. */
async function jitFunctionAtCursor(): Promise<DebugJitFunctionArgs | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "python") return undefined;
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", editor.document.uri, 100)) ?? [];
  const cursor = editor.selection.active.line;
  let best: DebugJitFunctionArgs | undefined;
  let bestLine = -1;
  for (const lens of lenses) {
    if (lens.command?.command !== "numbaLens.debugJitFunction") continue;
    const arg = lens.command.arguments?.[0] as DebugJitFunctionArgs | undefined;
    const line = lens.range.start.line;
    if (arg && line <= cursor && line > bestLine) {
      best = arg;
      bestLine = line;
    }
  }
  return best;
}

export function registerDebugging(
  context: vscode.ExtensionContext,
  bootstrap: Bootstrap,
  recording: Recording,
  log: vscode.LogOutputChannel,
): void {
  const provider = new ConfigurationProvider(bootstrap, recording);
  context.subscriptions.push(
    // Three registrations so that resolution runs once: initial configurations (launch.json creation),
    // resolution, and the dynamic list in the Run view's drop-down.
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      { provideDebugConfigurations: (f) => provider.provideDebugConfigurations(f) },
      vscode.DebugConfigurationProviderTriggerKind.Initial,
    ),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, {
      resolveDebugConfiguration: (f, c) => provider.resolveDebugConfiguration(f, c),
      resolveDebugConfigurationWithSubstitutedVariables: (f, c) => provider.resolveDebugConfigurationWithSubstitutedVariables(f, c),
    }),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      { provideDebugConfigurations: (f) => provider.provideDebugConfigurations(f) },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, new AdapterFactory(bootstrap, log)),
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
      createDebugAdapterTracker: (session) => ({
        onWillReceiveMessage: (message: Record<string, unknown>) => recordEvent("dap", { session: session.id, ...summarise(message) }),
        onDidSendMessage: (message: Record<string, unknown>) => recordEvent("dap", { session: session.id, ...summarise(message) }),
        onError: (error: Error) => {
          // "read error" is the adapter's stdout closing as the session ends: not worth an error line.
          if (error.message === "read error") log.debug("Debug adapter stream closed");
          else log.error(`Debug adapter error: ${error.message}`);
          recordEvent("dapError", { message: error.message });
        },
        onExit: (code: number | undefined, signal: string | undefined) => recordEvent("dapExit", { code, signal }),
      }),
    }),
  );
}
