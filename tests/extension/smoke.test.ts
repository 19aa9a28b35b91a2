import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

test("package.json declares the numba debugger's limited trust support", () => {
  const manifest = JSON.parse(readFileSync("package.json", "utf8"));
  assert.equal(manifest.capabilities.untrustedWorkspaces.supported, "limited");
});
