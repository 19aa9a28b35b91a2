import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import {
  DEBUG_AGAIN,
  DoctorRunner,
  GDB_HOME_VARIABLE,
  gdbProblem,
  INSTALL_FOR_EXTENSION,
  INSTALL_INTO_ENVIRONMENT,
  installedGdb,
  NOT_NOW,
  OfferUi,
  offerGdbInstall,
  withGdbHome,
} from "../../extension/gdbInstall";

// The adapter's and the doctor's own texts (pyserver/debug/session/launch.py, pyserver/doctor.py).
const LAUNCH_WITH_GDB_15 =
  "gdb 15.0.50.20240403 cannot see Numba's jitted code (fixed in gdb 16). " +
  'Run "python -m pyserver doctor --fix" (gdb 18 from PyPI), or install gdb 13, 14 or 16+, or use "mode": "python".';
const LAUNCH_WITHOUT_GDB = "gdb not found ('gdb'). Install it (Debian/Ubuntu: sudo apt-get install gdb) or set \"gdbPath\"";

const ROOT = path.resolve(__dirname, "..", "..");
const PYTHON = path.join(ROOT, ".venv", "bin", "python");

function fakeUi(answer: string | undefined, log: string[]): OfferUi {
  return {
    ask: async (message, ...choices) => {
      log.push(`ask: ${message} [${choices.join(" | ")}]`);
      return answer;
    },
    progress: async (title, task) => {
      log.push(`progress: ${title}`);
      return task();
    },
    info: async (message) => {
      log.push(`info: ${message}`);
      return DEBUG_AGAIN;
    },
    error: (message) => log.push(`error: ${message}`),
  };
}

test("the offer keys on the adapter's gdb 15 and no-gdb errors, and on nothing else", () => {
  assert.equal(gdbProblem(LAUNCH_WITH_GDB_15), "cannot-see-jit");
  assert.equal(gdbProblem(LAUNCH_WITHOUT_GDB), "missing");
  assert.equal(gdbProblem("[FAIL] gdb: gdb not found or not runnable ('gdb')"), "missing");
  assert.equal(gdbProblem("debugpy is not installed in /usr/bin/python3"), undefined);
});

test("the gdb folder goes into the environment unless the user set one", () => {
  assert.deepEqual(withGdbHome({ PATH: "/bin" }, "/store/gdb"), { PATH: "/bin", [GDB_HOME_VARIABLE]: "/store/gdb" });
  assert.deepEqual(withGdbHome({ [GDB_HOME_VARIABLE]: "/mine" }, "/store/gdb"), { [GDB_HOME_VARIABLE]: "/mine" });
  assert.deepEqual(installedGdb("doctor --fix: installed gdb 18.1 at /s/py3.11/bin/gdb; the debugger now uses it."), {
    version: "18.1",
    path: "/s/py3.11/bin/gdb",
  });
});

test("declining runs nothing; a second offer while one is open is not shown", async () => {
  const log: string[] = [];
  let runs = 0;
  const run: DoctorRunner = async () => {
    runs += 1;
    return { code: 0, output: "" };
  };
  assert.deepEqual(await offerGdbInstall("cannot-see-jit", "/py", fakeUi(NOT_NOW, log), run), { kind: "declined" });
  assert.equal(runs, 0);
  assert.match(log[0], /cannot see Numba's jitted code.*gdb-for-pwndbg.*\/py\?/);
  assert.ok(log[0].endsWith(`[${INSTALL_FOR_EXTENSION} | ${INSTALL_INTO_ENVIRONMENT} | ${NOT_NOW}]`), log[0]);
  let release: () => void = () => undefined;
  const slowUi: OfferUi = { ...fakeUi(NOT_NOW, log), ask: () => new Promise((resolve) => (release = () => resolve(NOT_NOW))) };
  const first = offerGdbInstall("missing", "/py", slowUi, run);
  assert.deepEqual(await offerGdbInstall("missing", "/py", fakeUi(NOT_NOW, log), run), { kind: "busy" });
  release();
  assert.deepEqual(await first, { kind: "declined" });
});

test("a failed install says why", async () => {
  const log: string[] = [];
  const run: DoctorRunner = async () => ({ code: 1, output: "doctor --fix: gdb-for-pwndbg has wheels for CPython 3.11 to 3.13 only" });
  const result = await offerGdbInstall("missing", "/py", fakeUi(INSTALL_FOR_EXTENSION, log), run);
  assert.equal(result.kind, "failed");
  assert.match(log.at(-1) ?? "", /^error: .*wheels for CPython 3.11 to 3.13/s);
});

test("accepting installs the real gdb-for-pwndbg wheel into the extension's folder (real doctor --fix)", { skip: !existsSync(PYTHON) }, async () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "numba-lens-gdb-offer-"));
  // The interpreter's own gdb (where `make test` installed one: a CPU on which the system gdb cannot call
  // functions) is set aside while the test runs: the world holds only the stand-in.
  const ownGdb = path.join(path.dirname(PYTHON), "gdb");
  const ownGdbAside = path.join(scratch, "environment-gdb");
  const setAside = existsSync(ownGdb);
  if (setAside) renameSync(ownGdb, ownGdbAside);
  try {
    // A stand-in gdb 15 first on PATH (gdb 15 is not on this machine), and an empty extension folder.
    mkdirSync(path.join(scratch, "bin"));
    writeFileSync(path.join(scratch, "bin", "gdb"), '#!/bin/sh\necho "GNU gdb (GDB) 15.1"\n');
    chmodSync(path.join(scratch, "bin", "gdb"), 0o755);
    const env = withGdbHome({ ...(process.env as Record<string, string>), PATH: `${path.join(scratch, "bin")}:${process.env.PATH}` }, path.join(scratch, "store"));
    const run: DoctorRunner = (args) =>
      new Promise((resolve) => {
        execFile(PYTHON, ["-m", "pyserver", ...args], { cwd: ROOT, env, timeout: 900_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` }),
        );
      });
    const log: string[] = [];
    const result = await offerGdbInstall("cannot-see-jit", PYTHON, fakeUi(INSTALL_FOR_EXTENSION, log), run);
    assert.equal(result.kind, "installed", log.join("\n"));
    if (result.kind !== "installed") return;
    assert.ok(result.path.startsWith(path.join(scratch, "store")), result.path);
    assert.ok(existsSync(result.path));
    assert.ok(Number(result.version.split(".")[0]) >= 16, result.version);
    assert.equal(result.debugAgain, true);
    // The doctor now reports that gdb as the one in use, with the stand-in still first on PATH.
    const after = await run(["doctor", "--json"]);
    assert.equal((JSON.parse(after.output) as { gdb_path: string }).gdb_path, result.path);
  } finally {
    if (setAside) renameSync(ownGdbAside, ownGdb);
    rmSync(scratch, { recursive: true, force: true });
  }
});
