import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";
import { ADMIN_PASSWORD, KEYSTONE_URL, SHORT_SESSION_SECONDS } from "./tests/auth/accounts.js";
import { debianChromium } from "./chromium.js";

// The real built server (apps/server/dist) serving the real built console (apps/web/dist), on a
// fresh SQLite file per run: one without authentication for the journeys, one with local accounts
// and one behind Keystone for the sign-in journeys, two with a collector metrics file (one whose
// policy refuses it). Workers load this file too: the environment variables make them reuse the
// files the main process chose.
const port = Number(process.env.RATECARD_E2E_PORT ?? 18931);
const baseURL = `http://127.0.0.1:${port}`;
const localURL = `http://127.0.0.1:${port + 1}`;
const keystoneURL = `http://127.0.0.1:${port + 2}`;
const shortSessionURL = `http://127.0.0.1:${port + 3}`;
const metricsURL = `http://127.0.0.1:${port + 4}`;
const metricsRefusedURL = `http://127.0.0.1:${port + 5}`;
const fixture = (name: string) =>
  path.join(path.dirname(fileURLToPath(import.meta.url)), "tests/fixtures", name);
// In memory-backed /dev/shm where there is one: SQLite's fsyncs make seeding 10,000 rules 5x slower on disk.
const scratch = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
const scratchDatabase = () =>
  path.join(fs.mkdtempSync(path.join(scratch, "ratecard-e2e-")), "ratecard.db");
process.env.RATECARD_E2E_DATABASE ??= scratchDatabase();
process.env.RATECARD_E2E_LOCAL_DATABASE ??= scratchDatabase();
process.env.RATECARD_E2E_KEYSTONE_DATABASE ??= scratchDatabase();
process.env.RATECARD_E2E_SHORT_SESSION_DATABASE ??= scratchDatabase();
process.env.RATECARD_E2E_METRICS_DATABASE ??= scratchDatabase();
process.env.RATECARD_E2E_METRICS_REFUSED_DATABASE ??= scratchDatabase();

const server = (serverPort: number, database: string, env: Record<string, string> = {}) => ({
  command: "node ../server/dist/main.js",
  url: `http://127.0.0.1:${serverPort}/healthz`,
  reuseExistingServer: false,
  timeout: 30_000,
  stdout: "ignore" as const,
  stderr: "pipe" as const,
  env: {
    HOST: "127.0.0.1",
    PORT: String(serverPort),
    DATABASE_URL: `file:${database}`,
    LOG_LEVEL: "warn",
    ...env,
  },
});

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  // One database per server, and journeys that share it: they run one after another.
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
    launchOptions: debianChromium,
  },
  projects: [
    // Runs first, on the empty database: empty states and the server-down state.
    { name: "first-run", testMatch: /first-run\.spec\.ts/ },
    {
      name: "journeys",
      testIgnore: [/first-run\.spec\.ts/, /auth\//, /metrics\//],
      dependencies: ["first-run"],
    },
    // AUTH_STRATEGY=local: sign-in, accounts, a reader's view, a session ending mid-use.
    { name: "local-auth", testMatch: /auth\/local\.spec\.ts/, use: { baseURL: localURL } },
    // The same with sessions that expire after a few seconds.
    {
      name: "local-auth-expiry",
      testMatch: /auth\/expiry\.spec\.ts/,
      use: { baseURL: shortSessionURL },
    },
    // AUTH_STRATEGY=keystone against the Keystone at KEYSTONE_URL (seeded as in
    // ../shared/reference/openstack: rating-admin and demo-reader, password "secret").
    { name: "keystone-auth", testMatch: /auth\/keystone\.spec\.ts/, use: { baseURL: keystoneURL } },
    // METRICS_FILE (CloudKitty's sample metrics.yml): names suggested from it, warnings on names it
    // lacks; and the same file refused by the policy, where the console carries on without it.
    { name: "metrics", testMatch: /metrics\/suggestions\.spec\.ts/, use: { baseURL: metricsURL } },
    {
      name: "metrics-refused",
      testMatch: /metrics\/refused\.spec\.ts/,
      use: { baseURL: metricsRefusedURL },
    },
  ],
  webServer: [
    server(port, process.env.RATECARD_E2E_DATABASE),
    server(port + 1, process.env.RATECARD_E2E_LOCAL_DATABASE, {
      AUTH_STRATEGY: "local",
      RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
    }),
    server(port + 2, process.env.RATECARD_E2E_KEYSTONE_DATABASE, {
      AUTH_STRATEGY: "keystone",
      KEYSTONE_URL,
      KEYSTONE_USERNAME: "ratecard",
      KEYSTONE_PASSWORD: "secret",
      KEYSTONE_PROJECT_NAME: "service",
    }),
    server(port + 3, process.env.RATECARD_E2E_SHORT_SESSION_DATABASE, {
      AUTH_STRATEGY: "local",
      RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SESSION_TTL_SECONDS: String(SHORT_SESSION_SECONDS),
    }),
    server(port + 4, process.env.RATECARD_E2E_METRICS_DATABASE, {
      METRICS_FILE: fixture("metrics.yml"),
    }),
    server(port + 5, process.env.RATECARD_E2E_METRICS_REFUSED_DATABASE, {
      METRICS_FILE: fixture("metrics.yml"),
      POLICY_FILE: fixture("deny-metrics-policy.yaml"),
    }),
  ],
});
