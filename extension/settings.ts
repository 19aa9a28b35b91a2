// Settings under `numbaLens.*`: names, defaults and resolution. No `vscode` import, so the unit tests
// run under plain node; callers pass a `get` accessor (a WorkspaceConfiguration fits).
import * as os from "node:os";
import * as path from "node:path";

export type ImportStrategy = "useBundled" | "fromEnvironment";
export type NotificationLevel = "off" | "onError" | "onWarning" | "always";
export type SeverityOverride = "error" | "warning" | "information" | "hint" | "off";

/** What the language server reads (the contract's server settings). */
export interface ServerSettings {
  analyzeOnType: boolean;
  analyzeOnTypeDelay: number;
  timeout: number;
  inlayHints: { variableTypes: boolean; returnTypes: boolean; maxLength: number };
  codeLens: { enable: boolean };
  signatureFiles: string[];
  severity: Record<string, SeverityOverride>;
  /** How much of a module runs when it is loaded for analysis: only its definitions (default) or all. */
  moduleLoading: "definitions" | "full";
  /** Hint-severity type-instability diagnostics (Optional, reflected lists, 'A' layout in loops, ...). */
  typeHints: boolean;
}

/** Everything, client-only settings included. */
export interface Settings extends ServerSettings {
  interpreter: string[];
  importStrategy: ImportStrategy;
  showNotifications: NotificationLevel;
  recordSignatures: boolean;
  debug: { showInternalFrames: boolean };
}

export const DEFAULTS: Readonly<Settings> = Object.freeze({
  analyzeOnType: false,
  analyzeOnTypeDelay: 500,
  timeout: 20,
  inlayHints: { variableTypes: true, returnTypes: true, maxLength: 30 },
  codeLens: { enable: true },
  signatureFiles: [],
  severity: {},
  moduleLoading: "definitions",
  typeHints: false,
  interpreter: [],
  importStrategy: "useBundled",
  showNotifications: "onError",
  recordSignatures: false,
  debug: { showInternalFrames: false },
});

/** Settings whose change needs a new server process (the others are re-read by the running server). */
export const RESTART_SETTINGS = ["interpreter", "importStrategy"] as const;

export interface ConfigurationLike {
  get<T>(key: string): T | undefined;
}

export interface ResolveContext {
  workspaceFolder?: string;
  env?: Record<string, string | undefined>;
  home?: string;
}

export interface Resolved {
  settings: Settings;
  /** One line per ignored value, for the log. */
  problems: string[];
}

const SEVERITIES: readonly SeverityOverride[] = ["error", "warning", "information", "hint", "off"];

/**
 * Substitutes `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`, like the Python tool
 * extensions do for their path settings.
 */
export function substituteVariables(value: string, ctx: ResolveContext): string {
  const home = ctx.home ?? os.homedir();
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name, env) => {
    if (name === "workspaceFolder") return ctx.workspaceFolder ?? whole;
    if (name === "userHome") return home;
    return (ctx.env ?? process.env)[env as string] ?? "";
  });
  if (out === "~" || out.startsWith("~/")) out = home + out.slice(1);
  return out;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

export function resolveSettings(config: ConfigurationLike, ctx: ResolveContext = {}): Resolved {
  const problems: string[] = [];
  const pick = <T>(key: string, fallback: T, valid: (v: unknown) => boolean): T => {
    const value = config.get<unknown>(key);
    if (value === undefined || value === null) return fallback;
    if (!valid(value)) {
      problems.push(`numbaLens.${key}: ignoring ${JSON.stringify(value)}; using ${JSON.stringify(fallback)}`);
      return fallback;
    }
    return value as T;
  };
  const bool = (v: unknown) => typeof v === "boolean";
  const number = (min: number, max: number) => (v: unknown) =>
    typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;
  const oneOf = (values: readonly string[]) => (v: unknown) => typeof v === "string" && values.includes(v);

  const interpreter = pick<string[]>("interpreter", [], isStringArray)
    .map((part) => substituteVariables(part, ctx))
    .filter((part) => part.length > 0);
  const signatureFiles = pick<string[]>("signatureFiles", [], isStringArray).map((file) => {
    const expanded = substituteVariables(file, ctx);
    return ctx.workspaceFolder && !path.isAbsolute(expanded) ? path.join(ctx.workspaceFolder, expanded) : expanded;
  });

  const rawSeverity = pick<Record<string, unknown>>(
    "severity",
    {},
    (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  );
  const severity: Record<string, SeverityOverride> = {};
  for (const [code, level] of Object.entries(rawSeverity)) {
    if (typeof level === "string" && (SEVERITIES as readonly string[]).includes(level)) {
      severity[code] = level as SeverityOverride;
    } else {
      problems.push(`numbaLens.severity.${code}: ignoring ${JSON.stringify(level)} (use ${SEVERITIES.join("|")})`);
    }
  }

  const settings: Settings = {
    analyzeOnType: pick("analyzeOnType", DEFAULTS.analyzeOnType, bool),
    analyzeOnTypeDelay: pick("analyzeOnTypeDelay", DEFAULTS.analyzeOnTypeDelay, number(0, 60_000)),
    timeout: pick("timeout", DEFAULTS.timeout, number(1, 3600)),
    inlayHints: {
      variableTypes: pick("inlayHints.variableTypes", DEFAULTS.inlayHints.variableTypes, bool),
      returnTypes: pick("inlayHints.returnTypes", DEFAULTS.inlayHints.returnTypes, bool),
      maxLength: pick("inlayHints.maxLength", DEFAULTS.inlayHints.maxLength, number(1, 1000)),
    },
    codeLens: { enable: pick("codeLens.enable", DEFAULTS.codeLens.enable, bool) },
    signatureFiles,
    severity,
    moduleLoading: pick("moduleLoading", DEFAULTS.moduleLoading, oneOf(["definitions", "full"])),
    typeHints: pick("typeHints", DEFAULTS.typeHints, bool),
    interpreter,
    importStrategy: pick("importStrategy", DEFAULTS.importStrategy, oneOf(["useBundled", "fromEnvironment"])),
    showNotifications: pick(
      "showNotifications",
      DEFAULTS.showNotifications,
      oneOf(["off", "onError", "onWarning", "always"]),
    ),
    recordSignatures: pick("recordSignatures", DEFAULTS.recordSignatures, bool),
    debug: { showInternalFrames: pick("debug.showInternalFrames", DEFAULTS.debug.showInternalFrames, bool) },
  };
  return { settings, problems };
}

/** The object the server gets in initializationOptions and in workspace/configuration answers. */
export function serverSettings(settings: Settings): ServerSettings & Partial<Settings> {
  // The server ignores client-only keys, but sending them costs nothing and helps its log.
  return JSON.parse(JSON.stringify(settings)) as Settings;
}

/** Whether a message of this level is shown as a notification under the user's choice. */
export function shouldNotify(level: NotificationLevel, kind: "error" | "warning" | "info"): boolean {
  switch (level) {
    case "off":
      return false;
    case "onError":
      return kind === "error";
    case "onWarning":
      return kind === "error" || kind === "warning";
    case "always":
      return true;
  }
}

/** True when a change of these dotted keys needs a new server process. */
export function needsRestart(changed: (key: string) => boolean): boolean {
  return RESTART_SETTINGS.some((key) => changed(`numbaLens.${key}`));
}
