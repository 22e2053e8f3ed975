import { expect, type Page } from "@playwright/test";

/** Waits for a notification; earlier ones with the same text may still be on screen. */
export async function expectToast(page: Page, text: string): Promise<void> {
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: text }).last()).toBeVisible();
}
