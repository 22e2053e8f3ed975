import { expect, test } from "@playwright/test";
import { rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

// A soft-deleted rule (docs/lifecycle.md) stays readable at its address, as history: the page says
// who deleted it and when, and offers nothing to save.

test("a deleted mapping opened by its address is shown as history, with no way to edit it", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("history"));
  const mapping = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "0.25",
  });
  const removed = await request.delete(
    `/v1/rating/module_config/hashmap/mappings/${mapping.mapping_id}`,
  );
  expect(removed.status()).toBe(204);

  await page.goto(`/hashmap/mappings/${mapping.mapping_id}`);
  const note = page.getByRole("note").filter({ hasText: "Deleted." });
  await expect(note).toContainText("This mapping was deleted by noauth on");
  await expect(note).toContainText("kept as history");
  await expect(page.getByLabel("Cost")).toHaveValue("0.25");
  await expect(page.getByLabel("Cost")).toBeDisabled();
  await expect(page.getByRole("button", { name: "Save changes" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Back" })).toBeVisible();
  await expectNoAxeViolations(page);
});
