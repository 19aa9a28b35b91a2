import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseEntry, hasMainBlock, isTestFile, mentions, moduleNameFor, stopTarget } from "../../extension/entry";

test("__main__ blocks are recognised in their usual spellings only at top level", () => {
  assert.equal(hasMainBlock(`x = 1\nif __name__ == "__main__":\n    main()\n`), true);
  assert.equal(hasMainBlock(`if __name__=='__main__':\n    main()`), true);
  assert.equal(hasMainBlock(`if "__main__" == __name__:\n    pass`), true);
  assert.equal(hasMainBlock(`def f():\n    if __name__ == "__main__":\n        pass`), false);
  assert.equal(hasMainBlock(`# if __name__ == "__main__":`), false);
  assert.equal(hasMainBlock(`if __name__ == "__main__'":`), false);
});

test("pytest file patterns", () => {
  assert.equal(isTestFile("/ws/tests/test_kernels.py"), true);
  assert.equal(isTestFile("/ws/kernels_test.py"), true);
  assert.equal(isTestFile("/ws/testing.py"), false);
  assert.equal(isTestFile("/ws/_test.py"), false);
});

test("the current file is the entry when it has a __main__ block", () => {
  const choice = chooseEntry({ path: "/ws/k.py", source: `if __name__ == "__main__":\n  f()` }, "walk", [
    { path: "/ws/test_k.py", source: "from k import walk" },
  ]);
  assert.equal(choice.kind, "current");
  if (choice.kind === "current") assert.equal(choice.entry.path, "/ws/k.py");
});

test("otherwise scripts and tests are offered, those that use the module first", () => {
  const choice = chooseEntry({ path: "/ws/lib/kernels.py", source: "def walk(a): pass" }, "walk", [
    { path: "/ws/lib/kernels.py", source: "def walk(a): pass" },
    { path: "/ws/a_unrelated.py", source: `if __name__ == "__main__":\n  print(1)` },
    { path: "/ws/run.py", source: `from lib.kernels import walk\nif __name__ == "__main__":\n  walk(1)` },
    { path: "/ws/tests/test_kernels.py", source: "from lib import kernels\ndef test_w(): kernels.walk(1)" },
    { path: "/ws/tests/test_other.py", source: "def test_x(): pass" },
    { path: "/ws/helpers.py", source: "walk(1)" },
  ]);
  assert.equal(choice.kind, "pick");
  if (choice.kind !== "pick") return;
  assert.deepEqual(
    choice.entries.map((e) => [e.path, e.kind]),
    [
      ["/ws/run.py", "script"],
      ["/ws/tests/test_kernels.py", "test"],
      ["/ws/a_unrelated.py", "script"],
      ["/ws/tests/test_other.py", "test"],
    ],
  );
});

test("nothing to run gives none", () => {
  assert.equal(chooseEntry({ path: "/ws/k.py", source: "" }, "walk", [{ path: "/ws/util.py", source: "x = 1" }]).kind, "none");
});

test("mentions matches calls and imports, not substrings", () => {
  assert.equal(mentions("y = walk (a, 1)", "walk", "k"), true);
  assert.equal(mentions("y = sidewalk(a)", "walk", "k"), false);
  assert.equal(mentions("p.norm()", "Point.norm", "geo"), true);
  assert.equal(mentions("import numpy as np\nimport geo", "f", "geo"), true);
  assert.equal(mentions("import geometry", "f", "geo"), false);
});

test("module names as Python gives them to the entry's imports", () => {
  assert.equal(moduleNameFor("/ws/untyped_list.py", "/ws/run.py", "/ws"), "untyped_list");
  assert.equal(moduleNameFor("/ws/pkg/kern.py", "/ws/run.py", "/ws"), "pkg.kern");
  assert.equal(moduleNameFor("/ws/pkg/__init__.py", "/ws/run.py", "/ws"), "pkg");
  // A test in tests/ importing a top-level module: relative to the workspace folder.
  assert.equal(moduleNameFor("/ws/lib/k.py", "/ws/tests/test_k.py", "/ws"), "lib.k");
  assert.equal(moduleNameFor("/elsewhere/k.py", "/ws/run.py", "/ws"), undefined);
  assert.equal(moduleNameFor("/ws/my-file.py", "/ws/run.py", "/ws"), undefined);
});

test("stopAtJitFunction: plain in the program's own file, module-qualified (gdb spelling) elsewhere", () => {
  assert.equal(stopTarget("walk", "/ws/kernels.py", { path: "/ws/kernels.py" }, "/ws"), "walk");
  assert.equal(stopTarget("collect_typed", "/ws/untyped_list.py", { path: "/ws/run.py" }, "/ws"), "untyped_list::collect_typed");
  assert.equal(stopTarget("Point.norm", "/ws/geo/shapes.py", { path: "/ws/tests/test_geo.py" }, "/ws"), "geo::shapes::Point::norm");
  assert.equal(stopTarget("f", "/other/x.py", { path: "/ws/run.py" }, "/ws"), "f");
});
