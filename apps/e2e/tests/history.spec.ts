import { expect, test } from "@playwright/test";
import { HASHMAP, PYSCRIPTS, rest, seedServiceWithField, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

// The audit trail in the console: a field's History tab shows its rules' changes as before → after,
// and the activity page, filtered from its address, shows a deleted service with what it took.

test("a field's History tab shows two cost changes made through REST, newest first", async ({
  page,
  request,
}) => {
  const { service, field } = await seedServiceWithField(request, "history");
  const mapping = await rest.createMapping(request, {
    field_id: field.field_id,
    value: "m1.small",
    cost: "0.05",
  });
  for (const cost of ["0.06", "0.07"]) {
    const response = await request.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, {
      data: { ...mapping, cost },
    });
    expect(response.status(), await response.text()).toBe(200);
  }

  await page.goto(`/hashmap/fields/${field.field_id}`);
  await page.getByRole("tab", { name: "History" }).click();
  await expect(page).toHaveURL(/tab=history/);
  const table = page.getByRole("table", { name: `History of ${service.name} › flavor_id` });
  const rows = table.locator("tbody tr");
  await expect(rows.filter({ hasText: /cost 0\.060*\s*→\s*0\.070*/ })).toHaveCount(1);
  await expect(rows.filter({ hasText: /cost 0\.050*\s*→\s*0\.060*/ })).toHaveCount(1);
  // Newest first: the second change above the first, then the mapping's and the field's creation.
  await expect(rows.first()).toContainText("0.07");
  await expect(table.getByRole("cell", { name: "create", exact: true })).toHaveCount(2);
  // The UTC moment is in the tooltip of each time.
  await expect(rows.first().locator("time")).toHaveAttribute("title", /Z \(UTC\)$/);
  await expectNoAxeViolations(page);
});

test("the activity page filtered to deletes shows a deleted service with what it took", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("doomed"));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  for (const value of ["a", "b"]) {
    await rest.createMapping(request, { field_id: field.field_id, value, cost: "1" });
  }
  const response = await request.delete(`${HASHMAP}/services/${service.service_id}`);
  expect(response.status(), await response.text()).toBe(204);

  await page.goto("/hashmap/services");
  await page.getByRole("link", { name: "Activity", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await page.getByLabel("Operation").selectOption("delete");
  await expect(page).toHaveURL(/operation=delete/);
  const table = page.getByRole("table", { name: "Activity" });
  const row = table.locator("tbody tr").filter({ hasText: service.name });
  await expect(row).toContainText("also deleted 1 field, 2 mappings");
  // The service is gone: its name is not a link any more.
  await expect(row.getByRole("link", { name: new RegExp(service.name) })).toHaveCount(0);
  await expect(table.getByRole("cell", { name: "create", exact: true })).toHaveCount(0);
  await expectNoAxeViolations(page);

  // The filter is in the address: a reload shows the same view.
  await page.reload();
  await expect(page.getByLabel("Operation")).toHaveValue("delete");
  await expect(
    page
      .getByRole("table", { name: "Activity" })
      .locator("tbody tr")
      .filter({ hasText: service.name }),
  ).toBeVisible();
});

test("a script's page shows its history below the editor", async ({ page, request }) => {
  const name = uniqueName("history-script");
  const created = await request.post(`${PYSCRIPTS}/scripts`, {
    data: { name, data: "# first\n" },
  });
  expect(created.status(), await created.text()).toBe(201);
  const script = (await created.json()) as { script_id: string };
  const updated = await request.put(`${PYSCRIPTS}/scripts/${script.script_id}`, {
    data: { name, data: "# second\n" },
  });
  expect(updated.status(), await updated.text()).toBe(200);

  await page.goto(`/pyscripts/${script.script_id}`);
  await expect(page.getByRole("heading", { level: 2, name: "History" })).toBeVisible();
  const table = page.getByRole("table", { name: `History of script ${name}` });
  await expect(table.getByRole("cell", { name: "update script", exact: true })).toHaveCount(1);
  await expect(table.getByRole("cell", { name: "create script", exact: true })).toHaveCount(1);
  await expect(table.locator("tbody tr").first()).toContainText("# second");
  await expectNoAxeViolations(page);
});

test("a mapping's own page shows its history below the form, its soft deletion included", async ({
  page,
  request,
}) => {
  const { field } = await seedServiceWithField(request, "history-rule");
  const mapping = await rest.createMapping(request, {
    field_id: field.field_id,
    value: "m1.large",
    cost: "0.5",
  });
  const updated = await request.put(`${HASHMAP}/mappings/${mapping.mapping_id}`, {
    data: { ...mapping, cost: "0.75" },
  });
  expect(updated.status(), await updated.text()).toBe(200);
  const removed = await request.delete(`${HASHMAP}/mappings/${mapping.mapping_id}`);
  expect(removed.status()).toBe(204);

  await page.goto(`/hashmap/mappings/${mapping.mapping_id}`);
  await expect(page.getByRole("heading", { level: 2, name: "History" })).toBeVisible();
  const rows = page.getByRole("table", { name: "History of this mapping" }).locator("tbody tr");
  // The soft deletion (an update setting deleted), the cost change, the creation: newest first.
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toContainText("deleted");
  await expect(rows.filter({ hasText: /cost 0\.50*\s*→\s*0\.750*/ })).toHaveCount(1);
  await expectNoAxeViolations(page);
});
