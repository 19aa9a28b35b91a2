// Shared driver of the real-editor tests: the environment scripts/e2e.sh sets, the extension's event
// log, steps with screenshots, and the editor gestures every scenario uses (open a file, run a command,
// go to a line, click a code lens).
import * as fs from "node:fs";
import * as path from "node:path";
import type { Page } from "playwright-core";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run scripts/e2e.sh)`);
  return value;
};
export const URL = env("E2E_URL");
export const WORKSPACE = env("E2E_WORKSPACE");
export const EVENTS = env("E2E_EVENTS");
export const ARTIFACTS = env("E2E_ARTIFACTS");
export const CHROMIUM = env("E2E_CHROMIUM");
export const PROFILE = env("E2E_PROFILE");
export const SCENARIO = process.env.E2E_SCENARIO ?? "main";

export interface Event {
  time: number;
  event: string;
  [key: string]: unknown;
}

export function events(): Event[] {
  return fs
    .readFileSync(EVENTS, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Event);
}

/** Polls the event log until `predicate` finds an event, or fails with `what`. */
export async function waitForEvent(what: string, predicate: (e: Event) => boolean, timeoutMs: number, since = 0): Promise<Event> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = events().find((e) => e.time >= since && predicate(e));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

/** 0-based line of the first line containing `needle` in a workspace file. */
export function lineOf(file: string, needle: string): number {
  const lines = fs.readFileSync(path.join(WORKSPACE, file), "utf8").split("\n");
  const index = lines.findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`"${needle}" not found in ${file}`);
  return index;
}

export interface StepResult {
  name: string;
  ok: boolean;
  detail: string;
  seconds: number;
}
export const results: StepResult[] = [];
export let page: Page;
let stepNumber = 0;

export async function step(name: string, body: () => Promise<string>): Promise<boolean> {
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

export async function openFile(name: string): Promise<void> {
  const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label^="${name}"]`).first();
  if (!(await row.isVisible())) await runCommand("View: Show Explorer");
  await row.waitFor({ state: "visible", timeout: 30_000 });
  // The mouse resting on the row it clicked before keeps that row's path hover open, and the hover lies
  // over the rows below it: take the mouse to the window's corner and let the hover go first.
  await page.mouse.move(1, 1);
  await page.locator(".context-view .hover-contents").first().waitFor({ state: "hidden", timeout: 5_000 }).catch(() => undefined);
  await row.click();
  await page.locator(`.tabs-container .tab.active[aria-label^="${name}"]`).first().waitFor({ timeout: 30_000 });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: 30_000 });
}

export async function runCommand(title: string): Promise<void> {
  const input = page.locator(".quick-input-widget input");
  // The workbench may close the palette right after it opens (a debug session starting moves the focus
  // to the Run and Debug view): open it again, up to three times.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    await input.waitFor({ state: "visible", timeout: 10_000 });
    const filled = await input.fill(`>${title}`, { timeout: 5_000 }).then(() => true, (error: unknown) => {
      if (attempt >= 3) throw error;
      return false;
    });
    if (filled) break;
    await page.keyboard.press("Escape");
  }
  // The list is filtered a moment after the text changes: wait for the command's own row and pick it
  // (Enter at once could run the previous first row); a title shown differently falls back to Enter.
  const row = page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first();
  if (await row.waitFor({ state: "visible", timeout: 10_000 }).then(() => true, () => false)) {
    // Enter runs the focused row: the command's own once the list has settled (else click it).
    const focused = page.locator(".quick-input-widget .monaco-list-row.focused", { hasText: title });
    if (await focused.first().waitFor({ state: "visible", timeout: 3_000 }).then(() => true, () => false)) await page.keyboard.press("Enter");
    else await row.click({ force: true });
  } else {
    await page.locator(".quick-input-widget .monaco-list-row").first().waitFor({ timeout: 10_000 });
    await page.keyboard.press("Enter");
  }
}

/**
 * Shows the hover at the cursor (Ctrl+K Ctrl+I) and returns its widget. A hover shown just before the
 * file's lenses or inlay hints arrive is closed by the editor when they shift the lines: ask again, as a
 * user would, until it stays.
 */
export async function showHover(where: string) {
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Control+k");
    await page.keyboard.press("Control+i");
    if (await hover.waitFor({ state: "visible", timeout: 5_000 }).then(() => true, () => false)) return hover;
    if (attempt >= 4) throw new Error(`no hover at ${where} after ${attempt} requests`);
  }
}

/** Moves the cursor with "Go to Line/Column" (1-based line and column). */
export async function goTo(line: number, column: number): Promise<void> {
  // Ctrl+G (Go to Line/Column) acts on the active editor wherever the focus is.
  await page.keyboard.press("Control+g");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`:${line}:${column}`);
  // Enter before the picker has read the new text does nothing: wait for its "go to line" row.
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: `line ${line}` }).first().waitFor({ state: "visible", timeout: 10_000 });
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: 10_000 });
}

/** The screen y of a 1-based line number in the gutter of the active editor. */
export async function lineNumberBox(line: number): Promise<{ y: number; height: number }> {
  const box = await page
    .locator(".editor-group-container.active .margin-view-overlays .line-numbers", { hasText: new RegExp(`^${line}$`) })
    .first()
    .boundingBox();
  if (!box) throw new Error(`line ${line} is not on screen`);
  return { y: box.y, height: box.height };
}

const MAX_DECORATOR_LINES = 4;

/**
 * The code lens link `text` drawn just above the 0-based `defLine` (lenses sit above the decorator).
 * Lenses are re-rendered when an analysis completes, so look again until one is stable on screen.
 */
export async function lensAbove(defLine: number, text: string) {
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
      // Only a lens of this function: right above its decorators (a few lines), never one further up
      // whose function's lens row is drawn while this one's is being re-rendered.
      const near = def.y - (MAX_DECORATOR_LINES + 2) * def.height;
      if (box && box.y < def.y && box.y > near && box.y > bestY) {
        bestY = box.y;
        best = i;
      }
    }
    if (best >= 0) return lenses.nth(best);
    await page.waitForTimeout(500);
  }
  throw new Error(`no "${text}" lens above line ${defLine + 1} on screen after 30s`);
}

/** The status bar item's text (it has the id numbaLens.status). */
export async function statusText(): Promise<string> {
  const item = page.locator('.statusbar-item[id*="numbaLens.status"], .statusbar-item:has-text("Numba:")').first();
  await item.waitFor({ state: "visible", timeout: 30_000 });
  return ((await item.textContent()) ?? "").trim();
}

/** Set by the entry once the browser page exists. */
export function setPage(p: Page): void {
  page = p;
}

/** Where a scenario's README shots go (scripts/e2e.sh copies them to docs/images/ with E2E_PUBLISH=1). */
export const PUBLISH = path.join(ARTIFACTS, "publish");

/** Saves a README shot: the side bar and the editor ("window"), the side bar alone, or the editor alone; JPEG, cropped. */
export async function publishShot(file: string, region: "window" | "sidebar" | "editor"): Promise<void> {
  fs.mkdirSync(PUBLISH, { recursive: true });
  await page.waitForTimeout(400); // let the last rows and decorations paint
  const sidebar = await page.locator(".part.sidebar").boundingBox();
  const editor = await page.locator(".part.editor").boundingBox();
  if (!editor || (region !== "editor" && !sidebar)) throw new Error("no side bar or editor on screen");
  const clip =
    region === "sidebar"
      ? { x: sidebar!.x, y: 0, width: sidebar!.width, height: sidebar!.y + sidebar!.height }
      : region === "editor"
        ? { x: editor.x, y: 0, width: editor.width, height: editor.y + editor.height }
        : { x: 0, y: 0, width: editor.x + editor.width, height: Math.max(editor.y + editor.height, sidebar!.y + sidebar!.height) };
  await page.screenshot({ path: path.join(PUBLISH, file), type: "jpeg", quality: 82, clip });
  // The same region losslessly, beside the other step shots (for reviewing the run).
  await page.screenshot({ path: path.join(ARTIFACTS, `readme-${file.replace(/\.jpg$/, ".png")}`), clip });
}
