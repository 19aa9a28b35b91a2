// package.json against the contract and against the code: every setting, command and launch attribute.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMAND_IDS } from "../../extension/commandIds";
import { DEFAULTS } from "../../extension/settings";

const manifest = JSON.parse(readFileSync("package.json", "utf8"));
const properties: Record<string, { default: unknown; description?: string; markdownDescription?: string; enum?: string[] }> =
  manifest.contributes.configuration.properties;

function flatten(value: Record<string, unknown>, prefix = ""): [string, unknown][] {
  return Object.entries(value).flatMap(([key, v]) =>
    typeof v === "object" && v !== null && !Array.isArray(v) && key !== "severity"
      ? flatten(v as Record<string, unknown>, `${prefix}${key}.`)
      : [[`${prefix}${key}`, v] as [string, unknown]],
  );
}

test("limited untrusted-workspace support; the interpreter is a restricted setting", () => {
  assert.equal(manifest.capabilities.untrustedWorkspaces.supported, "limited");
  assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes("numbaLens.interpreter"));
});

test("every setting the code resolves is contributed with the same default and a description", () => {
  const flat = flatten(DEFAULTS as unknown as Record<string, unknown>);
  assert.equal(flat.length, 16);
  for (const [key, value] of flat) {
    const property = properties[`numbaLens.${key}`];
    assert.ok(property, `numbaLens.${key} is not in package.json`);
    assert.deepEqual(property.default, value, `default of numbaLens.${key}`);
    assert.ok((property.description ?? property.markdownDescription ?? "").length > 20, `numbaLens.${key} needs a description`);
  }
  assert.deepEqual(properties["numbaLens.importStrategy"].enum, ["useBundled", "fromEnvironment"]);
  assert.deepEqual(properties["numbaLens.showNotifications"].enum, ["off", "onError", "onWarning", "always"]);
});

test("every command the code registers or the server's lenses use is contributed, and vice versa", () => {
  // The command table (commands.ts) is typed by COMMAND_IDS: it registers exactly these.
  const registered = new Set<string>(COMMAND_IDS);
  const contributed = new Set<string>(manifest.contributes.commands.map((c: { command: string }) => c.command));
  for (const lensCommand of ["numbaLens.debugJitFunction", "numbaLens.showTypes", "numbaLens.showNumbaIR", "numbaLens.showLLVM", "numbaLens.showAssembly"]) {
    assert.ok(registered.has(lensCommand), `${lensCommand} (a lens command) is not registered`);
  }
  assert.deepEqual([...registered].sort(), [...contributed].sort());
});

test("commands are registered only through the command table", () => {
  for (const file of readdirSync("extension")) {
    const calls = readFileSync(join("extension", file), "utf8").match(/registerCommand\(/g) ?? [];
    assert.equal(calls.length, file === "commands.ts" ? 1 : 0, `${file} registers a command outside the table`);
  }
  const table = [...readFileSync(join("extension", "commands.ts"), "utf8").matchAll(/^\s*"(numbaLens\.[A-Za-z]+)":/gm)].map((m) => m[1]);
  assert.deepEqual(table.sort(), [...COMMAND_IDS].sort());
});

test("the numba debugger declares every launch attribute of the contract with a description", () => {
  const debuggerEntry = manifest.contributes.debuggers.find((d: { type: string }) => d.type === "numba");
  assert.ok(debuggerEntry);
  const launch = debuggerEntry.configurationAttributes.launch.properties;
  const contract = [
    "program", "module", "args", "cwd", "env", "python", "stopOnEntry", "justMyCode", "mode", "gdbPath", "numbaOpt",
    "console", "stopAtJitFunction", "showInternalFrames", "boundscheck", "reverse",
  ];
  for (const attribute of contract) {
    assert.ok(launch[attribute], `launch attribute ${attribute} missing`);
    assert.ok(launch[attribute].description.length > 10, `launch attribute ${attribute} needs a description`);
  }
  assert.deepEqual(launch.mode.enum, ["mixed", "python", "cudasim"]);
  assert.equal(launch.mode.default, "mixed");
  assert.equal(launch.numbaOpt.default, 0);
  assert.deepEqual(launch.console.enum, ["internalConsole", "integratedTerminal"]);
  const attach = debuggerEntry.configurationAttributes.attach.properties;
  for (const attribute of ["processId", "host", "port"]) assert.ok(attach[attribute], `attach attribute ${attribute} missing`);
  const snippet = debuggerEntry.configurationSnippets.find((s: { label: string }) => s.label === "Numba: Debug JIT function");
  assert.ok(snippet, "the Debug JIT function snippet");
  assert.ok("stopAtJitFunction" in snippet.body);
  assert.deepEqual(manifest.contributes.breakpoints, [{ language: "python" }]);
});
