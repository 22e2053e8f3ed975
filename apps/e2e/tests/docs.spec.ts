import { expect, test } from "@playwright/test";
import { expectNoAxeViolations } from "./support/axe.js";

test("the API reference at /docs passes axe, collapsed and while trying an operation out", async ({
  page,
}) => {
  await page.goto("/docs");
  await expect(page).toHaveTitle("API reference · Ratecard");
  await expect(
    page.getByRole("heading", { level: 1, name: /Ratecard: CloudKitty rating configuration API/ }),
  ).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: "hashmap: services" })).toBeVisible();
  await expectNoAxeViolations(page);

  // An operation opened with the keyboard, tried out and executed: its form and answer pass too.
  const createService = page
    .locator(".opblock-post")
    .filter({ hasText: "/v1/rating/module_config/hashmap/services" })
    .first();
  const toggle = createService.locator(".opblock-summary-control");
  await toggle.focus();
  await page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await createService.getByRole("button", { name: "Try it out" }).click();
  const body = createService.getByRole("textbox", { name: "Request body" });
  await body.fill(JSON.stringify({ name: `docs-${Date.now()}` }));
  await createService.getByRole("button", { name: "Execute" }).click();
  await expect(createService.locator(".live-responses-table")).toContainText("201");
  await expect(
    createService.getByRole("region", { name: /Responses of POST \/v1\/rating\/module_config/ }),
  ).toBeVisible();
  await expectNoAxeViolations(page);
});
