// The compiles view's text (recompiles.ts): each compile in order with its time, the reason for every
// compile after the first, the cache verdict, and advice when nothing was recorded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompilesResult, formatSeconds, renderCompiles } from "../../extension/recompiles";

const RESULT: CompilesResult = {
  function: "scale",
  path: "/ws/prog.py",
  summary: "2 compiles · 1.94 s",
  compiles: [
    {
      args: ["array(float64, 1d, C)", "float64"],
      ok: true,
      seconds: 1.2475,
      kernel: null,
      changed: [],
      because: "",
      cache: { state: "hit", reason: "the cache index holds it: loaded from the cache next time, not compiled" },
    },
    {
      args: ["array(float64, 1d, C)", "int64"],
      ok: true,
      seconds: 0.6884,
      kernel: null,
      changed: [{ index: 1, name: "k", before: "float64", after: "int64", what: "int64, was float64" }],
      because: "'k': int64, was float64",
      cache: { state: "miss", reason: "the source file changed since the cache index was written" },
    },
  ],
};

test("each compile in order, with its time, why it compiled again and the cache verdict", () => {
  const text = renderCompiles(RESULT);
  const lines = text.split("\n");
  assert.equal(lines[0], "# scale: 2 compiles · 1.94 s");
  const first = lines.indexOf("## 1. (array(float64, 1d, C), float64)");
  const second = lines.indexOf("## 2. (array(float64, 1d, C), int64)");
  assert.ok(first > 0 && second > first, text);
  assert.equal(lines[first + 2], "- 1.25 s · cache hit next time: the cache index holds it: loaded from the cache next time, not compiled");
  assert.equal(lines[first + 3], "- the first compile");
  assert.equal(lines[second + 2], "- 688 ms · cache miss next time: the source file changed since the cache index was written");
  assert.deepEqual(lines.slice(second + 3, second + 5), ["- compiled again because:", "  - `k`: int64, was float64"]);
});

test("a failed compile, a kernel loop and an older recording without times", () => {
  const text = renderCompiles({
    ...RESULT,
    compiles: [{ ...RESULT.compiles[0], ok: false, seconds: null, kernel: "guvectorize", cache: null }],
  });
  assert.ok(text.includes("## 1. (array(float64, 1d, C), float64) (guvectorize loop)"), text);
  assert.ok(text.includes("- time not recorded · the compile failed"), text);
  assert.equal(formatSeconds(0.0004), "0 ms");
  assert.equal(formatSeconds(12.5), "12.50 s");
});

test("nothing recorded: says how to record", () => {
  const text = renderCompiles({ ...RESULT, summary: "no recorded compiles", compiles: [] });
  assert.ok(text.includes("No compile of this function was recorded"));
  assert.ok(text.includes("python -m pyserver record -- python your_script.py"));
});
