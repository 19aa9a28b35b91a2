// Test mode: when NUMBA_LENS_TEST_EVENTS names a file, the extension appends one JSON object per line
// (activation, server state, diagnostics, lenses, hovers, debug traffic) so end-to-end tests can assert
// without reading the DOM. Off otherwise: a no-op.
import * as fs from "node:fs";

export const EVENTS_ENV = "NUMBA_LENS_TEST_EVENTS";

let target: string | undefined = process.env[EVENTS_ENV] || undefined;

export function eventsEnabled(): boolean {
  return target !== undefined;
}

/** For unit tests. */
export function setEventsFile(file: string | undefined): void {
  target = file;
}

export function recordEvent(event: string, data: Record<string, unknown> = {}): void {
  if (!target) return;
  try {
    fs.appendFileSync(target, JSON.stringify({ ...data, time: Date.now(), event }) + "\n");
  } catch {
    // A test harness that removed its file must not break the extension.
  }
}
