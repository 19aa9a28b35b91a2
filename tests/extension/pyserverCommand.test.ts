import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { EVENTS_ENV } from "../../extension/events";
import { GDB_HOME_VARIABLE } from "../../extension/gdbInstall";
import { InterpreterChoice } from "../../extension/interpreter";
import { probeCommand, probeProblem, pyserverCommand, pyserverEnvironment, VERSION_SCRIPT } from "../../extension/pyserverCommand";

const conda: InterpreterChoice = { command: ["conda", "run", "-n", "env", "python"], source: "numbaLens.interpreter", reason: "set" };

test("the interpreter command is followed by -m pyserver and the subcommand", () => {
  const env = { PATH: "/usr/bin" };
  const command = pyserverCommand(conda, ["record", "--signatures", "/ws/s.json", "--"], env);
  assert.equal(command.command, "conda");
  assert.deepEqual(command.args, ["run", "-n", "env", "python", "-m", "pyserver", "record", "--signatures", "/ws/s.json", "--"]);
  assert.equal(command.env, env);
  assert.equal(command.choice, conda);
});

test("the probe runs the interpreter alone, with the version script", () => {
  assert.deepEqual(probeCommand(conda), { command: "conda", args: ["run", "-n", "env", "python", "-c", VERSION_SCRIPT] });
  assert.deepEqual(probeCommand({ ...conda, command: ["/usr/bin/python3"] }), { command: "/usr/bin/python3", args: ["-c", VERSION_SCRIPT] });
});

test("every pyserver process is told the extension's gdb folder, the bundled libraries, and not the event log", () => {
  const env = pyserverEnvironment(
    { importStrategy: "useBundled", bundledLibs: "/ext/dist/bundled/libs", gdbHome: "/storage/gdb" },
    { PATH: "/usr/bin", PYTHONPATH: "/mine", [EVENTS_ENV]: "/tmp/events.jsonl", UNSET: undefined },
  );
  assert.equal(env[GDB_HOME_VARIABLE], "/storage/gdb");
  assert.equal(env.PYTHONPATH, `/ext/dist/bundled/libs${path.delimiter}/mine`);
  assert.equal(env.PYTHONUNBUFFERED, "1");
  assert.equal(env.PATH, "/usr/bin");
  assert.ok(!(EVENTS_ENV in env));
  assert.ok(!("UNSET" in env));
});

test("a gdb folder the user names wins over the extension's; fromEnvironment leaves PYTHONPATH alone", () => {
  const env = pyserverEnvironment(
    { importStrategy: "fromEnvironment", bundledLibs: "/ext/dist/bundled/libs", gdbHome: "/storage/gdb" },
    { [GDB_HOME_VARIABLE]: "/my/gdb", PYTHONPATH: "/mine" },
  );
  assert.equal(env[GDB_HOME_VARIABLE], "/my/gdb");
  assert.equal(env.PYTHONPATH, "/mine");
  const none = pyserverEnvironment({ importStrategy: "fromEnvironment", bundledLibs: "/libs", gdbHome: undefined }, {});
  assert.ok(!(GDB_HOME_VARIABLE in none));
});

test("the probe's answer: missing, failing, too old, or fine", () => {
  assert.match(probeProblem("python9", { error: { code: "ENOENT", text: "spawn python9 ENOENT" }, stdout: "", stderr: "" }) ?? "", /"python9" was not found\. Set numbaLens\.interpreter/);
  assert.equal(
    probeProblem("conda", { error: { code: 1, text: "Command failed" }, stdout: "", stderr: "Traceback\nEnvironmentLocationNotFound: env\n" }),
    'The Python interpreter "conda" failed to start: EnvironmentLocationNotFound: env',
  );
  assert.equal(probeProblem("py", { error: { text: "Error: killed" }, stdout: "", stderr: "" }), 'The Python interpreter "py" failed to start: Error: killed');
  assert.equal(
    probeProblem("python3", { stdout: "3.9\n", stderr: "" }),
    'Numba Lens needs Python 3.10 or newer; "python3" is Python 3.9. Set numbaLens.interpreter.',
  );
  assert.match(probeProblem("python2", { stdout: "2.7\n", stderr: "" }) ?? "", /needs Python 3\.10/);
  assert.equal(probeProblem("python3", { stdout: "3.10\n", stderr: "" }), undefined);
  assert.equal(probeProblem("python3", { stdout: "3.13\n", stderr: "" }), undefined);
  assert.equal(probeProblem("python4", { stdout: "4.0\n", stderr: "" }), undefined);
});
