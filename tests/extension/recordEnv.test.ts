import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { DUMP_ENVIRONMENT, diffEnvironment, mutationsAsEnvironment } from "../../extension/recordEnv";

test("added, prepended, appended and replaced variables", () => {
  const before = { PATH: "/bin", PYTHONPATH: "/a", KEEP: "same", MODE: "x", EMPTY: "" };
  const after = { PATH: "/bin:/extra", PYTHONPATH: "/hook:/a", KEEP: "same", MODE: "y", EMPTY: "/v", NEW: "1", PWD: "/x", _: "/usr/bin/env" };
  assert.deepEqual(diffEnvironment(before, after, ":"), [
    { variable: "EMPTY", kind: "replace", value: "/v" },
    { variable: "MODE", kind: "replace", value: "y" },
    { variable: "NEW", kind: "replace", value: "1" },
    { variable: "PATH", kind: "append", value: ":/extra" },
    { variable: "PYTHONPATH", kind: "prepend", value: "/hook:" },
  ]);
  assert.deepEqual(mutationsAsEnvironment(diffEnvironment(before, after, ":"), ":"), {
    EMPTY: "/v",
    MODE: "y",
    NEW: "1",
    PATH: "/extra",
    PYTHONPATH: "/hook",
  });
});

test("the dump snippet prints a child's environment as JSON (real python3)", () => {
  const out = execFileSync("python3", ["-c", DUMP_ENVIRONMENT], { env: { ...process.env, PROBE_X: "42" } }).toString();
  const env = JSON.parse(out) as Record<string, string>;
  assert.equal(env.PROBE_X, "42");
  assert.deepEqual(diffEnvironment({ ...process.env, PROBE_X: "42" }, env).filter((m) => m.variable === "PROBE_X"), []);
});

test("what `pyserver record` adds, learned from a real run (real python, real record command)", (t) => {
  const python = ".venv/bin/python";
  if (!existsSync(python)) {
    t.skip("no .venv/bin/python (make venv)");
    return;
  }
  const out = execFileSync(
    python,
    ["-m", "pyserver", "record", "--signatures", "/tmp/numba-lens-unit/signatures.json", "--", python, "-c", DUMP_ENVIRONMENT],
    { env: { ...process.env, PYTHONPATH: "" }, stdio: ["ignore", "pipe", "ignore"] },
  ).toString();
  const mutations = diffEnvironment({ ...process.env, PYTHONPATH: "" }, JSON.parse(out) as Record<string, string>);
  const names = mutations.map((m) => m.variable);
  assert.ok(names.includes("PYTHONPATH"), `PYTHONPATH not among ${names.join(", ")}`);
  assert.ok(names.some((n) => n.startsWith("NUMBA_LENS_RECORD")), `no NUMBA_LENS_RECORD* among ${names.join(", ")}`);
  assert.ok(!names.includes("PWD") && !names.includes("_"));
  const pythonPath = mutations.find((m) => m.variable === "PYTHONPATH")!;
  assert.match(pythonPath.value, /hook/);
});
