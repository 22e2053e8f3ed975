import type { LaunchOptions } from "@playwright/test";

/**
 * Debian's Chromium (apt-get install chromium), for every Playwright config here: Playwright's
 * own browser download is not reachable from this project's machines.
 */
export const debianChromium: LaunchOptions = {
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
};
