// An interpreter without Numba: one clear message with the install command, status "failed", no crash loop.
import { events, openFile, page, statusText, step, waitForEvent } from "./driver";

export async function noNumbaScenario(): Promise<void> {
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
