// What `python -m pyserver record` adds to a process environment, as terminal mutations. The extension
// learns it by running `record -- python -c <dump environ>` and comparing with what it passed in, so the
// recording hook's variable names stay the record command's business. No `vscode` import.
import * as path from "node:path";

export type Mutation = { variable: string; kind: "replace" | "prepend" | "append"; value: string };

/** The Python snippet whose output `diffEnvironment` reads: the child's environment as JSON. */
export const DUMP_ENVIRONMENT = "import json, os, sys; sys.stdout.write(json.dumps(dict(os.environ)))";

/** Variables a shell or the process itself changes, never the recording hook's. */
export const IGNORED = new Set(["_", "PWD", "OLDPWD", "SHLVL", "NUMBA_LENS_TEST_EVENTS"]);

export function diffEnvironment(
  before: Record<string, string | undefined>,
  after: Record<string, string>,
  delimiter: string = path.delimiter,
): Mutation[] {
  const mutations: Mutation[] = [];
  for (const [variable, value] of Object.entries(after)) {
    const old = before[variable];
    if (old === value || IGNORED.has(variable)) continue;
    if (old !== undefined && old !== "" && value.endsWith(delimiter + old)) {
      mutations.push({ variable, kind: "prepend", value: value.slice(0, value.length - old.length) });
    } else if (old !== undefined && old !== "" && value.startsWith(old + delimiter)) {
      mutations.push({ variable, kind: "append", value: value.slice(old.length) });
    } else {
      mutations.push({ variable, kind: "replace", value });
    }
  }
  return mutations.sort((a, b) => a.variable.localeCompare(b.variable));
}

/** The mutations as a plain environment for a debug launch (prepend/append become full PYTHONPATH-style values). */
export function mutationsAsEnvironment(mutations: Mutation[], delimiter: string = path.delimiter): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of mutations) {
    env[m.variable] = m.kind === "replace" ? m.value : m.value.replace(new RegExp(`^\\${delimiter}|\\${delimiter}$`, "g"), "");
  }
  return env;
}
