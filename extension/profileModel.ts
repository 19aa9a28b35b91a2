// The profile `python -m pyserver profile --format json` writes, and what the editor shows of it: heat
// per line, hot spots per function, and line numbers that follow edits. No vscode import: unit-tested.

export interface ProfileLine {
  path: string;
  line: number; // 1-based
  function: string;
  jitted: boolean;
  samples: number;
  fraction: number;
  taken?: number; // the samples actually taken: fewer than `samples` when a worker stood for its pool
}

export interface ProfileFunction {
  path: string | null;
  name: string;
  signature: string | null;
  jitted: boolean;
  samples: number;
  fraction: number;
  total_samples?: number;
}

export interface ProfileThread {
  id: number;
  name: string;
  samples: number;
}

export interface ProfileCompile {
  path: string | null;
  name: string | null;
  signature: string;
  seconds: number;
}

export interface Profile {
  samples: number;
  duration_s: number;
  rate_hz: number;
  lines: ProfileLine[];
  functions: ProfileFunction[];
  threads: ProfileThread[];
  compile: ProfileCompile[];
  exit_code?: number;
  unknown_line_samples?: number;
}

/** Parses and checks the contract's top-level shape; throws with what is missing. */
export function parseProfile(text: string): Profile {
  const data = JSON.parse(text) as Partial<Profile>;
  for (const key of ["samples", "duration_s", "rate_hz", "lines", "functions", "threads", "compile"] as const) {
    if (data[key] === undefined) throw new Error(`the profile has no "${key}"`);
  }
  return data as Profile;
}

/** One line's heat: 0-based line, percent of all samples, and the label shown after the line. */
export interface LineHeat {
  line: number;
  percent: number;
  jitted: boolean;
  label: string;
}

export function formatPercent(fraction: number): string {
  const percent = 100 * fraction;
  if (percent >= 10) return `${percent.toFixed(0)}%`;
  if (percent >= 0.1) return `${percent.toFixed(1)}%`;
  return "<0.1%";
}

/** The heat of one file's lines (several entries for a line, jitted and not, are added up). */
export function heatForFile(profile: Profile, fsPath: string): LineHeat[] {
  const byLine = new Map<number, { fraction: number; jitted: boolean; samples: number; taken: number }>();
  for (const entry of profile.lines) {
    if (entry.path !== fsPath || entry.line < 1) continue;
    const current = byLine.get(entry.line) ?? { fraction: 0, jitted: false, samples: 0, taken: 0 };
    current.fraction += entry.fraction;
    current.samples += entry.samples;
    current.taken += entry.taken ?? entry.samples;
    current.jitted ||= entry.jitted;
    byLine.set(entry.line, current);
  }
  return [...byLine.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([line, value]) => {
      // A parallel region's worker sampled for its pool counts once per worker: the count is an estimate.
      const samples =
        value.taken < value.samples ? `~${value.samples} samples, from ${value.taken} taken` : `${value.samples} samples`;
      return {
        line: line - 1,
        percent: 100 * value.fraction,
        jitted: value.jitted,
        label: `${formatPercent(value.fraction)} (${samples}${value.jitted ? ", jitted" : ""})`,
      };
    });
}

/** A heat bucket (0 = coolest .. BUCKETS-1 = hottest) for the line's background. */
export const BUCKETS = 5;
export function bucketOf(percent: number, hottest: number): number {
  if (hottest <= 0) return 0;
  return Math.min(BUCKETS - 1, Math.floor((percent / hottest) * BUCKETS));
}

/** An edit of a document: 0-based lines [startLine, endLine] replaced by text of `newLineCount` lines. */
export interface LineEdit {
  startLine: number;
  endLine: number;
  newLineCount: number;
}

/**
 * Moves 0-based line numbers through an edit: lines above it stay, lines below shift by the change in
 * line count, and lines inside the replaced range are dropped (their code is gone or rewritten, and
 * a time measured on other code must not be shown on it).
 */
export function shiftLines<T extends { line: number }>(items: T[], edit: LineEdit): T[] {
  const removed = edit.endLine - edit.startLine + 1;
  const delta = edit.newLineCount - removed;
  const result: T[] = [];
  for (const item of items) {
    if (item.line < edit.startLine) result.push(item);
    else if (item.line > edit.endLine) result.push({ ...item, line: item.line + delta });
    else if (item.line === edit.startLine && edit.startLine === edit.endLine && edit.newLineCount === 1) result.push(item);
    // else: inside a multi-line edit: dropped
  }
  return result;
}

/** A hot-spots tree: functions by own samples, each with its hottest lines. */
export interface HotFunction {
  label: string;
  description: string;
  path: string | null;
  fraction: number;
  lines: { label: string; description: string; path: string; line: number; fraction: number }[];
}

export function hotSpots(profile: Profile, limit = 30): HotFunction[] {
  return profile.functions
    .filter((f) => f.samples > 0)
    .slice(0, limit)
    .map((f) => ({
      label: `${formatPercent(f.fraction)} ${f.name}${f.jitted ? " [jit]" : ""}`,
      description: `${f.signature ?? ""} ${f.path ? basename(f.path) : ""}`.trim(),
      path: f.path,
      fraction: f.fraction,
      lines: profile.lines
        .filter((l) => l.path === f.path && l.function === f.name && l.jitted === f.jitted)
        .slice(0, 10)
        .map((l) => ({
          label: `${formatPercent(l.fraction)} line ${l.line}`,
          description: `${l.samples} samples`,
          path: l.path,
          line: l.line - 1,
          fraction: l.fraction,
        })),
    }));
}

export function summary(profile: Profile): string {
  const compile = profile.compile.reduce((sum, c) => sum + c.seconds, 0);
  return `${profile.samples} samples in ${profile.duration_s.toFixed(2)} s on ${profile.threads.length} threads; Numba compiles ${compile.toFixed(2)} s`;
}

function basename(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] ?? p;
}

/** The `pyserver profile` arguments for a run that writes both the JSON and the flame graph's file. */
export function profileArguments(jsonOut: string, speedscopeOut: string, command: string[]): string[] {
  return ["profile", "--format", "json", "--out", jsonOut, "--speedscope", speedscopeOut, "--", ...command];
}

/** Test functions of a pytest file, for "Profile test" lenses: 0-based line and pytest node id suffix. */
export function testTargets(text: string): { line: number; nodeId: string }[] {
  const targets: { line: number; nodeId: string }[] = [];
  let currentClass: string | undefined;
  text.split(/\r?\n/).forEach((source, line) => {
    const topLevelClass = /^class\s+(Test\w*)\b/.exec(source);
    if (topLevelClass) {
      currentClass = topLevelClass[1];
      return;
    }
    if (/^\S/.test(source) && !/^(def|async def|@|#)/.test(source)) currentClass = undefined;
    const topLevel = /^(?:async\s+)?def\s+(test\w*)\s*\(/.exec(source);
    if (topLevel) {
      currentClass = undefined;
      targets.push({ line, nodeId: topLevel[1] });
      return;
    }
    const method = /^\s+(?:async\s+)?def\s+(test\w*)\s*\(/.exec(source);
    if (method && currentClass) targets.push({ line, nodeId: `${currentClass}::${method[1]}` });
  });
  return targets;
}

/** A launch configuration (of the numba or python debugger) as the program's command line after python. */
export interface LaunchLike {
  program?: string;
  module?: string;
  args?: string[] | string;
  cwd?: string;
  env?: Record<string, string>;
}

export function launchArguments(config: LaunchLike, substitute: (value: string) => string): string[] | undefined {
  const args = typeof config.args === "string" ? config.args.split(/\s+/).filter(Boolean) : (config.args ?? []);
  if (config.program) return [substitute(config.program), ...args.map(substitute)];
  if (config.module) return ["-m", config.module, ...args.map(substitute)];
  return undefined;
}
