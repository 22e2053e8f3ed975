import { expect, test, type APIRequestContext } from "@playwright/test";
import { HASHMAP, rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { expectToast } from "./support/toasts.js";

// A deliberate tenant override, acknowledged with a note from the keyboard: it folds into
// "1 acknowledged warning" with the note, the row's badge says so (on the service page and in the
// explorer, whose badge leads back to the warning), a change to the tenant's price opens it again,
// and a withdrawal leaves it open. The REST warnings answer agrees at each step.

interface RestWarning {
  code: string;
  warning_key: string;
  acknowledgement: { note: string; user_name: string | null; reopened: boolean } | null;
}

async function overrideWarning(request: APIRequestContext, serviceId: string) {
  const response = await request.get(`${HASHMAP}/warnings?service_id=${serviceId}`);
  expect(response.status()).toBe(200);
  const { warnings } = (await response.json()) as { warnings: RestWarning[] };
  return warnings.find((warning) => warning.code === "tenant-overrides-global");
}

test("a tenant override acknowledged with a note, reopened by a price change, withdrawn", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("volume"));
  await rest.createMapping(request, { service_id: service.service_id, cost: "1" });
  const acme = await rest.createMapping(request, {
    service_id: service.service_id,
    cost: "2",
    tenant_id: "acme",
  });
  const note = "acme negotiated its own volume price (contract 2026-17)";

  await page.goto(`/hashmap/services/${service.service_id}?tab=mappings`);
  const open = page.getByRole("status", { name: "1 pricing warning" });
  const warning = open.getByRole("listitem").filter({ hasText: "Tenant acme's rule replaces" });
  await expect(warning).toBeVisible();
  const rows = page.getByRole("table", { name: /mappings/i }).getByRole("row");
  const acmeRow = rows.filter({ hasText: "acme" });
  await expect(acmeRow.getByRole("link", { name: "1 pricing warning" })).toBeVisible();

  // Keyboard only: open the note field, write, submit.
  await warning.getByRole("button", { name: /^Acknowledge…?: Tenant acme/ }).focus();
  await page.keyboard.press("Enter");
  const noteField = warning.getByRole("textbox", { name: "Why is this intended?" });
  await expect(noteField).toBeFocused();
  await expectNoAxeViolations(page);
  await page.keyboard.type(note);
  await page.keyboard.press("Tab");
  await expect(warning.getByRole("button", { name: "Acknowledge", exact: true })).toBeFocused();
  await page.keyboard.press("Enter");
  await expectToast(page, "Warning acknowledged");

  await expect(open).toHaveCount(0);
  const folded = page.getByRole("region", { name: "Acknowledged pricing warnings" });
  const summary = folded.getByText("1 acknowledged warning");
  await expect(summary).toBeVisible();
  await expect(folded.getByText(note)).toBeHidden();
  await summary.focus();
  await page.keyboard.press("Enter");
  await expect(folded.getByText(note)).toBeVisible();
  await expect(folded).toContainText("Acknowledged by noauth");
  await expect(acmeRow.getByRole("link", { name: "1 acknowledged pricing warning" })).toBeVisible();
  await expectNoAxeViolations(page);
  expect((await overrideWarning(request, service.service_id))?.acknowledgement).toMatchObject({
    note,
    reopened: false,
  });

  // The explorer's badge leads back to the warning, unfolded and focused.
  await page.goto(`/hashmap/rules?service_id=${service.service_id}`);
  const badge = page
    .getByRole("row")
    .filter({ hasText: "acme" })
    .getByRole("link", { name: "1 acknowledged pricing warning" });
  await expect(badge).toBeVisible();
  await expectNoAxeViolations(page);
  await badge.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/hashmap/services/${service.service_id}#warning-`));
  const target = page
    .getByRole("region", { name: "Acknowledged pricing warnings" })
    .getByRole("listitem")
    .filter({ hasText: note });
  await expect(target).toBeVisible();
  await expect(target).toBeFocused();

  // The tenant's price changes: what was accepted is no longer what applies.
  const changed = await request.put(`${HASHMAP}/mappings/${acme.mapping_id}`, {
    data: { cost: "3", tenant_id: "acme" },
  });
  expect(changed.status()).toBe(200);
  await page.goto(`/hashmap/services/${service.service_id}?tab=mappings`);
  const reopened = page
    .getByRole("status", { name: "1 pricing warning" })
    .getByRole("listitem")
    .filter({ hasText: "Tenant acme's rule replaces" });
  await expect(reopened).toContainText("Acknowledged before, open again");
  await expect(reopened).toContainText(note);
  await expect(acmeRow.getByRole("link", { name: "1 pricing warning" })).toBeVisible();
  await expectNoAxeViolations(page);
  expect((await overrideWarning(request, service.service_id))?.acknowledgement).toMatchObject({
    reopened: true,
  });

  // Acknowledged again (the note kept), then withdrawn: open, with nothing accepted.
  await reopened.getByRole("button", { name: /^Acknowledge again/ }).click();
  await expect(reopened.getByRole("textbox", { name: "Why is this intended?" })).toHaveValue(note);
  await reopened.getByRole("button", { name: "Acknowledge", exact: true }).click();
  await expectToast(page, "Warning acknowledged");
  const again = page.getByRole("region", { name: "Acknowledged pricing warnings" });
  await again.getByText("1 acknowledged warning").click();
  await again.getByRole("button", { name: /^Withdraw the acknowledgement/ }).click();
  await expectToast(page, "Acknowledgement withdrawn");
  await expect(page.getByRole("status", { name: "1 pricing warning" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Acknowledged pricing warnings" })).toHaveCount(0);
  expect((await overrideWarning(request, service.service_id))?.acknowledgement).toBeNull();
});
