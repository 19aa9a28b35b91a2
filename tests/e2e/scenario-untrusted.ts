// An untrusted workspace: nothing analysed, the status says why; trusting it restarts the server.
import { events, lineOf, openFile, page, runCommand, statusText, step, waitForEvent } from "./driver";

export async function untrustedScenario(): Promise<void> {
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
