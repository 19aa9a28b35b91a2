import { test } from "node:test";
import assert from "node:assert/strict";
import { jitFunctionLaunch, mergeEnvironment, resolveDebugConfig, splitArgs } from "../../extension/debugConfig";
import type { DebugConfig, DebugContext, Resolution } from "../../extension/debugConfig";

const ctx: DebugContext = {
  activeFile: "/ws/kernels.py",
  activeLanguage: "python",
  workspaceFolder: "/ws",
  interpreter: ["/ws/.venv/bin/python"],
  showInternalFrames: false,
};

function ok(r: Resolution): DebugConfig {
  if (!("config" in r)) assert.fail(`expected a configuration, got ${JSON.stringify(r)}`);
  return r.config;
}
function err(r: Resolution): string {
  if (!("error" in r)) assert.fail(`expected an error, got ${JSON.stringify(r)}`);
  return r.error;
}

test("no launch.json: the active Python file is launched with defaults", () => {
  const config = ok(resolveDebugConfig({}, ctx));
  assert.equal(config.type, "numba");
  assert.equal(config.request, "launch");
  assert.equal(config.program, "/ws/kernels.py");
  assert.equal(config.mode, "mixed");
  assert.equal(config.numbaOpt, 0);
  assert.equal(config.console, "internalConsole");
  assert.equal(config.stopOnEntry, false);
  assert.equal(config.justMyCode, true);
  assert.equal(config.showInternalFrames, false);
  assert.equal(config.python, "/ws/.venv/bin/python");
  assert.equal(config.cwd, "/ws");
  assert.deepEqual(config.args, []);
});

test("no launch.json and no Python file open: cancelled with a reason", () => {
  const r = resolveDebugConfig({}, { ...ctx, activeFile: "/ws/README.md", activeLanguage: "markdown" });
  assert.ok("cancel" in r);
  const r2 = resolveDebugConfig({}, { ...ctx, activeFile: undefined });
  assert.ok("cancel" in r2);
});

test("user values are kept; relative program joins the workspace; string args are split", () => {
  const config = ok(
    resolveDebugConfig(
      {
        type: "numba",
        request: "launch",
        name: "x",
        program: "sub/run.py",
        args: `--n 3 "two words"`,
        python: "/usr/bin/python3",
        mode: "python",
        numbaOpt: 2,
        showInternalFrames: true,
        cwd: "/elsewhere",
      },
      ctx,
    ),
  );
  assert.equal(config.program, "/ws/sub/run.py");
  assert.deepEqual(config.args, ["--n", "3", "two words"]);
  assert.equal(config.python, "/usr/bin/python3");
  assert.equal(config.mode, "python");
  assert.equal(config.numbaOpt, 2);
  assert.equal(config.showInternalFrames, true);
  assert.equal(config.cwd, "/elsewhere");
});

test("the showInternalFrames setting is the default", () => {
  const config = ok(resolveDebugConfig({ type: "numba", request: "launch", name: "m", module: "pytest" }, { ...ctx, showInternalFrames: true }));
  assert.equal(config.showInternalFrames, true);
  assert.equal(config.module, "pytest");
  assert.equal(config.program, undefined);
});

test("a multi-word interpreter command does not become `python`", () => {
  const config = ok(resolveDebugConfig({}, { ...ctx, interpreter: ["conda", "run", "-n", "x", "python"] }));
  assert.equal(config.python, undefined);
});

test("invalid launch configurations get errors a user can act on", () => {
  const base = { type: "numba", request: "launch", name: "x" };
  assert.match(err(resolveDebugConfig({ ...base }, ctx)), /Add "program"/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", module: "m" }, ctx)), /not both/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", mode: "gdb" }, ctx)), /"mode" must be one of mixed, python, cudasim/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", numbaOpt: 7 }, ctx)), /numbaOpt/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", numbaOpt: 1.5 }, ctx)), /numbaOpt/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", console: "externalTerminal" }, ctx)), /console/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", args: [1, 2] }, ctx)), /args/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", env: { A: 1 } }, ctx)), /env/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", stopOnEntry: "yes" }, ctx)), /stopOnEntry/);
  assert.match(err(resolveDebugConfig({ ...base, program: "a.py", stopAtJitFunction: "walk(" }, ctx)), /stopAtJitFunction/);
  assert.equal(ok(resolveDebugConfig({ ...base, program: "a.py", stopAtJitFunction: "kernels::walk" }, ctx)).stopAtJitFunction, "kernels::walk");
  assert.match(err(resolveDebugConfig({ ...base, request: "run", program: "a.py" }, ctx)), /"request"/);
});

test("attach by process id or by host and port", () => {
  const byPid = ok(resolveDebugConfig({ type: "numba", request: "attach", name: "a", processId: "1234" }, ctx));
  assert.equal(byPid.processId, 1234);
  const byPort = ok(resolveDebugConfig({ type: "numba", request: "attach", name: "a", port: 5678 }, ctx));
  assert.equal(byPort.host, "127.0.0.1");
  assert.equal(byPort.port, 5678);
  assert.match(err(resolveDebugConfig({ type: "numba", request: "attach", name: "a" }, ctx)), /processId/);
  assert.match(err(resolveDebugConfig({ type: "numba", request: "attach", name: "a", processId: "abc" }, ctx)), /process id/);
  assert.match(err(resolveDebugConfig({ type: "numba", request: "attach", name: "a", port: 70000 }, ctx)), /port/);
});

test("recording variables are merged into the launch env; the user's PYTHONPATH follows the hook's", () => {
  const config = ok(
    resolveDebugConfig(
      { type: "numba", request: "launch", name: "x", program: "a.py", env: { PYTHONPATH: "/mine", X: "1" } },
      { ...ctx, recordEnvironment: { PYTHONPATH: "/hook", NUMBA_LENS_RECORD: "/ws/.numba-lens/signatures.json" } },
    ),
  );
  assert.deepEqual(config.env, { PYTHONPATH: "/hook:/mine", X: "1", NUMBA_LENS_RECORD: "/ws/.numba-lens/signatures.json" });
  assert.deepEqual(mergeEnvironment({ A: "r" }, { A: "u" }), { A: "u" });
});

test("Debug JIT function launches: a script runs as program, a test file under pytest", () => {
  const script = jitFunctionLaunch({ path: "/ws/kernels.py", kind: "script" }, "walk", "mixed", "/ws");
  assert.equal(script.program, "/ws/kernels.py");
  assert.equal(script.stopAtJitFunction, "walk");
  assert.equal(script.mode, "mixed");
  const testRun = jitFunctionLaunch({ path: "/ws/tests/test_k.py", kind: "test" }, "Point.norm", "python", "/ws");
  assert.equal(testRun.module, "pytest");
  assert.deepEqual((testRun.args as string[]).at(-1), "/ws/tests/test_k.py");
  assert.equal(testRun.program, undefined);
  // What the lens builds survives resolution unchanged in meaning.
  const resolved = ok(resolveDebugConfig(script, ctx));
  assert.equal(resolved.stopAtJitFunction, "walk");
  assert.equal(resolved.program, "/ws/kernels.py");
});

test("splitArgs", () => {
  assert.deepEqual(splitArgs(`a 'b c' "d e" f`), ["a", "b c", "d e", "f"]);
  assert.deepEqual(splitArgs("   "), []);
});
