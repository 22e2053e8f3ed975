import { expect, test } from "@playwright/test";
import { rest, seedMappings, seedServiceWithField, uniqueName } from "./support/api.js";
import { saveScreen } from "./support/screens.js";

test("the rules explorer lists 10,000 rules smoothly and filters them as the API does", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const { service, field } = await seedServiceWithField(request, "explorer");
  const group = await rest.createGroup(request, uniqueName("explorer-group"));
  const plain = Array.from({ length: 9_990 }, (_, index) => ({
    field_id: field.field_id,
    value: `flavor-${String(index).padStart(5, "0")}`,
    cost: `0.${String(index + 1).padStart(5, "0")}`,
  }));
  const grouped = Array.from({ length: 6 }, (_, index) => ({
    field_id: field.field_id,
    value: `grouped-${index}`,
    cost: "7",
    type: "rate",
    group_id: group.group_id,
  }));
  const tenantOnly = Array.from({ length: 4 }, (_, index) => ({
    field_id: field.field_id,
    value: `tenant-${index}`,
    cost: "99",
    tenant_id: "acme",
  }));
  await seedMappings(request, [...plain, ...grouped, ...tenantOnly]);
  await rest.createThreshold(request, {
    service_id: service.service_id,
    level: "100",
    cost: "0.95",
    type: "rate",
  });
  await rest.createMapping(request, {
    service_id: service.service_id,
    cost: "0.5",
    group_id: group.group_id,
  });

  // Every rule attached to the field: only the visible rows are in the page.
  await page.goto(`/hashmap/rules?field_id=${field.field_id}`);
  const count = page.locator(".result-count");
  await expect(count).toHaveText("10,000 rules", { timeout: 30_000 });
  const table = page.getByRole("table", { name: "Rules" });
  await expect(table.getByRole("row").filter({ hasText: "flavor-00000" })).toBeVisible();
  expect(await table.locator("tbody tr").count()).toBeLessThan(100);
  await saveScreen(page, "rules-explorer", { forReadme: true });

  // Scrolling reaches the last rows.
  await page
    .getByRole("region", { name: "Rules, scrollable" })
    .evaluate((region) => region.scrollTo(0, region.scrollHeight));
  await expect(table.getByRole("row").filter({ hasText: "tenant-3" })).toBeVisible();

  // Sort by cost, most expensive first: the URL keeps it.
  await table.getByRole("button", { name: /Cost/ }).click();
  await table.getByRole("button", { name: /Cost/ }).click();
  await expect(page).toHaveURL(/sort=-cost/);
  await expect(table.getByRole("columnheader", { name: /Cost/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );
  await page
    .getByRole("region", { name: "Rules, scrollable" })
    .evaluate((region) => region.scrollTo(0, 0));
  await expect(table.locator("tbody tr").first()).toContainText("99");

  // Group filter (server-side), then reload: the filter is in the address.
  await page.getByLabel("Group", { exact: true }).selectOption({ label: group.name });
  await expect(count).toHaveText("6 rules");
  await expect(page).toHaveURL(new RegExp(`group_id=${group.group_id}`));
  await page.reload();
  await expect(count).toHaveText("6 rules");
  await expect(page.getByLabel("Group", { exact: true })).toHaveValue(group.group_id);
  expect(
    await rest.mappings(request, `field_id=${field.field_id}&group_id=${group.group_id}`),
  ).toHaveLength(6);

  // Without the field filter the group also holds the service mapping.
  await page
    .getByLabel("Attached to", { exact: true })
    .selectOption({ label: `${service.name} (service rules)` });
  await expect(count).toHaveText("1 rule");
  await page.getByLabel("Attached to", { exact: true }).selectOption({ value: "" });
  await expect(count).toHaveText("7 rules");

  // No group, with a tenant.
  await page
    .getByLabel("Group", { exact: true })
    .selectOption({ label: "No group (default group)" });
  await page
    .getByLabel("Attached to", { exact: true })
    .selectOption({ label: `${service.name} › flavor_id` });
  await page.getByLabel("Tenant", { exact: true }).fill("acme");
  await expect(count).toHaveText("4 rules");
  await expect(page).toHaveURL(/no_group=1/);
  await expect(page).toHaveURL(/tenant_id=acme/);
  expect(
    await rest.mappings(
      request,
      `field_id=${field.field_id}&no_group=true&filter_tenant=true&tenant_id=acme`,
    ),
  ).toHaveLength(4);

  // Only rules for every tenant, then the text filter (in the browser) and the type facet.
  await page.getByLabel("Only rules for all tenants").check();
  await expect(count).toHaveText("9,990 rules");
  await page.getByLabel("Search", { exact: true }).fill("flavor-0998");
  await expect(count).toHaveText("10 rules of 9,990 shown");
  await page.getByLabel("Type", { exact: true }).selectOption("rate");
  await expect(page.getByText("No rules match these filters.")).toBeVisible();

  // Clearing returns to everything.
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(page).toHaveURL(/\/hashmap\/rules(\?sort=-cost)?$/);
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue("");
  await expect(count).toHaveText(/^10,00\d rules$/);
});
