import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseInterpreter, serverEnvironment, singleExecutable } from "../../extension/interpreter";

test("numbaLens.interpreter wins over the Python extension", () => {
  const choice = chooseInterpreter({ setting: ["/opt/py/bin/python"], pythonExtension: "/ws/.venv/bin/python", trusted: true });
  assert.deepEqual(choice.command, ["/opt/py/bin/python"]);
  assert.equal(choice.source, "numbaLens.interpreter");
});

test("the Python extension's interpreter is used when there is no setting", () => {
  const choice = chooseInterpreter({ setting: [], pythonExtension: "/ws/.venv/bin/python", trusted: true, workspaceFolders: ["/ws"] });
  assert.deepEqual(choice.command, ["/ws/.venv/bin/python"]);
  assert.equal(choice.source, "Python extension");
});

test("python3 when there is neither", () => {
  const choice = chooseInterpreter({ setting: [], trusted: true, defaultCommand: ["python3"] });
  assert.deepEqual(choice.command, ["python3"]);
  assert.equal(choice.source, "default");
});

test("untrusted: a workspace-local interpreter is never chosen, an outside one is", () => {
  const inside = chooseInterpreter({
    setting: [],
    pythonExtension: "/ws/.venv/bin/python",
    trusted: false,
    workspaceFolders: ["/ws"],
    defaultCommand: ["python3"],
  });
  assert.deepEqual(inside.command, ["python3"]);
  assert.match(inside.reason, /untrusted/);
  const outside = chooseInterpreter({
    setting: [],
    pythonExtension: "/usr/bin/python3.11",
    trusted: false,
    workspaceFolders: ["/ws"],
  });
  assert.deepEqual(outside.command, ["/usr/bin/python3.11"]);
  // A sibling folder whose name starts like the workspace is not inside it.
  const sibling = chooseInterpreter({ setting: [], pythonExtension: "/ws2/bin/python", trusted: false, workspaceFolders: ["/ws"] });
  assert.deepEqual(sibling.command, ["/ws2/bin/python"]);
});

test("singleExecutable only for one-word commands", () => {
  assert.equal(singleExecutable(["/usr/bin/python3"]), "/usr/bin/python3");
  assert.equal(singleExecutable(["conda", "run", "-n", "x", "python"]), undefined);
});

test("useBundled puts the bundled libraries first on PYTHONPATH; fromEnvironment leaves it", () => {
  const bundled = serverEnvironment("useBundled", "/ext/bundled/libs", { PYTHONPATH: "/mine", HOME: "/h", UNSET: undefined });
  assert.equal(bundled.PYTHONPATH, "/ext/bundled/libs:/mine");
  assert.equal(bundled.HOME, "/h");
  assert.equal("UNSET" in bundled, false);
  assert.equal(bundled.PYTHONUNBUFFERED, "1");
  assert.equal(serverEnvironment("useBundled", "/b", {}).PYTHONPATH, "/b");
  assert.equal(serverEnvironment("fromEnvironment", "/b", { PYTHONPATH: "/mine" }).PYTHONPATH, "/mine");
  assert.equal("PYTHONPATH" in serverEnvironment("fromEnvironment", "/b", {}), false);
});
