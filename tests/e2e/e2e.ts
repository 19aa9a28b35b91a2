// Drives a real VS Code (code-server, started by scripts/e2e.sh) with Playwright and Debian's Chromium,
// with the built .vsix installed, in one scenario (E2E_SCENARIO). Every step saves a screenshot;
// assertions use both the DOM (what a user sees) and the extension's event log (NUMBA_LENS_TEST_EVENTS).
// The shared gestures are in driver.ts, each scenario in its own scenario-*.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { chromium } from "playwright-core";
import { ARTIFACTS, CHROMIUM, page, PROFILE, results, SCENARIO, setPage, step, URL } from "./driver";
import { debuggerScenario, prepareDebuggerWorkspace } from "./scenario-debugger";
import { mainScenario } from "./scenario-main";
import { noNumbaScenario } from "./scenario-no-numba";
import { notebookScenario } from "./scenario-notebook";
import { profileScenario } from "./scenario-profile";
import { untrustedScenario } from "./scenario-untrusted";

async function main(): Promise<number> {
  if (SCENARIO === "debugger") prepareDebuggerWorkspace();
  const context = await chromium.launchPersistentContext(PROFILE, {
    executablePath: CHROMIUM,
    headless: true,
    // The debugger scenario's Variables view needs the height (its shots are cropped to the regions).
    viewport: SCENARIO === "debugger" ? { width: 1440, height: 1100 } : { width: 1600, height: 1000 },
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
    setPage(context.pages()[0] ?? (await context.newPage()));
    page.setDefaultTimeout(30_000);

    const workbench = await step("workbench opens the workspace folder", async () => {
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
    else if (SCENARIO === "debugger") await debuggerScenario();
    else if (SCENARIO === "profile") await profileScenario();
    else if (SCENARIO === "notebook") await notebookScenario();
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
