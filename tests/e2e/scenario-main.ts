// The user's view: diagnostics, hover, lenses, the Debug JIT function session, an IR view, recording.
import * as fs from "node:fs";
import * as path from "node:path";
import { ARTIFACTS, events, goTo, lensAbove, lineNumberBox, lineOf, openFile, page, publishShot, runCommand, showHover, step, waitForEvent, WORKSPACE } from "./driver";

// Hovers the word on a line of a workspace file and waits for a float64 type, in the editor and in the server's log.
async function hoverShowsFloat64(file: string, line: number, word: string, shot: string): Promise<string> {
  const column = fs.readFileSync(path.join(WORKSPACE, file), "utf8").split("\n")[line].indexOf(word) + 2;
  const since = Date.now();
  await goTo(line + 1, column);
  const hover = await showHover(`${file}:${line + 1}`);
  await page.waitForFunction(() => /float64/.test(document.querySelector(".monaco-hover:not(.hidden)")?.textContent ?? ""), null, { timeout: 30_000 });
  const text = (await hover.textContent()) ?? "";
  // The widget may have asked more than once (showHover): the server answered float64 to one of them.
  await waitForEvent(
    `a hover event with float64 in ${file}`,
    (e) => e.event === "hover" && e.line === line && /float64/.test(String(e.text)),
    10_000,
    since,
  );
  await publishShot(shot, "editor");
  await page.keyboard.press("Escape");
  return `hover: ${text.replace(/\s+/g, " ").slice(0, 120)}`;
}

export async function mainScenario(): Promise<void> {
    let stopSessionAfterStep = false;
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
      await publishShot("editor-diagnostics.jpg", "editor");
      return `${item.code}: ${item.message.split("\n")[0].slice(0, 100)} | Problems: ${rowText.slice(0, 120)}`;
    });

    const walkLine = lineOf("kernels.py", "def walk(");
    const totalLine = lineOf("kernels.py", "total += x * 2.0");
    await step("hover shows a Numba type", async () => {
      await openFile("kernels.py");
      await waitForEvent("diagnostics for kernels.py", (e) => e.event === "diagnostics" && String(e.uri).endsWith("/kernels.py"), 120_000);
      return hoverShowsFloat64("kernels.py", totalLine, "total", "editor-hover.jpg");
    });

    // A CUDA kernel, typed without a GPU: the mistake in add_one squiggled, a kernel variable's type on hover.
    const cudaErrorLine = lineOf("cuda_kernels.py", "out[i] = a[i] + (1, 2)");
    const cudaHoverLine = lineOf("cuda_kernels.py", "out[i] = scaled(values[i], factor)");
    await step("a CUDA kernel: its mistake squiggled and a variable's type on hover", async () => {
      await openFile("cuda_kernels.py");
      await waitForEvent(
        `an error diagnostic on cuda_kernels.py line ${cudaErrorLine + 1}`,
        (e) =>
          e.event === "diagnostics" &&
          String(e.uri).endsWith("/cuda_kernels.py") &&
          (e.items as { line: number; severity: string }[]).some((d) => d.line === cudaErrorLine && d.severity === "Error"),
        120_000,
      );
      await page.locator(".editor-group-container.active .squiggly-error").first().waitFor({ state: "attached", timeout: 30_000 });
      return hoverShowsFloat64("cuda_kernels.py", cudaHoverLine, "values", "editor-cuda.jpg");
    });

    // Explanations in the editor: a plain-Python helper called from jitted code gets its cause and fix on hover,
    // and a parallel=True loop says what Numba made of it (inlay hint). The file is written into the
    // workspace copy, so examples/ (checked by other tests) stays as it is.
    const insightSource = [
      "import numpy as np",
      "from numba import njit, prange",
      "",
      "",
      "def helper(x):",
      "    return x * 2.0",
      "",
      "",
      "@njit",
      "def uses_helper(a):",
      "    return helper(a[0])",
      "",
      "",
      "@njit(parallel=True)",
      "def scale_rows(m):",
      "    out = np.empty_like(m)",
      "    for i in prange(m.shape[0]):",
      "        out[i] = m[i] * 2.0",
      "    return out",
      "",
      "",
      'if __name__ == "__main__":',
      "    uses_helper(np.ones(3))",
      "    scale_rows(np.ones((4, 4)))",
      "",
    ];
    await step("an error explained (why and fix on hover) and the parallel report inline", async () => {
      fs.writeFileSync(path.join(WORKSPACE, "insight_demo.py"), insightSource.join("\n"));
      const helperLine = insightSource.indexOf("    return helper(a[0])");
      const loopLine = insightSource.indexOf("    for i in prange(m.shape[0]):");
      await openFile("insight_demo.py");
      await waitForEvent(
        `an error on insight_demo.py line ${helperLine + 1}`,
        (e) =>
          e.event === "diagnostics" &&
          String(e.uri).endsWith("/insight_demo.py") &&
          (e.items as { line: number; severity: string }[]).some((d) => d.line === helperLine && d.severity === "Error"),
        120_000,
      );
      const hint = await waitForEvent(
        `a parallel-region inlay hint on line ${loopLine + 1}`,
        (e) =>
          e.event === "inlayHints" &&
          String(e.uri).endsWith("/insight_demo.py") &&
          (e.hints as { line: number; label: string }[]).some((h) => h.line === loopLine && /parallel/.test(h.label)),
        60_000,
      );
      const since = Date.now();
      await goTo(helperLine + 1, insightSource[helperLine].indexOf("helper") + 3);
      await showHover(`insight_demo.py:${helperLine + 1}`);
      const logged = await waitForEvent("a hover event on the call of helper", (e) => e.event === "hover" && e.line === helperLine, 20_000, since);
      const text = String(logged.text);
      if (!/Why/.test(text) || !/@njit/.test(text)) throw new Error(`hover without the cause and the @njit fix: ${text.slice(0, 300)}`);
      await page.waitForFunction(() => /Why/.test(document.querySelector(".monaco-hover:not(.hidden)")?.textContent ?? ""), null, { timeout: 20_000 });
      await publishShot("insight-why-fix.jpg", "editor");
      await page.keyboard.press("Escape");
      await openFile("kernels.py"); // the steps after this one work in kernels.py
      const label = (hint.hints as { line: number; label: string }[]).find((h) => h.line === loopLine && /parallel/.test(h.label))!.label;
      return `hover: ${text.replace(/\s+/g, " ").slice(0, 140)} | inlay on the prange line: ${label}`;
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
      // The run ends with `exit`: its terminal closes, and the next step starts from a workbench without it.
      await page.locator(".terminal-wrapper .xterm").first().waitFor({ state: "detached", timeout: 30_000 });
      return `${file.replace(WORKSPACE + "/", "")}: ${recorded.length} bytes, walk recorded`;
    });

    await step("numbaLens.recordSignatures: new terminals carry the recording variables", async () => {
      // Switched on in the workspace's .vscode/settings.json (VS Code watches it).
      const since = Date.now();
      const settingsFile = path.join(WORKSPACE, ".vscode", "settings.json");
      const current = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, "utf8")) as Record<string, unknown>) : {};
      fs.writeFileSync(settingsFile, JSON.stringify({ ...current, "numbaLens.recordSignatures": true }, null, 2));
      const on = await waitForEvent("recording switched on", (e) => e.event === "recording" && e.on === true, 60_000, since);
      const terminal = page.locator(".terminal-wrapper.active .xterm").first();
      // The workbench at times shows no terminal for the first command (its panel stays closed): ask again.
      for (let attempt = 1; ; attempt++) {
        await runCommand("Terminal: Create New Terminal");
        if (await terminal.waitFor({ state: "visible", timeout: 10_000 }).then(() => true, () => false)) break;
        if (attempt >= 3) throw new Error(`no terminal after ${attempt} "Terminal: Create New Terminal" commands`);
        await page.keyboard.press("Escape");
      }
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
