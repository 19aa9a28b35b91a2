// The interpreter that runs pyserver: numbaLens.interpreter, else the Python extension's active
// interpreter (followed when the user switches), else python3. The choice itself is in interpreter.ts.
import * as vscode from "vscode";
import { PythonExtension } from "@vscode/python-extension";
import { chooseInterpreter, InterpreterChoice } from "./interpreter";
import { resolveSettings } from "./settings";

const PYTHON_EXTENSION_ID = "ms-python.python";

export class PythonInterpreter implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the Python extension's active interpreter changes, or the extension comes or goes. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private api: PythonExtension | undefined;
  private apiFailed = false;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.disposables.push(
      vscode.extensions.onDidChange(() => {
        const present = vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
        if (present !== (this.api !== undefined)) {
          this.api = undefined;
          this.apiFailed = false;
          this.changed.fire();
        }
      }),
    );
  }

  private async pythonApi(): Promise<PythonExtension | undefined> {
    if (this.api || this.apiFailed) return this.api;
    if (!vscode.extensions.getExtension(PYTHON_EXTENSION_ID)) return undefined;
    try {
      this.api = await PythonExtension.api();
      this.disposables.push(
        this.api.environments.onDidChangeActiveEnvironmentPath((event) => {
          this.log.info(`Python extension: active interpreter is now ${event.path}`);
          this.changed.fire();
        }),
      );
    } catch (error) {
      this.apiFailed = true;
      this.log.warn(`Python extension present but its API failed: ${String(error)}`);
    }
    return this.api;
  }

  /** The Python extension's interpreter executable for the resource, if that extension is installed. */
  private async fromPythonExtension(resource: vscode.Uri | undefined): Promise<string | undefined> {
    const api = await this.pythonApi();
    if (!api) return undefined;
    try {
      const active = api.environments.getActiveEnvironmentPath(resource);
      const resolved = await api.environments.resolveEnvironment(active);
      return resolved?.executable.uri?.fsPath ?? active.path;
    } catch (error) {
      this.log.warn(`Python extension could not resolve the interpreter: ${String(error)}`);
      return undefined;
    }
  }

  async choose(resource?: vscode.Uri): Promise<InterpreterChoice> {
    const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : vscode.workspace.workspaceFolders?.[0];
    const { settings } = resolveSettings(vscode.workspace.getConfiguration("numbaLens", folder?.uri ?? resource), {
      workspaceFolder: folder?.uri.fsPath,
    });
    const trusted = vscode.workspace.isTrusted;
    return chooseInterpreter({
      setting: settings.interpreter,
      pythonExtension: settings.interpreter.length === 0 ? await this.fromPythonExtension(resource ?? folder?.uri) : undefined,
      trusted,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
