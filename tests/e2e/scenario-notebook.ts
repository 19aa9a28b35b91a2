// A Jupyter notebook in VS Code's built-in notebook editor (the ipynb extension; no kernel runs):
// the typing error squiggled in the cell that holds it, on its line; a hover in another cell with the
// types that the call in a later cell gives; the cells' diagnostics in the event log name their cell.
import * as fs from "node:fs";
import * as path from "node:path";
import { events, openFile, page, publishShot, runCommand, showHover, step, waitForEvent, WORKSPACE } from "./driver";

const NOTEBOOK = "notebook.ipynb";

interface CellItem {
  line: number;
  character: number;
  severity: string;
  code: string;
  message: string;
}

/** The notebook's cells as the file has them: their kind and lines. */
function notebookCells(): { kind: string; lines: string[] }[] {
  const document = JSON.parse(fs.readFileSync(path.join(WORKSPACE, NOTEBOOK), "utf8")) as {
    cells: { cell_type: string; source: string | string[] }[];
  };
  return document.cells.map((c) => ({
    kind: c.cell_type,
    lines: (Array.isArray(c.source) ? c.source.join("") : c.source).split("\n"),
  }));
}

/** The index of the first cell with a line containing `needle`, and that line (0-based, in the cell). */
function cellLine(needle: string): { cell: number; line: number } {
  const cells = notebookCells();
  for (let cell = 0; cell < cells.length; cell++) {
    const line = cells[cell].lines.findIndex((l) => l.includes(needle));
    if (line >= 0) return { cell, line };
  }
  throw new Error(`"${needle}" is in no cell of ${NOTEBOOK}`);
}

/** The notebook list row of cell `index` (its rows carry the cell's index). */
function cellRow(index: number) {
  return page.locator(`.notebook-editor .monaco-list-row[data-index="${index}"]`).first();
}

export async function notebookScenario(): Promise<void> {
  const error = cellLine("total += x + (offset, 1)");
  const hovered = cellLine("window = values[lo : i + 1]");
  const caller = cellLine("smoothed = smooth(data, 5)");
  if (!(caller.cell > hovered.cell && caller.cell > error.cell)) throw new Error("the call must be in a later cell");

  await step("the notebook opens in VS Code's notebook editor and the language server starts", async () => {
    await openFile(NOTEBOOK);
    const notebookEditor = page.locator(".notebook-editor").first();
    let how = "opened from the explorer";
    if (!(await notebookEditor.waitFor({ state: "visible", timeout: 20_000 }).then(() => true, () => false))) {
      // On a loaded machine the workbench may open the file before the notebook editor is registered:
      // it shows the JSON text. Reopen it with the notebook editor, as a user would.
      await runCommand("View: Reopen Editor With...");
      await page.locator(".quick-input-widget .monaco-list-row", { hasText: "Jupyter Notebook" }).first().click();
      how = "reopened with the notebook editor";
    }
    await notebookEditor.waitFor({ state: "visible", timeout: 60_000 });
    await waitForEvent("activation", (e) => e.event === "activated", 60_000);
    const ready = await waitForEvent(
      "the language server (serverReady, or serverFailed with its reason)",
      (e) => e.event === "serverReady" || e.event === "serverFailed",
      90_000,
    );
    if (ready.event === "serverFailed") throw new Error(`server failed: ${String(ready.message)}`);
    await cellRow(error.cell).waitFor({ state: "visible", timeout: 30_000 });
    return `notebook editor (${how}) with ${await page.locator(".notebook-editor .monaco-list-row").count()} cell rows; interpreter ${JSON.stringify(ready.interpreter)}`;
  });

  await step("a typing error squiggled in the right cell, on its line", async () => {
    const published = await waitForEvent(
      `an error diagnostic on cell ${error.cell + 1}, line ${error.line + 1}`,
      (e) =>
        e.event === "diagnostics" &&
        e.cell === error.cell &&
        String(e.notebook).endsWith(`/${NOTEBOOK}`) &&
        (e.items as CellItem[]).some((d) => d.line === error.line && d.severity === "Error"),
      180_000,
    );
    const item = (published.items as CellItem[]).find((d) => d.line === error.line && d.severity === "Error")!;
    if (item.code !== "typing-error") throw new Error(`the error's code is ${item.code}`);
    // No other cell got an error (the latest diagnostics of each cell).
    const latest = new Map<number, CellItem[]>();
    for (const e of events()) if (e.event === "diagnostics" && typeof e.cell === "number") latest.set(e.cell, e.items as CellItem[]);
    const elsewhere = [...latest].filter(([cell, items]) => cell !== error.cell && items.some((d) => d.severity === "Error"));
    if (elsewhere.length > 0) throw new Error(`errors in other cells: ${JSON.stringify(elsewhere).slice(0, 300)}`);
    // What the user sees: the red squiggle inside that cell's editor, on the line of the mistake.
    const row = cellRow(error.cell);
    const squiggle = row.locator(".squiggly-error").first();
    await squiggle.waitFor({ state: "attached", timeout: 30_000 });
    const squiggleBox = await squiggle.boundingBox();
    const lineBox = await row.locator(".view-line", { hasText: "(offset, 1)" }).first().boundingBox();
    if (!squiggleBox || !lineBox) throw new Error("the squiggle or its line is not on screen");
    const middle = squiggleBox.y + squiggleBox.height / 2;
    if (middle < lineBox.y || middle > lineBox.y + lineBox.height) {
      throw new Error(`the squiggle (y=${squiggleBox.y}) is not on the line of the mistake (y=${lineBox.y})`);
    }
    const rows = await page.locator(".notebook-editor .monaco-list-row").evaluateAll((nodes) =>
      nodes.filter((n) => n.querySelector(".squiggly-error")).map((n) => Number((n as HTMLElement).dataset.index)),
    );
    if (rows.length !== 1 || rows[0] !== error.cell) throw new Error(`squiggles in cell rows ${JSON.stringify(rows)}, expected only ${error.cell}`);
    return `cell ${error.cell + 1}, line ${error.line + 1}, column ${item.character + 1}: ${item.code}: ${item.message.split("\n")[0].slice(0, 100)}`;
  });

  await step("hover in a cell shows the types that the call in a later cell gives", async () => {
    const row = cellRow(hovered.cell);
    const token = row.locator(".view-line", { hasText: "values[lo" }).locator("span span", { hasText: /^\s*values$/ }).first();
    await token.waitFor({ state: "visible", timeout: 30_000 });
    const since = Date.now();
    await token.click();
    await showHover(`cell ${hovered.cell + 1}, line ${hovered.line + 1}`);
    await page.waitForFunction(
      () => /array\(float64, 1d, C\)/.test(document.querySelector(".monaco-hover:not(.hidden)")?.textContent ?? ""),
      null,
      { timeout: 30_000 },
    );
    const logged = await waitForEvent(
      `a hover event in cell ${hovered.cell + 1}`,
      (e) => e.event === "hover" && e.cell === hovered.cell && e.line === hovered.line && /array\(float64, 1d, C\)/.test(String(e.text)),
      20_000,
      since,
    );
    const text = String(logged.text);
    // The types come from the call in the later cell: a Python caller, nothing else gave them.
    if (!/values: array\(float64, 1d, C\)/.test(text) || !/Python code that calls it/.test(text)) {
      throw new Error(`hover without the caller's types: ${text.slice(0, 300)}`);
    }
    // The lens above the function names that call by its cell and line (cells count from 1, markdown too).
    const origin = `types from the call at cell ${caller.cell + 1}, line ${caller.line + 1}`;
    const lenses = await waitForEvent(
      `a code lens in cell ${hovered.cell + 1} saying "${origin}"`,
      (e) => e.event === "codeLenses" && e.cell === hovered.cell && (e.lenses as { title?: string }[]).some((l) => String(l.title).includes(origin)),
      30_000,
    );
    const title = (lenses.lenses as { title?: string }[]).find((l) => String(l.title).includes(origin))!.title;
    // The status lens only: the debugger launches a program (a cell is none), the IR views open files.
    const others = (lenses.lenses as { title?: string; command?: string }[]).filter((l) => l.command);
    if (others.length > 0) throw new Error(`command lenses in a notebook cell: ${others.map((l) => l.title).join(", ")}`);
    await row.locator(".codelens-decoration", { hasText: origin }).first().waitFor({ state: "visible", timeout: 30_000 });
    await publishShot("editor-notebook.jpg", "editor");
    await page.keyboard.press("Escape");
    return `cell ${hovered.cell + 1}: ${text.replace(/\s+/g, " ").slice(0, 160)} | lens: ${String(title)}`;
  });
}
