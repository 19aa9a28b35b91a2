// A working gdb in one click: when a launch or the doctor finds no gdb, or a gdb 15.x that cannot see
// Numba's jitted code (fixed in gdb 16), offer to install gdb-for-pwndbg from PyPI for the interpreter
// in use, by running `python -m pyserver doctor --fix` (pyserver/gdb_install.py). Installed into the
// extension's own folder (NUMBA_LENS_GDB_HOME, which the adapter and the doctor then search) or into the
// user's environment; no setting is edited. No `vscode` import: the UI comes in as `OfferUi`.

export type GdbProblem = "cannot-see-jit" | "missing" | "requested";

/** The variable through which the adapter and the doctor find the gdb installed for the extension. */
export const GDB_HOME_VARIABLE = "NUMBA_LENS_GDB_HOME";
export const INSTALL_FOR_EXTENSION = "Install gdb (Numba Lens folder)";
export const INSTALL_INTO_ENVIRONMENT = "Install into my environment";
export const NOT_NOW = "Not now";
export const DEBUG_AGAIN = "Debug again";

/** Which gdb problem an adapter error or a doctor report describes, if any (the texts are the adapter's
 * and the doctor's own: pyserver/debug/session/launch.py, pyserver/doctor.py). */
export function gdbProblem(text: string): GdbProblem | undefined {
  if (/cannot see Numba's jitted code/.test(text)) return "cannot-see-jit";
  if (/gdb not found/.test(text)) return "missing";
  return undefined;
}

/** The doctor's arguments for the chosen place. */
export function doctorFixArgs(choice: string): string[] {
  return choice === INSTALL_INTO_ENVIRONMENT ? ["doctor", "--fix", "--into-environment"] : ["doctor", "--fix"];
}

/** The environment with the extension's gdb folder, unless the user's environment names one already. */
export function withGdbHome(env: Record<string, string>, home: string | undefined): Record<string, string> {
  if (home && !env[GDB_HOME_VARIABLE]) env[GDB_HOME_VARIABLE] = home;
  return env;
}

/** "installed gdb 18.1 at /path/bin/gdb" from doctor --fix's output. */
export function installedGdb(output: string): { version: string; path: string } | undefined {
  const match = /installed gdb (\S+) at (.+?); /.exec(output);
  return match ? { version: match[1], path: match[2] } : undefined;
}

export interface OfferUi {
  ask(message: string, ...choices: string[]): Promise<string | undefined>;
  progress<T>(title: string, task: () => Promise<T>): Promise<T>;
  info(message: string, ...choices: string[]): Promise<string | undefined>;
  error(message: string): void;
}

export type DoctorRunner = (args: string[]) => Promise<{ code: number; output: string }>;

export type OfferResult =
  | { kind: "declined" }
  | { kind: "busy" }
  | { kind: "failed"; output: string }
  | { kind: "installed"; version: string; path: string; debugAgain: boolean };

let inFlight = false;

/** One offer at a time (a second failing launch while one is open gets no second notification). */
export async function offerGdbInstall(problem: GdbProblem, python: string, ui: OfferUi, runDoctor: DoctorRunner): Promise<OfferResult> {
  if (inFlight) return { kind: "busy" };
  inFlight = true;
  try {
    const why = {
      "cannot-see-jit": "This gdb cannot see Numba's jitted code (gdb 15.x; fixed in gdb 16).",
      missing: "No gdb was found.",
      requested: "Numba Lens can install a gdb that sees Numba's jitted code.",
    }[problem];
    const choice = await ui.ask(
      `${why} Install a gdb that can (gdb-for-pwndbg from PyPI, about 13 MB) for ${python}?`,
      INSTALL_FOR_EXTENSION,
      INSTALL_INTO_ENVIRONMENT,
      NOT_NOW,
    );
    if (choice !== INSTALL_FOR_EXTENSION && choice !== INSTALL_INTO_ENVIRONMENT) return { kind: "declined" };
    const { code, output } = await ui.progress("Numba Lens: installing gdb from PyPI…", () => runDoctor(doctorFixArgs(choice)));
    const installed = installedGdb(output);
    if (!installed) {
      ui.error(`Numba Lens could not install gdb (doctor exit status ${code}):\n${output.trim().slice(-1500)}`);
      return { kind: "failed", output };
    }
    const again = await ui.info(`gdb ${installed.version} installed (${installed.path}). Numba Lens uses it from now on.`, DEBUG_AGAIN);
    return { kind: "installed", ...installed, debugAgain: again === DEBUG_AGAIN };
  } finally {
    inFlight = false;
  }
}
