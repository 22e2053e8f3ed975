import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";

const e2eRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const screenshotDir = path.join(e2eRoot, "screenshots");
const docsScreenshot = path.resolve(e2eRoot, "../../docs/screenshots/console.png");

/**
 * Saves what the user sees as apps/e2e/screenshots/<name>.png (a test artifact). With
 * UPDATE_DOCS_SCREENSHOT=1, the screen the README shows is also copied to docs/screenshots.
 */
export async function saveScreen(
  page: Page,
  name: string,
  options: { forReadme?: boolean } = {},
): Promise<void> {
  // Toasts and focus rings come and go; settle before taking the picture.
  await page.waitForLoadState("networkidle");
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  if (options.forReadme && process.env.UPDATE_DOCS_SCREENSHOT === "1") {
    fs.mkdirSync(path.dirname(docsScreenshot), { recursive: true });
    fs.copyFileSync(file, docsScreenshot);
  }
}
