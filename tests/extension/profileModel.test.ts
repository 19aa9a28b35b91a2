// The profile model of the editor: heat per line, hot spots, lines that follow edits, the command line,
// and the packaging of speedscope (the flame graph's viewer) in the .vsix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  bucketOf,
  BUCKETS,
  formatPercent,
  heatForFile,
  hotSpots,
  launchArguments,
  parseProfile,
  Profile,
  profileArguments,
  shiftLines,
  testTargets,
} from "../../extension/profileModel";

const PROFILE: Profile = {
  samples: 200,
  duration_s: 2.5,
  rate_hz: 100,
  lines: [
    { path: "/w/a.py", line: 8, function: "hot", jitted: true, samples: 140, fraction: 0.7 },
    { path: "/w/a.py", line: 15, function: "cool", jitted: true, samples: 50, fraction: 0.25 },
    { path: "/w/a.py", line: 21, function: "main", jitted: false, samples: 9, fraction: 0.045 },
    { path: "/w/b.py", line: 3, function: "other", jitted: false, samples: 1, fraction: 0.005 },
  ],
  functions: [
    { path: "/w/a.py", name: "hot", signature: "(int64)", jitted: true, samples: 140, fraction: 0.7 },
    { path: "/w/a.py", name: "cool", signature: "(int64)", jitted: true, samples: 50, fraction: 0.25 },
    { path: "/w/a.py", name: "main", signature: null, jitted: false, samples: 9, fraction: 0.045 },
    { path: "/w/b.py", name: "other", signature: null, jitted: false, samples: 1, fraction: 0.005 },
  ],
  threads: [{ id: 1, name: "MainThread", samples: 200 }],
  compile: [{ path: "/w/a.py", name: "hot", signature: "(int64)", seconds: 0.4 }],
};

test("heat of one file: 0-based lines, percent and a label; other files left out", () => {
  const heat = heatForFile(PROFILE, "/w/a.py");
  assert.deepEqual(
    heat.map((h) => [h.line, Math.round(h.percent * 10) / 10, h.jitted]),
    [
      [7, 70, true],
      [14, 25, true],
      [20, 4.5, false],
    ],
  );
  assert.equal(heat[0].label, "70% (140 samples, jitted)");
  assert.equal(heat[2].label, "4.5% (9 samples)");
  assert.deepEqual(heatForFile(PROFILE, "/w/c.py"), []);
});

test("a line counted from workers sampled for their pool says its count is an estimate", () => {
  const line = { path: "/w/p.py", line: 4, function: "body", jitted: true, fraction: 0.6 };
  const profile = {
    ...PROFILE,
    lines: [
      { ...line, samples: 120, taken: 20 },
      { ...line, line: 9, samples: 30, taken: 30 },
    ],
  };
  assert.deepEqual(
    heatForFile(profile, "/w/p.py").map((h) => h.label),
    ["60% (~120 samples, from 20 taken, jitted)", "60% (30 samples, jitted)"],
  );
});

test("percent labels and heat buckets", () => {
  assert.equal(formatPercent(0.7), "70%");
  assert.equal(formatPercent(0.045), "4.5%");
  assert.equal(formatPercent(0.0004), "<0.1%");
  assert.equal(bucketOf(70, 70), BUCKETS - 1);
  assert.equal(bucketOf(0.5, 70), 0);
  assert.equal(bucketOf(10, 0), 0);
});

test("lines follow edits: below moves, above stays, inside a multi-line edit is dropped", () => {
  const items = [{ line: 2 }, { line: 7 }, { line: 14 }];
  // Two lines inserted after line 4 (an edit at line 4 whose text has 3 lines).
  assert.deepEqual(shiftLines(items, { startLine: 4, endLine: 4, newLineCount: 3 }), [{ line: 2 }, { line: 9 }, { line: 16 }]);
  // Lines 6..8 replaced by one line: line 7 is gone, line 14 moves up by 2.
  assert.deepEqual(shiftLines(items, { startLine: 6, endLine: 8, newLineCount: 1 }), [{ line: 2 }, { line: 12 }]);
  // Typing within line 7: it keeps its figure.
  assert.deepEqual(shiftLines(items, { startLine: 7, endLine: 7, newLineCount: 1 }), items);
});

test("hot spots: functions by own samples with their lines", () => {
  const spots = hotSpots(PROFILE);
  assert.equal(spots.length, 4);
  assert.equal(spots[0].label, "70% hot [jit]");
  assert.equal(spots[0].description, "(int64) a.py");
  assert.deepEqual(spots[0].lines.map((l) => [l.line, l.label]), [[7, "70% line 8"]]);
  assert.deepEqual(spots[2].lines.map((l) => l.line), [20]);
});

test("parseProfile checks the contract's keys", () => {
  assert.equal(parseProfile(JSON.stringify(PROFILE)).samples, 200);
  assert.throws(() => parseProfile(JSON.stringify({ samples: 1 })), /duration_s/);
});

test("the command line matches the profiler's flags (real python -m pyserver profile --help)", () => {
  const args = profileArguments("/t/p.json", "/t/p.speedscope.json", ["python", "x.py"]);
  assert.deepEqual(args.slice(0, 1), ["profile"]);
  assert.equal(args[args.indexOf("--") + 1], "python");
  const python = existsSync(".venv/bin/python") ? ".venv/bin/python" : "python3";
  const help = execFileSync(python, ["-m", "pyserver", "profile", "--help"]).toString();
  for (const flag of args.filter((a) => a.startsWith("--") && a !== "--")) assert.ok(help.includes(flag), `${flag} is not a profile flag`);
});

test("speedscope is a dependency, copied to dist/speedscope by the build and shipped in the .vsix", () => {
  const manifest = JSON.parse(readFileSync("package.json", "utf8"));
  assert.ok(manifest.dependencies.speedscope, "speedscope is not in dependencies");
  assert.ok(readFileSync(".vscodeignore", "utf8").split("\n").includes("!dist/speedscope/**"));
  assert.match(readFileSync("esbuild.mjs", "utf8"), /node_modules\/speedscope\/dist\/release/);
  const index = readFileSync("node_modules/speedscope/dist/release/index.html", "utf8");
  // profileFlame.ts finds the script and the style sheet in index.html by these shapes.
  assert.match(index, /href="(speedscope-[^"]+\.css)"/);
  assert.match(index, /src="(speedscope-[^"]+\.js)"/);
  const views = manifest.contributes.views.explorer.map((v: { id: string }) => v.id);
  assert.ok(views.includes("numbaLens.hotSpots"));
});

test("test targets of a pytest file: functions and methods of Test classes, with node ids", () => {
  const text = [
    "import numba",
    "def test_one():",
    "    pass",
    "def helper():",
    "    pass",
    "class TestKernels:",
    "    def test_sum(self):",
    "        pass",
    "    def setup_method(self):",
    "        pass",
    "X = 1",
    "    def test_not_a_method_any_more(self):",
    "async def test_async():",
    "    pass",
  ].join("\n");
  assert.deepEqual(testTargets(text), [
    { line: 1, nodeId: "test_one" },
    { line: 6, nodeId: "TestKernels::test_sum" },
    { line: 12, nodeId: "test_async" },
  ]);
});

test("launch configurations as command lines: program or module, args as list or string", () => {
  const substitute = (v: string) => v.replace("${workspaceFolder}", "/w");
  assert.deepEqual(launchArguments({ program: "${workspaceFolder}/run.py", args: ["--n", "3"] }, substitute), ["/w/run.py", "--n", "3"]);
  assert.deepEqual(launchArguments({ module: "pytest", args: "-q tests" }, substitute), ["-m", "pytest", "-q", "tests"]);
  assert.equal(launchArguments({}, substitute), undefined);
});
