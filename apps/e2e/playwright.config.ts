import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// The real built server (apps/server/dist) serving the real built console (apps/web/dist), on a
// fresh SQLite file per run. Workers load this file too: the environment variable makes them reuse
// the file the main process chose.
const port = Number(process.env.RATECARD_E2E_PORT ?? 18931);
const baseURL = `http://127.0.0.1:${port}`;
// In memory-backed /dev/shm where there is one: SQLite's fsyncs make seeding 10,000 rules 5x slower on disk.
const scratch = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
process.env.RATECARD_E2E_DATABASE ??= path.join(
  fs.mkdtempSync(path.join(scratch, "ratecard-e2e-")),
  "ratecard.db",
);

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  // One server and one database: journeys run one after another.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    browserName: "chromium",
    viewport: { width: 1366, height: 900 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      // Debian's Chromium (apt-get install chromium): Playwright's own browser download is not reachable.
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    // Runs first, on the empty database: empty states and the server-down state.
    { name: "first-run", testMatch: /first-run\.spec\.ts/ },
    { name: "journeys", testIgnore: /first-run\.spec\.ts/, dependencies: ["first-run"] },
  ],
  webServer: {
    command: "node ../server/dist/main.js",
    url: `${baseURL}/healthz`,
    reuseExistingServer: false,
    timeout: 30_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `file:${process.env.RATECARD_E2E_DATABASE}`,
      LOG_LEVEL: "warn",
    },
  },
});
