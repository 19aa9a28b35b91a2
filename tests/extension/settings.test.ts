import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULTS,
  needsRestart,
  resolveSettings,
  serverSettings,
  shouldNotify,
  substituteVariables,
} from "../../extension/settings";

function config(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

test("nothing set gives the contract's defaults", () => {
  const { settings, problems } = resolveSettings(config({}));
  assert.deepEqual(problems, []);
  assert.equal(settings.analyzeOnType, false);
  assert.equal(settings.analyzeOnTypeDelay, 500);
  assert.equal(settings.timeout, 20);
  assert.deepEqual(settings.inlayHints, { variableTypes: true, returnTypes: true, maxLength: 30 });
  assert.deepEqual(settings.codeLens, { enable: true });
  assert.deepEqual(settings.signatureFiles, []);
  assert.deepEqual(settings.severity, {});
  assert.deepEqual(settings.interpreter, []);
  assert.equal(settings.importStrategy, "useBundled");
  assert.equal(settings.showNotifications, "onError");
  assert.equal(settings.recordSignatures, false);
  assert.deepEqual(settings.debug, { showInternalFrames: false });
  assert.equal(settings.moduleLoading, "definitions");
  assert.deepEqual(settings, resolveSettings(config({})).settings);
  assert.deepEqual({ ...settings }, { ...DEFAULTS, inlayHints: { ...DEFAULTS.inlayHints } });
});

test("dotted keys are read and kept", () => {
  const { settings } = resolveSettings(
    config({ "inlayHints.maxLength": 12, "codeLens.enable": false, "debug.showInternalFrames": true, timeout: 5 }),
  );
  assert.equal(settings.inlayHints.maxLength, 12);
  assert.equal(settings.codeLens.enable, false);
  assert.equal(settings.debug.showInternalFrames, true);
  assert.equal(settings.timeout, 5);
});

test("invalid values fall back to the default and are reported", () => {
  const { settings, problems } = resolveSettings(
    config({ timeout: -3, importStrategy: "sometimes", interpreter: "python", "inlayHints.variableTypes": "yes" }),
  );
  assert.equal(settings.timeout, 20);
  assert.equal(settings.importStrategy, "useBundled");
  assert.deepEqual(settings.interpreter, []);
  assert.equal(settings.inlayHints.variableTypes, true);
  assert.equal(problems.length, 4);
  assert.match(problems.join("\n"), /numbaLens\.timeout: ignoring -3/);
});

test("severity keeps valid levels per code and reports the rest", () => {
  const { settings, problems } = resolveSettings(
    config({ severity: { "typing-error": "warning", "untyped-variable": "off", "no-signature": "loud" } }),
  );
  assert.deepEqual(settings.severity, { "typing-error": "warning", "untyped-variable": "off" });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /no-signature/);
});

test("variables are substituted in interpreter and signature files; relative files join the workspace", () => {
  const ctx = { workspaceFolder: "/ws", env: { CONDA: "/opt/conda" }, home: "/home/u" };
  const { settings } = resolveSettings(
    config({
      interpreter: ["${env:CONDA}/bin/python", "-X", "utf8"],
      signatureFiles: ["sigs.json", "~/shared/sigs.json", "${workspaceFolder}/other.json", "${userHome}/x.json"],
    }),
    ctx,
  );
  assert.deepEqual(settings.interpreter, ["/opt/conda/bin/python", "-X", "utf8"]);
  assert.deepEqual(settings.signatureFiles, [
    "/ws/sigs.json",
    "/home/u/shared/sigs.json",
    "/ws/other.json",
    "/home/u/x.json",
  ]);
  assert.equal(substituteVariables("${workspaceFolder}/a", {}), "${workspaceFolder}/a");
  assert.equal(substituteVariables("${env:UNSET_VAR_X}/a", { env: {} }), "/a");
});

test("serverSettings is a detached copy", () => {
  const { settings } = resolveSettings(config({}));
  const copy = serverSettings(settings);
  copy.inlayHints.maxLength = 1;
  assert.equal(settings.inlayHints.maxLength, 30);
});

test("notification levels", () => {
  assert.equal(shouldNotify("off", "error"), false);
  assert.equal(shouldNotify("onError", "error"), true);
  assert.equal(shouldNotify("onError", "warning"), false);
  assert.equal(shouldNotify("onWarning", "warning"), true);
  assert.equal(shouldNotify("onWarning", "info"), false);
  assert.equal(shouldNotify("always", "info"), true);
});

test("only interpreter and importStrategy need a restart", () => {
  assert.equal(needsRestart((k) => k === "numbaLens.interpreter"), true);
  assert.equal(needsRestart((k) => k === "numbaLens.importStrategy"), true);
  assert.equal(needsRestart((k) => k === "numbaLens.timeout"), false);
});

test("moduleLoading: definitions or full, anything else keeps the default and is reported", () => {
  assert.equal(resolveSettings(config({ moduleLoading: "full" })).settings.moduleLoading, "full");
  const { settings, problems } = resolveSettings(config({ moduleLoading: "everything" }));
  assert.equal(settings.moduleLoading, "definitions");
  assert.equal(problems.length, 1);
  assert.equal(serverSettings(resolveSettings(config({ moduleLoading: "full" })).settings).moduleLoading, "full");
});
