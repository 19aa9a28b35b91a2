// Drives a real VS Code (code-server, started by scripts/e2e.sh) with Playwright and Debian's Chromium,
// on a copy of examples/, with the built .vsix installed. Every step saves a screenshot; assertions use
// both the DOM (what a user sees) and the extension's event log (NUMBA_LENS_TEST_EVENTS).
import * as fs from "node:fs";
import * as path from "node:path";
import { chromium, Page } from "playwright-core";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run scripts/e2e.sh)`);
  return value;
};
const URL = env("E2E_URL");
const WORKSPACE = env("E2E_WORKSPACE");
const EVENTS = env("E2E_EVENTS");
const ARTIFACTS = env("E2E_ARTIFACTS");
const CHROMIUM = env("E2E_CHROMIUM");
const PROFILE = env("E2E_PROFILE");
const SCENARIO = process.env.E2E_SCENARIO ?? "main";

interface Event {
  time: number;
  event: string;
  [key: string]: unknown;
}

function events(): Event[] {
  return fs
    .readFileSync(EVENTS, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Event);
}

/** Polls the event log until `predicate` finds an event, or fails with `what`. */
async function waitForEvent(what: string, predicate: (e: Event) => boolean, timeoutMs: number, since = 0): Promise<Event> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = events().find((e) => e.time >= since && predicate(e));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

/** 0-based line of the first line containing `needle` in a workspace file. */
function lineOf(file: string, needle: string): number {
  const lines = fs.readFileSync(path.join(WORKSPACE, file), "utf8").split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`"${needle}" not found in ${file}`);
  return index;
}

interface StepResult {
  name: string;
  ok: boolean;
  detail: string;
  seconds: number;
}
const results: StepResult[] = [];
let page: Page;
let stepNumber = 0;
let stopSessionAfterStep = false;

async function step(name: string, body: () => Promise<string>): Promise<boolean> {
  stepNumber += 1;
  const started = Date.now();
  let ok = true;
  let detail: string;
  try {
    detail = await body();
  } catch (error) {
    ok = false;
    detail = error instanceof Error ? error.message : String(error);
  }
  const shot = path.join(ARTIFACTS, `${String(stepNumber).padStart(2, "0")}-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.png`);
  await page.screenshot({ path: shot }).catch(() => undefined);
  const seconds = (Date.now() - started) / 1000;
  results.push({ name, ok, detail, seconds });
  console.log(`e2e: ${ok ? "PASS" : "FAIL"} ${name} (${seconds.toFixed(1)}s): ${detail}  [${path.basename(shot)}]`);
  return ok;
}

async function openFile(name: string): Promise<void> {
  const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label^="${name}"]`).first();
  if (!(await row.isVisible())) await runCommand("View: Show Explorer");
  await row.waitFor({ state: "visible", timeout: 30_000 });
  await row.click();
  await page.locator(`.tabs-container .tab.active[aria-label^="${name}"]`).first().waitFor({ timeout: 30_000 });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: 30_000 });
}

async function runCommand(title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-widget .monaco-list-row").first().waitFor({ timeout: 10_000 });
  await page.keyboard.press("Enter");
}

/** Moves the cursor with "Go to Line/Column" (1-based line and column). */
async function goTo(line: number, column: number): Promise<void> {
  // Ctrl+G (Go to Line/Column) acts on the active editor wherever the focus is.
  await page.keyboard.press("Control+g");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
}

/** The screen y of a 1-based line number in the gutter of the active editor. */
async function lineNumberBox(line: number): Promise<{ y: number; height: number }> {
  const box = await page
    .locator(".editor-group-container.active .margin-view-overlays .line-numbers", { hasText: new RegExp(`^${line}$`) })
    .first()
    .boundingBox();
  if (!box) throw new Error(`line ${line} is not on screen`);
  return { y: box.y, height: box.height };
}

/**
 * The code lens link `text` drawn just above the 0-based `defLine` (lenses sit above the decorator).
 * Lenses are re-rendered when an analysis completes, so look again until one is stable on screen.
 */
async function lensAbove(defLine: number, text: string) {
  const lenses = page.locator(".editor-group-container.active .codelens-decoration a", { hasText: text });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const def = await lineNumberBox(defLine + 1).catch(() => undefined);
    const count = await lenses.count();
    let best = -1;
    let bestY = -Infinity;
    for (let i = 0; def && i < count; i++) {
      if (!(await lenses.nth(i).isVisible().catch(() => false))) continue;
      const box = await lenses.nth(i).boundingBox().catch(() => null);
      if (box && box.y < def.y && box.y > bestY) {
        bestY = box.y;
        best = i;
      }
    }
    if (best >= 0) return lenses.nth(best);
    await page.waitForTimeout(500);
  }
  throw new Error(`no "${text}" lens above line ${defLine + 1} on screen after 30s`);
}

async function mainScenario(): Promise<void> {
    await step("extension activates and the language server starts", async () => {
      await openFile("typing_errors.py");
      await waitForEvent("activation", (e) => e.event === "activated", 60_000);
      const ready = await waitForEvent(
        "the language server (serverReady, or serverFailed with its reason)",
        (e) => e.event === "serverReady" || e.event === "serverFailed",
        90_000,
      );
      if (ready.event === "serverFailed") throw new Error(`server failed: ${String(ready.message)}`);
      await page.locator(".statusbar-item", { hasText: "Numba" }).first().waitFor({ state: "visible", timeout: 10_000 });
      return `interpreter ${JSON.stringify(ready.interpreter)}`;
    });

    const errorLine = lineOf("typing_errors.py", "return x + (1, 2)");
    await step("squiggle of a typing error on the right line, and its Problems entry", async () => {
      const diagnostics = await waitForEvent(
        `an error diagnostic on typing_errors.py line ${errorLine + 1}`,
        (e) =>
          e.event === "diagnostics" &&
          String(e.uri).endsWith("/typing_errors.py") &&
          (e.items as { line: number; severity: string }[]).some((d) => d.line === errorLine && d.severity === "Error"),
        120_000,
      );
      const item = (diagnostics.items as { line: number; severity: string; message: string; code: string }[]).find(
        (d) => d.line === errorLine && d.severity === "Error",
      )!;
      // What the user sees: a red squiggle drawn on that line.
      const squiggles = page.locator(".editor-group-container.active .squiggly-error");
      await squiggles.first().waitFor({ state: "attached", timeout: 30_000 });
      const target = await lineNumberBox(errorLine + 1);
      const boxes = await squiggles.evaluateAll((nodes) =>
        nodes.map((n) => {
          const r = (n as HTMLElement).getBoundingClientRect();
          return { y: r.y, height: r.height };
        }),
      );
      const onLine = boxes.some((b) => Math.abs(b.y + b.height / 2 - (target.y + target.height / 2)) < target.height / 2);
      if (!onLine) throw new Error(`no squiggle on line ${errorLine + 1}; squiggles at y=${boxes.map((b) => b.y).join(",")}, line at y=${target.y}`);
      // And in the Problems panel.
      await runCommand("View: Focus Problems (Errors, Warnings, Infos)");
      const panel = page.locator(".markers-panel");
      await panel.waitFor({ state: "visible", timeout: 15_000 });
      const row = panel.locator(".monaco-list-row", { hasText: `[Ln ${errorLine + 1}` }).first();
      await row.waitFor({ state: "visible", timeout: 15_000 });
      const rowText = (await row.textContent()) ?? "";
      return `${item.code}: ${item.message.split("\n")[0].slice(0, 100)} | Problems: ${rowText.slice(0, 120)}`;
    });

    const walkLine = lineOf("kernels.py", "def walk(");
    const totalLine = lineOf("kernels.py", "total += x * 2.0");
    await step("hover shows a Numba type", async () => {
      await openFile("kernels.py");
      await waitForEvent("diagnostics for kernels.py", (e) => e.event === "diagnostics" && String(e.uri).endsWith("/kernels.py"), 120_000);
      const column = fs.readFileSync(path.join(WORKSPACE, "kernels.py"), "utf8").split("\n")[totalLine].indexOf("total") + 2;
      const since = Date.now();
      await goTo(totalLine + 1, column);
      await page.keyboard.press("Control+k");
      await page.keyboard.press("Control+i");
      const hover = page.locator(".monaco-hover:not(.hidden)").first();
      await hover.waitFor({ state: "visible", timeout: 20_000 });
      await page.waitForFunction(() => /float64/.test(document.querySelector(".monaco-hover:not(.hidden)")?.textContent ?? ""), null, { timeout: 30_000 });
      const text = (await hover.textContent()) ?? "";
      const logged = await waitForEvent("a hover event", (e) => e.event === "hover" && e.line === totalLine, 10_000, since);
      if (!/float64/.test(String(logged.text))) throw new Error(`hover event without float64: ${String(logged.text)}`);
      await page.keyboard.press("Escape");
      return `hover: ${text.replace(/\s+/g, " ").slice(0, 120)}`;
    });

    await step("code lenses above the jitted functions", async () => {
      const lensEvent = await waitForEvent(
        "a Debug JIT function lens for walk",
        (e) =>
          e.event === "codeLenses" &&
          String(e.uri).endsWith("/kernels.py") &&
          (e.lenses as { command?: string; arguments?: { function?: string }[] }[]).some(
            (l) => l.command === "numbaLens.debugJitFunction" && l.arguments?.[0]?.function === "walk",
          ),
        60_000,
      );
      await goTo(1, 1);
      const lens = page.locator(".editor-group-container.active .codelens-decoration a", { hasText: "Debug JIT function" });
      await lens.first().waitFor({ state: "visible", timeout: 30_000 });
      const titles = (lensEvent.lenses as { title?: string; line: number }[]).filter((l) => Math.abs(l.line - walkLine) <= 1);
      return `${await lens.count()} Debug JIT function lenses; above walk: ${titles.map((t) => t.title).join(" | ")}`;
    });

    await step("Debug JIT function stops inside walk with call stack and variables", async () => {
      const since = Date.now();
      const lens = await lensAbove(walkLine, "Debug JIT function");
      await lens.click();
      stopSessionAfterStep = true;
      const started = await waitForEvent("the lens command", (e) => e.event === "debugJitFunction", 10_000, since);
      if ((started as { function?: string }).function !== "walk") throw new Error(`lens started ${JSON.stringify(started)}`);
      const stopped = await waitForEvent(
        "a stopped event",
        (e) => e.event === "dap" && e.type === "event" && e.dapEvent === "stopped",
        150_000,
        since,
      ).catch(async (error: Error) => {
        const problems = events().filter((e) => e.time >= since && (e.event === "dapError" || e.event === "debugConfigError" || (e.event === "dap" && e.success === false)));
        throw new Error(`${error.message}; adapter said: ${JSON.stringify(problems).slice(0, 600)}`);
      });
      const walkEnd = lineOf("kernels.py", "return total");
      const stack = await waitForEvent(
        "a stackTrace whose top frame is walk in kernels.py",
        (e) => e.event === "dap" && e.type === "response" && e.command === "stackTrace" && Array.isArray(e.frames) && (e.frames as unknown[]).length > 0,
        30_000,
        stopped.time,
      );
      const frames = stack.frames as { name: string; line: number; path?: string }[];
      const top = frames[0];
      if (!/^walk\b/.test(top.name) || !String(top.path).endsWith("kernels.py") || top.line < walkLine + 1 || top.line > walkEnd + 1) {
        throw new Error(`top frame is ${JSON.stringify(top)}, expected walk in kernels.py lines ${walkLine + 1}-${walkEnd + 1}`);
      }
      // The user opens Run and Debug (Ctrl+Shift+D): VS Code then asks for scopes and variables.
      await runCommand("View: Show Run and Debug");
      await page.locator(".debug-call-stack").first().waitFor({ state: "visible", timeout: 30_000 });
      // Expand the jitted frame's scopes as a user would (VS Code expands the first one only sometimes).
      const scopeRows = page.locator('.debug-variables .monaco-list-row[aria-expanded="false"]');
      await page.locator(".debug-variables .monaco-list-row").first().waitFor({ state: "visible", timeout: 30_000 });
      for (let i = 0; i < 2 && (await scopeRows.count()) > 0; i++) {
        await scopeRows.first().click();
        await page.waitForTimeout(300);
      }
      const variables = await waitForEvent(
        "a variables response",
        (e) => e.event === "dap" && e.type === "response" && e.command === "variables" && Array.isArray(e.variables) && (e.variables as unknown[]).length > 0,
        30_000,
        stopped.time,
      );
      const names = (variables.variables as { name: string; value: string }[]).map((v) => `${v.name}=${v.value}`);
      // What the user sees: the call stack and variables views of the Run and Debug side bar.
      const pausedThread = page.locator('.debug-call-stack .monaco-list-row[aria-expanded="false"]', { hasText: "MainThread" });
      if ((await pausedThread.count()) > 0) {
        // The view opened after the stop, so the thread may still be collapsed: expand it.
        await pausedThread.first().locator(".monaco-tl-twistie").click();
      }
      const callStack = page.locator(".debug-call-stack .monaco-list-row", { hasText: "walk" }).first();
      await callStack.waitFor({ state: "visible", timeout: 30_000 });
      // One stack: the Python caller `main` under the jitted frame.
      await page.locator(".debug-call-stack .monaco-list-row", { hasText: /^\s*main\s*kernels\.py/ }).first().waitFor({ state: "visible", timeout: 30_000 });
      const variableRows = page.locator(".debug-variables .monaco-list-row");
      await variableRows.first().waitFor({ state: "visible", timeout: 30_000 });
      const shown = (await variableRows.allTextContents()).map((t) => t.trim()).filter(Boolean);
      await page.screenshot({ path: path.join(ARTIFACTS, "debug-stopped-in-walk.png") });
      // End the session and check the adapter says so.
      const stopAt = Date.now();
      stopSessionAfterStep = false;
      await page.keyboard.press("Shift+F5");
      await waitForEvent(
        "the session to end (terminated event or adapter exit)",
        (e) => (e.event === "dap" && e.dapEvent === "terminated") || e.event === "dapExit",
        30_000,
        stopAt,
      );
      return `top frame ${top.name} line ${top.line}; ${frames.length} frames; variables ${names.slice(0, 6).join(", ")}; view shows ${shown.slice(0, 4).join(" | ")}`;
    });

    if (stopSessionAfterStep) {
      // The debug step failed half-way: end its session so the next steps start clean.
      await page.keyboard.press("Shift+F5");
      await page.waitForTimeout(3000);
    }

    await step("LLVM IR view opens beside the source and follows the cursor", async () => {
      const since = Date.now();
      await goTo(1, 1);
      await (await lensAbove(walkLine, "LLVM IR")).click();
      const shown = await waitForEvent(
        "an LLVM IR view (irView, or irViewError with its reason)",
        (e) => (e.event === "irView" || e.event === "irViewError") && e.kind === "llvm",
        90_000,
        since,
      );
      if (shown.event === "irViewError") throw new Error(`the server refused: ${String(shown.message)}`);
      if (shown.function !== "walk") throw new Error(`view of ${String(shown.function)}, expected walk`);
      await page.locator(".tabs-container .tab", { hasText: "LLVM IR" }).first().waitFor({ state: "visible", timeout: 20_000 });
      // Move the cursor in the source: the view highlights that line's LLVM instructions.
      const moved = Date.now();
      await goTo(totalLine + 1, 9);
      const follow = await waitForEvent(
        `the view following source line ${totalLine + 1}`,
        (e) => e.event === "irFollow" && e.kind === "llvm" && e.line === totalLine && (e.outputLines as number[]).length > 0,
        20_000,
        moved,
      );
      await page.waitForTimeout(500); // let the highlight paint before the screenshot
      return `${String(shown.lines)} lines of LLVM IR for ${String(shown.signature)}; line ${totalLine + 1} -> ${(follow.outputLines as number[]).length} highlighted lines`;
    });

    await step("Debug JIT function in a file without __main__ offers the scripts that use it", async () => {
      // A script in the workspace (copy) that imports and calls the jitted function.
      fs.writeFileSync(
        path.join(WORKSPACE, "run_collect.py"),
        'from untyped_list import collect_typed\n\nif __name__ == "__main__":\n    print(collect_typed(3))\n',
      );
      await openFile("untyped_list.py");
      const defLine = lineOf("untyped_list.py", "def collect_typed(");
      await goTo(defLine + 1, 1);
      const since = Date.now();
      stopSessionAfterStep = true;
      await (await lensAbove(defLine, "Debug JIT function")).click();
      const pick = page.locator(".quick-input-widget .monaco-list-row", { hasText: "run_collect.py" }).first();
      await pick.waitFor({ state: "visible", timeout: 30_000 });
      const offered = (await page.locator(".quick-input-widget .monaco-list-row").allTextContents()).map((t) => t.trim());
      await pick.click();
      const stopped = await waitForEvent("a stopped event", (e) => e.event === "dap" && e.type === "event" && e.dapEvent === "stopped", 150_000, since);
      const stack = await waitForEvent(
        "a stackTrace in collect_typed",
        (e) => e.event === "dap" && e.type === "response" && e.command === "stackTrace" && Array.isArray(e.frames) && (e.frames as unknown[]).length > 0,
        30_000,
        stopped.time,
      );
      const top = (stack.frames as { name: string; line: number; path?: string }[])[0];
      if (!/^collect_typed\b/.test(top.name) || !String(top.path).endsWith("untyped_list.py")) {
        throw new Error(`top frame is ${JSON.stringify(top)}, expected collect_typed in untyped_list.py`);
      }
      const launch = events().find((e) => e.event === "dap" && e.type === "request" && e.command === "launch" && e.time >= since);
      const program = String((launch?.arguments as { program?: string } | undefined)?.program);
      if (!program.endsWith("run_collect.py")) throw new Error(`launched ${program}, expected run_collect.py`);
      stopSessionAfterStep = false;
      const stopAt = Date.now();
      await page.keyboard.press("Shift+F5");
      await waitForEvent("the session to end", (e) => (e.event === "dap" && e.dapEvent === "terminated") || e.event === "dapExit", 30_000, stopAt);
      return `offered: ${offered.join(" | ").slice(0, 150)}; stopped in ${top.name} line ${top.line}`;
    });
    if (stopSessionAfterStep) {
      await page.keyboard.press("Shift+F5");
      await page.waitForTimeout(3000);
      stopSessionAfterStep = false;
    }

    await step("Show debug information reports the interpreter and the doctor", async () => {
      const since = Date.now();
      await runCommand("Numba Lens: Show debug information");
      const info = await waitForEvent("the debug information report", (e) => e.event === "debugInfo", 120_000, since);
      const text = String(info.text);
      for (const needle of ["Interpreter:", "pyserver doctor", "numba", "gdb"]) {
        if (!text.includes(needle)) throw new Error(`the report lacks "${needle}": ${text.slice(0, 400)}`);
      }
      await page.locator(".tabs-container .tab.active", { hasText: "Untitled" }).first().waitFor({ state: "visible", timeout: 20_000 });
      return text.split("\n").filter((l) => l.startsWith("- ")).slice(0, 4).join(" ").slice(0, 300);
    });

    await step("Record signatures in a new terminal: a run there writes .numba-lens/signatures.json", async () => {
      const since = Date.now();
      await runCommand("Numba Lens: Record signatures in a new terminal");
      await waitForEvent("the recording terminal", (e) => e.event === "recordingTerminal", 20_000, since);
      const terminal = page.locator(".terminal-wrapper.active .xterm, .terminal .xterm").first();
      await terminal.waitFor({ state: "visible", timeout: 30_000 });
      await page.waitForTimeout(2000); // the shell under `pyserver record` starts
      await terminal.click();
      const python = process.env.E2E_PYTHON ?? "python3";
      await page.keyboard.type(`${python} kernels.py; exit\n`, { delay: 5 });
      const file = path.join(WORKSPACE, ".numba-lens", "signatures.json");
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        if (fs.existsSync(file) && fs.readFileSync(file, "utf8").includes("walk")) break;
        await page.waitForTimeout(500);
      }
      if (!fs.existsSync(file)) throw new Error(`${file} was not written`);
      const recorded = fs.readFileSync(file, "utf8");
      if (!recorded.includes("walk")) throw new Error(`walk not recorded: ${recorded.slice(0, 300)}`);
      return `${file.replace(WORKSPACE + "/", "")}: ${recorded.length} bytes, walk recorded`;
    });

    await step("numbaLens.recordSignatures: new terminals carry the recording variables", async () => {
      // Switched on in the workspace's .vscode/settings.json (VS Code watches it).
      const since = Date.now();
      const settingsFile = path.join(WORKSPACE, ".vscode", "settings.json");
      const current = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, "utf8")) as Record<string, unknown>) : {};
      fs.writeFileSync(settingsFile, JSON.stringify({ ...current, "numbaLens.recordSignatures": true }, null, 2));
      const on = await waitForEvent("recording switched on", (e) => e.event === "recording" && e.on === true, 60_000, since);
      await runCommand("Terminal: Create New Terminal");
      const terminal = page.locator(".terminal-wrapper.active .xterm").first();
      await terminal.waitFor({ state: "visible", timeout: 30_000 });
      await page.waitForTimeout(1500);
      await terminal.click();
      await page.keyboard.type("env | grep -E '^(NUMBA_LENS_RECORD|PYTHONPATH)=' > terminal-env.txt\n", { delay: 5 });
      const out = path.join(WORKSPACE, "terminal-env.txt");
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !(fs.existsSync(out) && fs.readFileSync(out, "utf8").includes("NUMBA_LENS_RECORD="))) {
        await page.waitForTimeout(300);
      }
      const seen = fs.existsSync(out) ? fs.readFileSync(out, "utf8") : "";
      if (!/NUMBA_LENS_RECORD=.*signatures\.json/.test(seen)) throw new Error(`the terminal has no recording variables: ${seen || "(nothing written)"}`);
      return `variables ${JSON.stringify(on.variables)}; terminal: ${seen.trim().split("\n")[0].slice(0, 120)}`;
    });
}

/** The status bar item's text (it has the id numbaLens.status). */
async function statusText(): Promise<string> {
  const item = page.locator('.statusbar-item[id*="numbaLens.status"], .statusbar-item:has-text("Numba:")').first();
  await item.waitFor({ state: "visible", timeout: 30_000 });
  return ((await item.textContent()) ?? "").trim();
}

async function noNumbaScenario(): Promise<void> {
  await step("an interpreter without Numba: one clear message with the install command", async () => {
    await openFile("kernels.py");
    const notification = await waitForEvent(
      "a notification that Numba is missing",
      (e) => e.event === "notification" && /numba/i.test(String(e.message)),
      90_000,
    );
    const message = String(notification.message);
    if (!/pip install/.test(message)) throw new Error(`the message has no install command: ${message}`);
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "pip install" });
    await toast.first().waitFor({ state: "visible", timeout: 20_000 });
    await toast.first().getByRole("button", { name: "Copy install command" }).waitFor({ state: "visible", timeout: 5_000 });
    await page.waitForFunction(() => /Numba: failed/.test(document.querySelector(".part.statusbar")?.textContent ?? ""), null, { timeout: 20_000 });
    return `status "${await statusText()}"; message: ${message.slice(0, 160)}`;
  });
  await step("no crash loop and no repeated message while more files open", async () => {
    await openFile("typing_errors.py");
    await openFile("untyped_list.py");
    await page.waitForTimeout(8000);
    const all = events();
    const notifications = all.filter((e) => e.event === "notification");
    const starts = all.filter((e) => e.event === "serverState" && e.state === "Starting");
    const toasts = await page.locator(".notifications-toasts .notification-toast", { hasText: "pip install" }).count();
    if (notifications.length !== 1) throw new Error(`${notifications.length} notifications: ${JSON.stringify(notifications)}`);
    if (starts.length !== 1) throw new Error(`the server started ${starts.length} times`);
    if (toasts !== 1) throw new Error(`${toasts} toasts on screen`);
    const status = await statusText();
    if (!/Numba: failed/.test(status)) throw new Error(`the status item reads "${status}", not "Numba: failed"`);
    if (all.some((e) => e.event === "diagnostics" && (e.items as unknown[]).length > 0)) throw new Error("diagnostics without Numba?");
    return `1 notification, 1 server start, status "${await statusText()}"`;
  });
}

async function untrustedScenario(): Promise<void> {
  await step("untrusted: nothing is analysed and the status says why", async () => {
    await openFile("typing_errors.py");
    await waitForEvent("activation", (e) => e.event === "activated" && e.trusted === false, 60_000);
    await page.waitForFunction(() => /Numba: untrusted/.test(document.querySelector(".part.statusbar")?.textContent ?? ""), null, { timeout: 30_000 });
    await page.waitForTimeout(8000);
    const diagnostics = events().filter((e) => e.event === "diagnostics" && (e.items as unknown[]).length > 0);
    if (diagnostics.length > 0) throw new Error(`diagnostics in an untrusted workspace: ${JSON.stringify(diagnostics).slice(0, 300)}`);
    if ((await page.locator(".editor-group-container.active .squiggly-error").count()) > 0) throw new Error("a squiggle in an untrusted workspace");
    // The server said why once; under the default numbaLens.showNotifications ("onError") that warning
    // goes to the log and the status item, not to a toast.
    const said = events().filter((e) => e.event === "notification" && /not trusted/.test(String(e.message)));
    if (said.length !== 1) throw new Error(`expected the server's untrusted message once, got ${said.length}`);
    if ((await page.locator(".notifications-toasts .notification-toast", { hasText: "not trusted" }).count()) > 0) {
      throw new Error("a toast for a warning although numbaLens.showNotifications is onError");
    }
    return `status "${await statusText()}", no diagnostics after 8 s`;
  });
  await step("trusting the workspace restarts the server and analysis starts", async () => {
    const since = Date.now();
    await runCommand("Workspaces: Manage Workspace Trust");
    const trust = page.getByRole("button", { name: /^Trust( Folder)?$/ }).first();
    await trust.waitFor({ state: "visible", timeout: 20_000 });
    await trust.click();
    const ready = await waitForEvent("a server restart with trust", (e) => e.event === "serverReady" && e.trusted === true, 90_000, since);
    const errorLine = lineOf("typing_errors.py", "return x + (1, 2)");
    await waitForEvent(
      "the typing error after trust",
      (e) =>
        e.event === "diagnostics" &&
        String(e.uri).endsWith("/typing_errors.py") &&
        (e.items as { line: number; severity: string }[]).some((d) => d.line === errorLine && d.severity === "Error"),
      120_000,
      since,
    );
    return `server restarted (${JSON.stringify(ready.interpreter)}), typing error on line ${errorLine + 1}`;
  });
}

async function main(): Promise<number> {
  const context = await chromium.launchPersistentContext(PROFILE, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  try {
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);

    const workbench = await step("workbench opens the examples folder", async () => {
      await page.goto(URL, { waitUntil: "domcontentloaded" });
      await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
      if (SCENARIO === "untrusted") {
        // Either a dialog asks whether to trust the folder (the user says no), or the window opens
        // straight in Restricted Mode.
        const no = page.getByRole("button", { name: /No, I don.t trust/ });
        const restricted = page.locator(".statusbar-item", { hasText: "Restricted Mode" }).first();
        await Promise.race([no.waitFor({ state: "visible", timeout: 60_000 }), restricted.waitFor({ state: "visible", timeout: 60_000 })]);
        if (await no.isVisible()) await no.click();
        await restricted.waitFor({ state: "visible", timeout: 30_000 });
      }
      await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({ timeout: 60_000 });
      return "workbench and explorer visible";
    });
    if (!workbench) return 1;
    if (SCENARIO === "main") await mainScenario();
    else if (SCENARIO === "no-numba") await noNumbaScenario();
    else if (SCENARIO === "untrusted") await untrustedScenario();
    else throw new Error(`unknown E2E_SCENARIO ${SCENARIO}`);
  } finally {
    await context.close();
  }
  const failed = results.filter((r) => !r.ok);
  fs.writeFileSync(path.join(ARTIFACTS, "results.json"), JSON.stringify(results, null, 2));
  console.log(`e2e: ${results.length - failed.length}/${results.length} steps passed; screenshots in ${ARTIFACTS}`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`e2e: FAILED: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
