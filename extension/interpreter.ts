// Which Python runs the server and the debug adapter. No `vscode` import (unit-tested under node).
import * as path from "node:path";

export type InterpreterSource = "numbaLens.interpreter" | "Python extension" | "default";

export interface InterpreterChoice {
  /** The command: an executable, possibly followed by arguments (e.g. `conda run -n env python`). */
  command: string[];
  source: InterpreterSource;
  /** Why this one, for the log and "Show debug information". */
  reason: string;
}

export interface InterpreterInputs {
  /** numbaLens.interpreter, already resolved (variables substituted). */
  setting: string[];
  /** The Python extension's active interpreter for the resource, when that extension is installed. */
  pythonExtension?: string;
  trusted: boolean;
  /** Workspace folders: in an untrusted workspace an interpreter inside one of them is never run. */
  workspaceFolders?: string[];
  defaultCommand?: string[];
}

export const DEFAULT_INTERPRETER = process.platform === "win32" ? ["python"] : ["python3"];

function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * numbaLens.interpreter, else the Python extension's choice, else python3. In an untrusted workspace the
 * Python extension's choice (often the workspace's own .venv) is skipped: running a binary that the
 * workspace ships is running the workspace's code.
 */
export function chooseInterpreter(inputs: InterpreterInputs): InterpreterChoice {
  const fallback = inputs.defaultCommand ?? DEFAULT_INTERPRETER;
  if (inputs.setting.length > 0) {
    return { command: inputs.setting, source: "numbaLens.interpreter", reason: "set in numbaLens.interpreter" };
  }
  if (inputs.pythonExtension) {
    const insideWorkspace = (inputs.workspaceFolders ?? []).some((f) => isInside(inputs.pythonExtension!, f));
    if (inputs.trusted || !insideWorkspace) {
      return {
        command: [inputs.pythonExtension],
        source: "Python extension",
        reason: "the Python extension's selected interpreter",
      };
    }
    return {
      command: fallback,
      source: "default",
      reason: `untrusted workspace: not running ${inputs.pythonExtension} from inside the workspace`,
    };
  }
  return { command: fallback, source: "default", reason: "no numbaLens.interpreter and no Python extension" };
}

/** The single executable of a command, when it is one (the debug launch's `python` attribute needs a path). */
export function singleExecutable(command: string[]): string | undefined {
  return command.length === 1 ? command[0] : undefined;
}

/** Environment for `python -m pyserver ...`: with useBundled, the bundled libraries come first on sys.path. */
export function serverEnvironment(
  importStrategy: "useBundled" | "fromEnvironment",
  bundledLibs: string,
  base: Record<string, string | undefined>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  // The protocol stream must not be buffered or mixed with warnings written by the interpreter itself.
  env.PYTHONUNBUFFERED = "1";
  env.PYTHONIOENCODING = "utf-8";
  if (importStrategy === "useBundled") {
    env.PYTHONPATH = base.PYTHONPATH ? `${bundledLibs}${path.delimiter}${base.PYTHONPATH}` : bundledLibs;
  }
  return env;
}
