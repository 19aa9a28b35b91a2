// The lint step that fails on an import cycle between extension modules (scripts/check-import-cycles.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

const SCRIPT = "scripts/check-import-cycles.mjs";

function check(folder: string): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [SCRIPT, folder], { encoding: "utf8" });
  return { status: result.status, stderr: result.stderr };
}

test("the extension's modules import each other without a cycle", () => {
  assert.deepEqual(check("extension"), { status: 0, stderr: "" });
});

test("a cycle, type-only imports included, fails with the modules named", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "numba-lens-cycles-"));
  try {
    writeFileSync(path.join(folder, "a.ts"), 'import { b } from "./b";\nexport const a = b;\n');
    writeFileSync(path.join(folder, "b.ts"), 'import type { C } from "./c";\nexport const b: C = 1;\n');
    writeFileSync(path.join(folder, "c.ts"), 'import "./a";\nexport type C = number;\n');
    writeFileSync(path.join(folder, "d.ts"), 'import { a } from "./a";\nimport * as fs from "node:fs";\nexport const d = [a, fs];\n');
    const { status, stderr } = check(folder);
    assert.equal(status, 1);
    const lines = stderr.trim().split("\n");
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^import cycle: .*a\.ts -> .*b\.ts -> .*c\.ts -> .*a\.ts$/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
