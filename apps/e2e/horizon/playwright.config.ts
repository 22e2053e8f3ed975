import { defineConfig } from "@playwright/test";
import { debianChromium } from "../chromium.js";

// Horizon's CloudKitty dashboard (Debian openstack-dashboard + python3-cloudkitty-dashboard) against
// Ratecard behind a real Keystone: global-setup.ts starts Keystone and Horizon
// (scripts/openstack-for-tests.sh), a Ratecard server with AUTH_STRATEGY=keystone, and points
// Keystone's catalog at it for the whole run. HORIZON_RATING_URL=<url> drives another rating API
// already behind that Keystone instead (e.g. the real CloudKitty of ck-keystone-start.sh).
export default defineConfig({
  testDir: ".",
  outputDir: "./test-results",
  globalSetup: "./global-setup.ts",
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // Horizon renders every page on the server, asking Keystone and the rating API each time.
  timeout: 240_000,
  expect: { timeout: 20_000 },
  reporter: [["list"]],
  use: {
    baseURL: process.env.HORIZON_URL ?? "http://127.0.0.1:8898",
    navigationTimeout: 60_000,
    browserName: "chromium",
    viewport: { width: 1366, height: 900 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: debianChromium,
  },
});
