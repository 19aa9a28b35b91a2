// Bundles the extension (and, with --tests, the TypeScript unit tests) with esbuild.
import * as esbuild from "esbuild";
import { cpSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const watch = process.argv.includes("--watch");
const e2e = process.argv.includes("--e2e");
const tests = process.argv.includes("--tests");

const common = {
  bundle: true,
  platform: "node",
  target: "node18",
  format: "cjs",
  sourcemap: true,
  external: ["vscode"],
  logLevel: "info",
};

const builds = [
  { ...common, entryPoints: ["extension/extension.ts"], outfile: "dist/extension.js" },
];
// The flame graph's viewer: speedscope's release files, shipped in the .vsix as they are.
const speedscope = "node_modules/speedscope/dist/release";
// (Its demo profile, perf-vertx-*.txt, is left out.)
if (existsSync(speedscope)) cpSync(speedscope, "dist/speedscope", { recursive: true, filter: (src) => !src.includes("perf-vertx") });

if (tests) {
  rmSync("dist/tests", { recursive: true, force: true });
  const dir = "tests/extension";
  const entryPoints = readdirSync(dir)
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => join(dir, f));
  // playwright-core stays external (loaded from node_modules), as in the e2e build.
  builds.push({ ...common, entryPoints, outdir: "dist/tests", sourcemap: "inline", external: ["vscode", "playwright-core"] });
}

if (e2e) {
  // The real-editor driver (Playwright); playwright-core stays external (it is loaded from node_modules).
  builds.push({ ...common, entryPoints: ["tests/e2e/e2e.ts"], outfile: "dist/e2e/e2e.js", external: ["vscode", "playwright-core"] });
}

if (watch) {
  for (const options of builds) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
