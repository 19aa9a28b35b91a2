// The speedscope file `pyserver profile` writes opens in speedscope as it is: the real profiler on a
// small Python program, then speedscope's shipped release files in Debian's Chromium (headless), which
// must show the profile (its toolbar and our title) with no error. Skipped without Chromium or the venv.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const PYTHON = ".venv/bin/python";
const RELEASE = "node_modules/speedscope/dist/release";

const PROGRAM = `
import threading

def leaf(n):
    total = 0
    for i in range(n):
        total += i * i
    return total

def caller():
    for _ in range(40):
        leaf(200_000)

worker = threading.Thread(target=caller)
worker.start()
caller()
worker.join()
`;

test("speedscope opens the profiler's speedscope file as it is", { skip: !fs.existsSync(CHROMIUM) || !fs.existsSync(PYTHON) }, async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "profile-speedscope-"));
  try {
    fs.cpSync(RELEASE, folder, { recursive: true });
    const program = path.join(folder, "program.py");
    fs.writeFileSync(program, PROGRAM);
    execFileSync(PYTHON, ["-m", "pyserver", "profile", "--format", "speedscope", "--out", path.join(folder, "profile.json"), "--", PYTHON, program], {
      stdio: "ignore",
    });
    const data = JSON.parse(fs.readFileSync(path.join(folder, "profile.json"), "utf8"));
    assert.ok(data.profiles.length >= 1);

    const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };
    const server = http.createServer((request, response) => {
      const file = path.join(folder, decodeURIComponent((request.url ?? "/").split(/[?#]/)[0]));
      if (!file.startsWith(folder) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
      fs.createReadStream(file).pipe(response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
      await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(`${base}/profile.json`)}&title=numba-lens-check`);
      await page.getByText("numba-lens-check").first().waitFor({ timeout: 30_000 });
      await page.getByText("Left Heavy").first().waitFor({ timeout: 10_000 });
      const text = await page.evaluate(() => document.body.innerText);
      assert.ok(!/drag and drop/i.test(text), "speedscope shows its landing page, not the profile");
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      server.close();
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
