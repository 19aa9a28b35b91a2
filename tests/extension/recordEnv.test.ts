import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { DUMP_ENVIRONMENT, diffEnvironment, mutationsAsEnvironment } from "../../extension/recordEnv";

test("added, prepended, appended and replaced variables", () => {
  const before = { PATH: "/bin", PYTHONPATH: "/a", KEEP: "same", MODE: "x", EMPTY: "" };
  const after = { PATH: "/bin:/extra", PYTHONPATH: "/hook:/a", KEEP: "same", MODE: "y", EMPTY: "/v", NEW: "1" };
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
