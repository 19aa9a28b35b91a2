// Resolution of `numba` debug configurations: defaults, validation and the current-file fallback.
// No `vscode` import: the shapes are plain objects, unit-tested under node.
import * as path from "node:path";

export const DEBUG_TYPE = "numba";
export const MODES = ["mixed", "python", "cudasim"] as const;
export const CONSOLES = ["internalConsole", "integratedTerminal"] as const;
export type Mode = (typeof MODES)[number];

/** A debug configuration as VS Code hands it over (launch.json, snippets, or the lens command). */
export interface DebugConfig {
  type?: string;
  request?: string;
  name?: string;
  [key: string]: unknown;
}

export interface DebugContext {
  /** The active editor's file and language, for the "no launch.json" case. */
  activeFile?: string;
  activeLanguage?: string;
  workspaceFolder?: string;
  /** The interpreter command the extension chose (numbaLens.interpreter / Python extension / python3). */
  interpreter: string[];
  /** numbaLens.debug.showInternalFrames */
  showInternalFrames: boolean;
  /** Variables that make the program record signatures (numbaLens.recordSignatures), if on. */
  recordEnvironment?: Record<string, string>;
}

export type Resolution = { config: DebugConfig } | { error: string } | { cancel: string };

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string" || v === null)
  );
}

/** Splits a command line on whitespace, honouring simple single and double quotes. */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(line)) !== null) out.push(match[1] ?? match[2] ?? match[3]);
  return out;
}

/** A launch of the current file: what F5 does without a launch.json. */
export function currentFileConfig(file: string): DebugConfig {
  return {
    type: DEBUG_TYPE,
    request: "launch",
    name: `Numba: ${path.basename(file)}`,
    program: file,
    mode: "mixed",
  };
}

/**
 * Fills defaults and validates, as `resolveDebugConfiguration` does. Errors are sentences a user can act
 * on; nothing is guessed silently.
 */
export function resolveDebugConfig(input: DebugConfig, ctx: DebugContext): Resolution {
  let config: DebugConfig = { ...input };
  if (!config.type && !config.request && !config.name) {
    // F5 without launch.json: debug the active Python file.
    if (!ctx.activeFile || (ctx.activeLanguage && ctx.activeLanguage !== "python")) {
      return { cancel: "Open a Python file to debug it with Numba Lens, or add a launch.json configuration." };
    }
    config = currentFileConfig(ctx.activeFile);
  }
  config.type = DEBUG_TYPE;
  config.request ??= "launch";
  config.name ??= "Numba";

  if (config.request !== "launch" && config.request !== "attach") {
    return { error: `"request" must be "launch" or "attach", not ${JSON.stringify(config.request)}.` };
  }

  const mode = config.mode ?? "mixed";
  if (!(MODES as readonly unknown[]).includes(mode)) {
    return { error: `"mode" must be one of ${MODES.join(", ")}; got ${JSON.stringify(mode)}.` };
  }
  config.mode = mode;

  if (config.showInternalFrames === undefined) config.showInternalFrames = ctx.showInternalFrames;
  if (config.justMyCode === undefined) config.justMyCode = true;
  for (const key of ["stopOnEntry", "justMyCode", "showInternalFrames", "boundscheck", "reverse"]) {
    if (config[key] !== undefined && typeof config[key] !== "boolean") {
      return { error: `"${key}" must be true or false; got ${JSON.stringify(config[key])}.` };
    }
  }
  if (config.gdbPath !== undefined && (typeof config.gdbPath !== "string" || config.gdbPath === "")) {
    return { error: `"gdbPath" must be the path or name of gdb.` };
  }
  if (config.python === undefined) {
    // The debuggee runs on the interpreter the rest of the extension uses, unless the user says otherwise.
    if (ctx.interpreter.length === 1) config.python = ctx.interpreter[0];
  } else if (typeof config.python !== "string" || config.python === "") {
    return { error: `"python" must be the path of a Python interpreter.` };
  }

  if (config.request === "attach") return resolveAttach(config);

  const hasProgram = typeof config.program === "string" && config.program !== "";
  const hasModule = typeof config.module === "string" && config.module !== "";
  if (hasProgram === hasModule) {
    return {
      error: hasProgram
        ? `Give either "program" or "module", not both.`
        : `Add "program" (a script path) or "module" (a module name such as "pytest") to the configuration.`,
    };
  }
  if (config.program !== undefined && config.program !== "" && typeof config.program !== "string") {
    return { error: `"program" must be a path.` };
  }
  if (hasProgram && ctx.workspaceFolder && !path.isAbsolute(config.program as string)) {
    config.program = path.join(ctx.workspaceFolder, config.program as string);
  }

  if (config.args === undefined) config.args = [];
  else if (typeof config.args === "string") config.args = splitArgs(config.args);
  else if (!Array.isArray(config.args) || !config.args.every((a) => typeof a === "string")) {
    return { error: `"args" must be a list of strings.` };
  }

  if (config.cwd === undefined) {
    config.cwd = ctx.workspaceFolder ?? (hasProgram ? path.dirname(config.program as string) : undefined);
  } else if (typeof config.cwd !== "string") {
    return { error: `"cwd" must be a folder path.` };
  }

  if (config.env !== undefined && !isStringRecord(config.env)) {
    return { error: `"env" must map variable names to strings.` };
  }
  if (ctx.recordEnvironment && Object.keys(ctx.recordEnvironment).length > 0) {
    config.env = mergeEnvironment(ctx.recordEnvironment, (config.env as Record<string, string>) ?? {});
  }

  const numbaOpt = config.numbaOpt ?? 0;
  if (typeof numbaOpt !== "number" || !Number.isInteger(numbaOpt) || numbaOpt < 0 || numbaOpt > 3) {
    return { error: `"numbaOpt" must be an integer from 0 to 3 (Numba's NUMBA_OPT); got ${JSON.stringify(numbaOpt)}.` };
  }
  config.numbaOpt = numbaOpt;

  const consoleKind = config.console ?? "internalConsole";
  if (!(CONSOLES as readonly unknown[]).includes(consoleKind)) {
    return { error: `"console" must be one of ${CONSOLES.join(", ")}; got ${JSON.stringify(consoleKind)}.` };
  }
  config.console = consoleKind;
  config.stopOnEntry ??= false;

  if (config.stopAtJitFunction !== undefined) {
    if (typeof config.stopAtJitFunction !== "string" || !/^[A-Za-z_][\w.]*(::[A-Za-z_][\w.]*)*$/.test(config.stopAtJitFunction)) {
      return { error: `"stopAtJitFunction" must be a jitted function's qualified name, such as "walk", "Point.norm" or "kernels::walk".` };
    }
  }
  return { config };
}

function resolveAttach(config: DebugConfig): Resolution {
  const hasPid = config.processId !== undefined && config.processId !== "";
  const hasPort = config.port !== undefined;
  if (hasPid === hasPort) {
    return {
      error: hasPid
        ? `Give either "processId" or "host"/"port", not both.`
        : `Attach needs "processId" (a process to attach gdb and debugpy to) or "port" (where debugpy listens).`,
    };
  }
  if (hasPid) {
    const pid = typeof config.processId === "string" ? Number(config.processId) : config.processId;
    if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) {
      return { error: `"processId" must be a process id; got ${JSON.stringify(config.processId)}.` };
    }
    config.processId = pid;
  } else {
    const port = typeof config.port === "string" ? Number(config.port) : config.port;
    if (typeof port !== "number" || !Number.isInteger(port) || port <= 0 || port > 65535) {
      return { error: `"port" must be a TCP port; got ${JSON.stringify(config.port)}.` };
    }
    config.port = port;
    config.host ??= "127.0.0.1";
  }
  return { config };
}

/**
 * Adds the recording variables to a launch's env. A PYTHONPATH the user set keeps its entries after the
 * recording hook's; any other variable the user set wins.
 */
export function mergeEnvironment(recording: Record<string, string>, user: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...recording, ...user };
  if (recording.PYTHONPATH && user.PYTHONPATH) {
    out.PYTHONPATH = `${recording.PYTHONPATH}${path.delimiter}${user.PYTHONPATH}`;
  }
  return out;
}

/** The launch the "Debug JIT function" lens starts for an entry (a script or a test file). */
export function jitFunctionLaunch(
  entry: { path: string; kind: "script" | "test" },
  functionName: string,
  mode: Mode,
  workspaceFolder: string | undefined,
): DebugConfig {
  const base: DebugConfig = {
    type: DEBUG_TYPE,
    request: "launch",
    name: `Debug JIT function ${functionName}`,
    mode,
    stopAtJitFunction: functionName,
    cwd: workspaceFolder ?? path.dirname(entry.path),
  };
  if (entry.kind === "test") return { ...base, module: "pytest", args: ["-q", "-p", "no:cacheprovider", entry.path] };
  return { ...base, program: entry.path };
}
