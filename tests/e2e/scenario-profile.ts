// The profiler in the editor: the "Profile" lens runs a file, then the heat overlay, the hot-spots view
// and the flame graph (speedscope in a web view) show where the time went, jitted lines included.
import { events, lensAbove, lineOf, openFile, page, publishShot, runCommand, step, waitForEvent } from "./driver";

const FILE = "profile_demo.py";

export async function profileScenario(): Promise<void> {
  await step("the language server starts", async () => {
    await openFile(FILE);
    await waitForEvent("activation", (e) => e.event === "activated", 60_000);
    const ready = await waitForEvent("serverReady or serverFailed", (e) => e.event === "serverReady" || e.event === "serverFailed", 90_000);
    if (ready.event === "serverFailed") throw new Error(`server failed: ${String(ready.message)}`);
    return `interpreter ${JSON.stringify(ready.interpreter)}`;
  });

  const hotLine = lineOf(FILE, "total += values[i + k]");
  await step("the Profile lens runs the file and the profile is shown", async () => {
    const since = Date.now();
    await (await lensAbove(0, "Profile")).click();
    await waitForEvent("the profile starting", (e) => e.event === "profileStarted", 20_000, since);
    const shown = await waitForEvent("the profile shown", (e) => e.event === "profileShown", 240_000, since);
    if (!((shown.samples as number) > 0)) throw new Error(`no samples: ${JSON.stringify(shown)}`);
    return `${String(shown.samples)} samples, ${String(shown.lines)} lines, exit code ${String(shown.exitCode)}`;
  });

  await step("the hot-spots view opens by itself and lists the jitted function with its hot line", async () => {
    // No command: a finished profile reveals the view (the editor keeps the focus).
    const row = page.locator(".monaco-list-row", { hasText: "smooth [jit]" }).first();
    const shown = await row.waitFor({ state: "visible", timeout: 20_000 }).then(() => true, () => false);
    if (!shown) {
      const panes = await page.locator(".pane-header").allInnerTexts();
      const rows = await page.locator(".monaco-list-row").allInnerTexts();
      throw new Error(`no "smooth [jit]" row; panes ${JSON.stringify(panes)}; rows ${JSON.stringify(rows.slice(0, 20))}`);
    }
    await row.click(); // opens its hottest line
    await row.locator(".monaco-tl-twistie").click(); // and shows its lines
    const lineRow = page.locator(".monaco-list-row", { hasText: `line ${hotLine + 1}` }).first();
    await lineRow.waitFor({ state: "visible", timeout: 10_000 });
    // The heat overlay: the hottest line carries the strongest background and its percent.
    await page.waitForTimeout(1000);
    await publishShot("profile-heat.jpg", "window");
    return `${(await page.locator(".monaco-list-row", { hasText: "[jit]" }).first().textContent())?.trim()}`;
  });

  await step("the flame graph opens in speedscope", async () => {
    await runCommand("Numba Lens: Show the profile's flame graph");
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      for (const frame of page.frames()) {
        const text = await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "");
        if (/Left Heavy/.test(text)) {
          await page.waitForTimeout(1500);
          await publishShot("profile-flame.jpg", "editor");
          const all = events().filter((e) => e.event === "profileShown").length;
          return `speedscope shows the profile (${all} profile run)`;
        }
      }
      await page.waitForTimeout(1000);
    }
    throw new Error("speedscope's toolbar did not appear in any frame");
  });
}
