// Fails when the TypeScript modules under the given folders import each other in a cycle (type-only
// imports included: a cycle of types is still two modules that cannot be understood apart).
// Imports are read with the TypeScript compiler's own pre-processor. Usage: node scripts/check-import-cycles.mjs extension
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

function sources(folder) {
  return readdirSync(folder).flatMap((name) => {
    const file = join(folder, name);
    if (statSync(file).isDirectory()) return sources(file);
    return file.endsWith(".ts") && !file.endsWith(".d.ts") ? [resolve(file)] : [];
  });
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, "index.ts"), base].find((candidate) => candidate.endsWith(".ts") && existsSync(candidate));
}

export function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles.map((entry) => resolveImport(file, entry.fileName)).filter((target) => target && files.includes(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The cycles, one per strongly connected component with more than one module (or a self-import). */
export function cycles(graph) {
  const found = [];
  const state = new Map(); // undefined: unvisited, 1: on the current path, 2: done
  const path = [];
  const visit = (node) => {
    state.set(node, 1);
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 1) found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 2);
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

const folders = process.argv.slice(2);
if (folders.length === 0) {
  console.error("usage: node scripts/check-import-cycles.mjs FOLDER...");
  process.exit(2);
}
const files = folders.flatMap(sources);
const found = cycles(importGraph(files));
for (const cycle of found) console.error(`import cycle: ${cycle.map((file) => relative(process.cwd(), file)).join(" -> ")}`);
process.exit(found.length > 0 ? 1 : 0);
