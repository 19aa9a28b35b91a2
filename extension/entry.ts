// Which program a "Debug JIT function" session runs. No `vscode` import (unit-tested under node).
import * as path from "node:path";

export interface Entry {
  path: string;
  kind: "script" | "test";
  /** Why it is offered, shown in the pick. */
  detail: string;
  /** Higher first: files that mention the function, then scripts, then tests. */
  score: number;
}

export type EntryChoice = { kind: "current"; entry: Entry } | { kind: "pick"; entries: Entry[] } | { kind: "none" };

const MAIN_BLOCK = /^if\s+(?:__name__\s*==\s*(['"])__main__\1|(['"])__main__\2\s*==\s*__name__)\s*:/m;

/** True when the source has a top-level `if __name__ == "__main__":` block. */
export function hasMainBlock(source: string): boolean {
  return MAIN_BLOCK.test(source);
}

/** pytest's default file patterns: test_*.py and *_test.py. */
export function isTestFile(file: string): boolean {
  const base = path.basename(file);
  return /^test_.*\.py$/.test(base) || /^.+_test\.py$/.test(base);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether a file's source calls or imports the function (by its last name part) or imports its module. */
export function mentions(source: string, functionName: string, moduleName: string): boolean {
  const simple = functionName.split(".").pop() ?? functionName;
  const call = new RegExp(`\\b${escapeRegExp(simple)}\\s*\\(`);
  const importModule = new RegExp(`^\\s*(?:from\\s+(?:\\S+\\.)?${escapeRegExp(moduleName)}\\s+import|import\\s+(?:\\S+\\.)?${escapeRegExp(moduleName)}\\b)`, "m");
  return call.test(source) || importModule.test(source);
}

/**
 * The current file when it has a `__main__` block; otherwise the workspace's scripts and test files,
 * best first, for a pick. `candidates` are other workspace files with their source text.
 */
export function chooseEntry(
  current: { path: string; source: string },
  functionName: string,
  candidates: { path: string; source: string }[],
): EntryChoice {
  if (hasMainBlock(current.source)) {
    return { kind: "current", entry: { path: current.path, kind: "script", detail: "this file's __main__ block", score: 100 } };
  }
  const moduleName = path.basename(current.path, ".py");
  const entries: Entry[] = [];
  for (const candidate of candidates) {
    if (candidate.path === current.path) continue;
    const test = isTestFile(candidate.path);
    const script = hasMainBlock(candidate.source);
    if (!test && !script) continue;
    const related = mentions(candidate.source, functionName, moduleName);
    entries.push({
      path: candidate.path,
      kind: test ? "test" : "script",
      detail: `${test ? "pytest" : "__main__ block"}${related ? `, uses ${moduleName}` : ""}`,
      score: (related ? 10 : 0) + (test ? 1 : 2),
    });
  }
  entries.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  return entries.length > 0 ? { kind: "pick", entries } : { kind: "none" };
}

/**
 * The module name Python gives `file` when `entry` runs: relative to the entry script's folder (sys.path[0])
 * when the file is under it, else to the workspace folder (the working directory, pytest's rootdir).
 */
export function moduleNameFor(file: string, entryPath: string, workspaceFolder: string | undefined): string | undefined {
  const bases = [path.dirname(entryPath), ...(workspaceFolder ? [workspaceFolder] : [])];
  for (const base of bases) {
    const relative = path.relative(base, file);
    if (relative.startsWith("..") || path.isAbsolute(relative) || !relative.endsWith(".py")) continue;
    const parts = relative.slice(0, -3).split(path.sep);
    if (parts[parts.length - 1] === "__init__") parts.pop();
    if (parts.length > 0 && parts.every((p) => /^[A-Za-z_]\w*$/.test(p))) return parts.join(".");
  }
  return undefined;
}

/**
 * What `stopAtJitFunction` gets: the plain qualified name when the function's own file is the program (the
 * adapter reads it as `__main__::name`); otherwise the name under its module, in gdb's spelling
 * (`untyped_list::collect_typed`), because Numba names the compiled code after the function's module.
 */
export function stopTarget(functionName: string, functionFile: string, entry: { path: string }, workspaceFolder: string | undefined): string {
  if (path.resolve(functionFile) === path.resolve(entry.path)) return functionName;
  const module = moduleNameFor(functionFile, entry.path, workspaceFolder);
  return module ? [...module.split("."), ...functionName.split(".")].join("::") : functionName;
}
