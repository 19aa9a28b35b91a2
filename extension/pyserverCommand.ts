// The command line and environment of `python -m pyserver <subcommand>` for a chosen interpreter, and
// what the interpreter probe's answer means. No `vscode` import (unit-tested under node).
import { EVENTS_ENV } from "./events";
import { withGdbHome } from "./gdbInstall";
import { ImportStrategy } from "./settings";
import { InterpreterChoice, serverEnvironment } from "./interpreter";

/** `python -m pyserver <subcommand>` ready to spawn, with the interpreter choice it came from. */
export interface PyserverCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  choice: InterpreterChoice;
}

/** Where the server's environment comes from, besides the extension host's own. */
export interface EnvironmentInputs {
  importStrategy: ImportStrategy;
  bundledLibs: string;
  /** The extension's gdb folder, searched by the adapter and the doctor (and filled by doctor --fix). */
  gdbHome: string | undefined;
}

/**
 * The environment of every pyserver process: the bundled libraries first on sys.path (useBundled), the
 * extension's gdb folder unless the user names one, and never the test-mode event log (the extension's
 * own, which a child must not append to).
 */
export function pyserverEnvironment(inputs: EnvironmentInputs, base: Record<string, string | undefined>): Record<string, string> {
  const env = withGdbHome(serverEnvironment(inputs.importStrategy, inputs.bundledLibs, base), inputs.gdbHome);
  delete env[EVENTS_ENV];
  return env;
}

/** The interpreter command (possibly `conda run -n env python`) followed by `-m pyserver <subcommand>`. */
export function pyserverCommand(choice: InterpreterChoice, subcommand: string[], env: Record<string, string>): PyserverCommand {
  return { command: choice.command[0], args: [...choice.command.slice(1), "-m", "pyserver", ...subcommand], env, choice };
}

/** The probe run before the language server: the interpreter prints its version, nothing is imported. */
export const VERSION_SCRIPT = "import sys; print('%d.%d' % sys.version_info[:2])";

export function probeCommand(choice: InterpreterChoice): { command: string; args: string[] } {
  return { command: choice.command[0], args: [...choice.command.slice(1), "-c", VERSION_SCRIPT] };
}

/** What the probe process gave back: an error (with the spawn error's code, if any), or its output. */
export interface ProbeOutcome {
  error?: { code?: string | number; text: string };
  stdout: string;
  stderr: string;
}

/** One clear message when the interpreter does not start or is too old, instead of a server crash. */
export function probeProblem(executable: string, outcome: ProbeOutcome): string | undefined {
  if (outcome.error) {
    return outcome.error.code === "ENOENT"
      ? `The Python interpreter "${executable}" was not found. Set numbaLens.interpreter to a Python with Numba, or select one with the Python extension.`
      : `The Python interpreter "${executable}" failed to start: ${(outcome.stderr || outcome.error.text).trim().split("\n").pop()}`;
  }
  const [major, minor] = outcome.stdout.trim().split(".").map(Number);
  if (!(major > 3 || (major === 3 && minor >= 10))) {
    return `Numba Lens needs Python 3.10 or newer; "${executable}" is Python ${outcome.stdout.trim()}. Set numbaLens.interpreter.`;
  }
  return undefined;
}
