import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { debianChromium } from "../chromium.js";

// The console lists benchmark (console-lists.bench.ts): the real built server and console on a
// fresh SQLite file, seeded through the API. It prints figures and asserts nothing about time.
const port = Number(process.env.RATECARD_BENCH_PORT ?? 18991);
const scratch = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
process.env.RATECARD_BENCH_DATABASE ??= path.join(
  fs.mkdtempSync(path.join(scratch, "ratecard-bench-")),
  "ratecard.db",
);

export default defineConfig({
  testDir: ".",
  testMatch: /\.bench\.ts$/,
  outputDir: "./test-results",
  workers: 1,
  retries: 0,
  timeout: 30 * 60_000,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: "chromium",
    viewport: { width: 1366, height: 900 },
    launchOptions: debianChromium,
  },
  webServer: {
    command: "node ../../server/dist/main.js",
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 30_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `file:${process.env.RATECARD_BENCH_DATABASE}`,
      LOG_LEVEL: "warn",
    },
  },
});
