import { AxeBuilder } from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { rest, seedMappings, seedServiceWithField, uniqueName } from "./support/api.js";
import { saveScreen } from "./support/screens.js";
import { expectToast } from "./support/toasts.js";

// Lists of thousands of rules on a field's and a group's page, edited in place: the side panel
// opens over the list and closing it leaves the list where it was (scroll, search, sort).

async function expectNoAxeViolations(page: Page, include?: string) {
  const builder = new AxeBuilder({ page });
  if (include) builder.include(include);
  const { violations } = await builder.analyze();
  expect(
    violations.map((violation) => `${violation.id}: ${violation.nodes.length} × ${violation.help}`),
  ).toEqual([]);
}

// By its CSS class: while the modal panel is open, the list is hidden from the accessibility tree.
const listRegion = (page: Page, label: string) =>
  page.locator(`.table-scroll.virtual[aria-label="${label}, scrollable"]`);

test("a field with 2,000 mappings: first rows, search, sort, and an edit in place that keeps the place", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const { service, field } = await seedServiceWithField(request, "big-field");
  await seedMappings(
    request,
    Array.from({ length: 2_000 }, (_, index) => ({
      field_id: field.field_id,
      value: `flavor-${String(index).padStart(4, "0")}`,
      cost: `${index % 97}.${String(index).padStart(4, "0")}`,
    })),
  );
  const label = `Mappings of ${service.name} › flavor_id`;

  // Arrive from the services list, so that one Back after the edit must return there.
  await page.goto("/hashmap/services");
  await page.getByRole("link", { name: service.name, exact: true }).click();
  await page.getByRole("link", { name: "flavor_id", exact: true }).click();
  const count = page.locator(".result-count");
  await expect(count).toHaveText("2,000 mappings", { timeout: 30_000 });
  const table = page.getByRole("table", { name: label });
  await expect(table.getByRole("row").filter({ hasText: "flavor-0000" })).toBeVisible();
  expect(await table.locator("tbody tr").count()).toBeLessThan(100);
  await expectNoAxeViolations(page);

  // Search: only the matching rows, and the address keeps the text.
  await page.getByRole("searchbox", { name: "Search" }).fill("flavor-19");
  await expect(count).toHaveText("100 mappings of 2,000 shown");
  await expect(page).toHaveURL(/q=flavor-19/);

  // Sort by cost, most expensive first: 96.1939 is the highest cost among flavor-19xx.
  await table.getByRole("button", { name: /Cost/ }).click();
  await table.getByRole("button", { name: /Cost/ }).click();
  await expect(page).toHaveURL(/sort=-cost/);
  await expect(table.locator("tbody tr").first()).toContainText("96.1939");

  // Scroll down the list, then edit a row in sight there (the first rendered rows are above the
  // window: the list renders a few more than it shows) in the side panel.
  const region = listRegion(page, label);
  await region.evaluate((element) => element.scrollTo(0, 1_000));
  const scrolled = await region.evaluate((element) => element.scrollTop);
  expect(scrolled).toBeGreaterThan(500);
  const value = (
    await table.locator("tbody tr[data-row-id]").nth(18).locator("td").first().innerText()
  ).trim();
  await table
    .getByRole("row")
    .filter({ hasText: value })
    .getByRole("link", { name: /^Edit / })
    .click();
  const panel = page.getByRole("dialog", { name: "Edit field mapping" });
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel("Value")).toBeFocused();
  // Cancel: the list is as it was, the focus back on the Edit link.
  await panel.getByRole("button", { name: "Cancel" }).click();
  await expect(panel).toBeHidden();
  expect(await region.evaluate((element) => element.scrollTop)).toBe(scrolled);
  const editLink = table
    .getByRole("row")
    .filter({ hasText: value })
    .getByRole("link", { name: /^Edit / });
  await expect(editLink).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`/hashmap/fields/${field.field_id}\\?`));
  await editLink.click();
  await expect(panel.getByLabel("Value")).toBeFocused();
  // The address is the rule's own page, which a copied link opens.
  const mapping = (await rest.mappings(request, `field_id=${field.field_id}`)).find(
    (candidate) => candidate.value === value,
  )!;
  await expect(page).toHaveURL(new RegExp(`/hashmap/mappings/${mapping.mapping_id}$`));
  await expectNoAxeViolations(page, ".side-panel");
  await saveScreen(page, "rule-panel");
  await panel.getByLabel("Cost").fill("123.5");
  await panel.getByRole("button", { name: "Save changes" }).click();
  await expectToast(page, "Mapping saved");
  await expect(panel).toBeHidden();

  // Back in the same place: same address (search and sort), same scroll, the row focused.
  await expect(page).toHaveURL(new RegExp(`/hashmap/fields/${field.field_id}\\?`));
  await expect(page).toHaveURL(/q=flavor-19/);
  await expect(page).toHaveURL(/sort=-cost/);
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue("flavor-19");
  // Still sorted by cost: the edited row (now the most expensive) moved to the top.
  const savedRow = table.getByRole("row").filter({ hasText: value });
  await expect(savedRow).toContainText("123.5");
  await expect(savedRow.getByRole("link", { name: /^Edit / })).toBeFocused();
  expect(
    await rest.get(request, `/v1/rating/module_config/hashmap/mappings/${mapping.mapping_id}`),
  ).toEqual({ ...mapping, cost: "123.5000000000000000000000000000", updated_by: "noauth" });

  // One Back leaves the field page for the service page it was opened from.
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/hashmap/services/${service.service_id}`));
});

test("a group with 1,300 rules: search, a new mapping in place with a group created inline", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const { service, field } = await seedServiceWithField(request, "big-group");
  const group = await rest.createGroup(request, uniqueName("big-group"));
  await seedMappings(
    request,
    Array.from({ length: 1_300 }, (_, index) => ({
      field_id: field.field_id,
      value: `grouped-${String(index).padStart(4, "0")}`,
      cost: `0.${String(index + 1).padStart(4, "0")}`,
      group_id: group.group_id,
    })),
  );
  const label = `Mappings in group ${group.name}`;

  await page.goto(`/hashmap/groups/${group.group_id}`);
  const count = page.locator(".result-count");
  await expect(count).toHaveText("1,300 mappings", { timeout: 30_000 });
  const table = page.getByRole("table", { name: label });
  await expect(table.getByRole("row").filter({ hasText: "grouped-0000" })).toBeVisible();
  expect(await table.locator("tbody tr").count()).toBeLessThan(100);
  await expectNoAxeViolations(page);

  await page.getByRole("searchbox", { name: "Search" }).fill("grouped-12");
  await expect(count).toHaveText("100 mappings of 1,300 shown");

  // A new mapping from the group page, in the panel, with the group preselected.
  await page.getByRole("link", { name: "Add mapping to group" }).click();
  // Its title says what the rule is attached to once chosen.
  const panel = page.getByRole("dialog");
  await expect(panel).toHaveAccessibleName("New mapping");
  await expect(panel.getByLabel("Attached to")).toBeFocused();
  await panel
    .getByLabel("Attached to")
    .selectOption({ label: `${service.name} › flavor_id (field)` });
  await expect(panel.getByLabel("Group", { exact: true })).toHaveValue(group.group_id);
  await panel.getByLabel("Value").fill("grouped-1299b");
  await panel.getByLabel("Cost").fill("0.5");
  await expectNoAxeViolations(page, ".side-panel");
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  await expect(panel).toBeHidden();
  await expect(page).toHaveURL(/q=grouped-12/);
  await expect(count).toHaveText("101 mappings of 1,301 shown");
  const created = table.getByRole("row").filter({ hasText: "grouped-1299b" });
  await expect(created.getByRole("link", { name: /^Edit / })).toBeFocused();

  // A group created from the rule form, then chosen for a new mapping.
  const newGroup = uniqueName("inline");
  await page.getByRole("link", { name: "Add mapping to group" }).click();
  await panel
    .getByLabel("Attached to")
    .selectOption({ label: `${service.name} › flavor_id (field)` });
  await panel.getByLabel("Group", { exact: true }).selectOption({ label: "New group…" });
  await panel.getByLabel("New group name").fill(newGroup);
  await panel.getByRole("button", { name: "Create group" }).click();
  await expectToast(page, `Group “${newGroup}” created`);
  const createdGroup = (await rest.groups(request)).find(
    (candidate) => candidate.name === newGroup,
  )!;
  await expect(panel.getByLabel("Group", { exact: true })).toHaveValue(createdGroup.group_id);
  await panel.getByLabel("Value").fill("inline-group");
  await panel.getByLabel("Cost").fill("2");
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  expect(await rest.mappings(request, `group_id=${createdGroup.group_id}`)).toEqual([
    expect.objectContaining({ value: "inline-group", field_id: field.field_id }),
  ]);

  // Closing a panel with unsaved changes asks first.
  await page.getByRole("link", { name: "Add mapping to group" }).click();
  await panel.getByLabel("Attached to").selectOption({ label: `${service.name} (service)` });
  await panel.getByLabel("Cost").fill("9");
  await panel.getByRole("button", { name: "Cancel" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Discard your changes?" });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(panel.getByLabel("Cost")).toHaveValue("9");
  await page.keyboard.press("Escape");
  await confirm.getByRole("button", { name: "Discard changes" }).click();
  await expect(panel).toBeHidden();
  await expect(page).toHaveURL(/q=grouped-12/);
});

test("keyboard only: mappings entered one after another with Save and add another", async ({
  page,
  request,
}) => {
  const { service, field } = await seedServiceWithField(request, "keyboard-rules");
  const groupName = uniqueName("keyboard-group");
  await page.goto(`/hashmap/fields/${field.field_id}`);
  await expect(page.getByRole("heading", { name: "flavor_id", level: 1 })).toBeVisible();

  const focusByTab = async (target: ReturnType<Page["getByRole"]>, limit = 40) => {
    for (
      let presses = 0;
      presses < limit && !(await target.evaluate((element) => element === document.activeElement));
      presses++
    ) {
      await page.keyboard.press("Tab");
    }
    await expect(target).toBeFocused();
  };

  await focusByTab(page.getByRole("link", { name: "Add field mapping", exact: true }));
  await page.keyboard.press("Enter");
  const panel = page.getByRole("dialog", { name: "New field mapping" });
  await expect(panel.getByLabel("Value")).toBeFocused();
  await page.keyboard.type("m1.tiny");
  await page.keyboard.press("Tab");
  await expect(panel.getByLabel("Cost")).toBeFocused();
  await page.keyboard.type("0.01");
  // The group is created from the form: "New group…" is the last choice of the list.
  await focusByTab(panel.getByLabel("Group", { exact: true }), 6);
  await page.keyboard.press("End");
  await expect(panel.getByLabel("New group name")).toBeFocused();
  await page.keyboard.type(groupName);
  await page.keyboard.press("Enter");
  await expectToast(page, `Group “${groupName}” created`);
  const group = (await rest.groups(request)).find((candidate) => candidate.name === groupName)!;
  await expect(panel.getByLabel("Group", { exact: true })).toHaveValue(group.group_id);
  await expect(panel.getByLabel("Group", { exact: true })).toBeFocused();
  await focusByTab(panel.getByRole("button", { name: "Save and add another" }), 8);
  await page.keyboard.press("Enter");
  await expect(panel.getByRole("status")).toHaveText(
    "Mapping for “m1.tiny” created. Enter the next one.",
  );
  await expect(panel.getByLabel("Value")).toBeFocused();
  await expect(panel.getByLabel("Value")).toHaveValue("");
  await expect(panel.getByLabel("Cost")).toHaveValue("");
  await expect(panel.getByLabel("Group", { exact: true })).toHaveValue(group.group_id);

  await page.keyboard.type("m1.micro");
  await page.keyboard.press("Tab");
  await page.keyboard.type("0.02");
  await page.keyboard.press("Enter");
  await expectToast(page, "Mapping created");
  await expect(panel).toBeHidden();
  const table = page.getByRole("table", { name: `Mappings of ${service.name} › flavor_id` });
  await expect(
    table
      .getByRole("row")
      .filter({ hasText: "m1.micro" })
      .getByRole("link", { name: /^Edit / }),
  ).toBeFocused();

  const mappings = await rest.mappings(request, `field_id=${field.field_id}`);
  expect(mappings.map((mapping) => [mapping.value, mapping.group_id]).sort()).toEqual([
    ["m1.micro", group.group_id],
    ["m1.tiny", group.group_id],
  ]);

  // The next new mapping starts in the group used last.
  await page.getByRole("link", { name: "Add field mapping", exact: true }).click();
  await expect(panel.getByLabel("Group", { exact: true })).toHaveValue(group.group_id);
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
});

test("the rules explorer fits 1,280 px: every column visible, no sideways scroll", async ({
  page,
  request,
}) => {
  const { field } = await seedServiceWithField(request, "narrow");
  await rest.createMapping(request, {
    field_id: field.field_id,
    value: "a-rather-long-metadata-value-that-would-widen-the-column",
    cost: "0.0000000000000000000000000123",
    tenant_id: "4c1b6a3e9f8d4e2a9b7c6d5e4f3a2b1c",
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/hashmap/rules?field_id=${field.field_id}`);
  const table = page.getByRole("table", { name: "Rules" });
  await expect(table.getByRole("row")).toHaveCount(2);
  const region = listRegion(page, "Rules");
  const { scrollWidth, clientWidth } = await region.evaluate((element) => ({
    scrollWidth: element.scrollWidth,
    clientWidth: element.clientWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  await saveScreen(page, "rules-explorer-1280");
  for (const target of [
    table.getByRole("columnheader", { name: "Tenant" }),
    table.getByRole("link", { name: /^Edit / }),
    table.getByRole("button", { name: /^Delete / }),
  ]) {
    const box = (await target.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
  }
  await expectNoAxeViolations(page);
});

test("from the filtered rules explorer, New and Edit open in place and the filters stay", async ({
  page,
  request,
}) => {
  const { service, field } = await seedServiceWithField(request, "explorer-panel");
  await seedMappings(
    request,
    Array.from({ length: 300 }, (_, index) => ({
      field_id: field.field_id,
      value: `size-${String(index).padStart(3, "0")}`,
      cost: "1",
    })),
  );
  await page.goto(`/hashmap/rules?field_id=${field.field_id}&q=size-2&sort=match`);
  const count = page.locator(".result-count");
  await expect(count).toHaveText("100 rules of 300 shown");
  const table = page.getByRole("table", { name: "Rules" });

  // New mapping: attached to the field the explorer is filtered on.
  await page.getByRole("link", { name: "New mapping" }).click();
  const panel = page.getByRole("dialog", { name: "New field mapping" });
  await expect(panel.getByText(`Attached to ${service.name} › flavor_id`)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/hashmap/mappings/new\\?field_id=${field.field_id}$`));
  await panel.getByLabel("Value").fill("size-2xl");
  await panel.getByLabel("Cost").fill("4");
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  await expect(panel).toBeHidden();
  await expect(count).toHaveText("101 rules of 301 shown");
  await expect(page).toHaveURL(/q=size-2/);
  await expect(
    table
      .getByRole("row")
      .filter({ hasText: "size-2xl" })
      .getByRole("link", { name: /^Edit / }),
  ).toBeFocused();

  // Edit one: saved, and the list keeps its filter and sort. The new rule sorts last (values sort
  // character by character, size-2xl after size-299), where the list scrolled to: back to the top.
  await listRegion(page, "Rules").evaluate((element) => element.scrollTo(0, 0));
  await table
    .getByRole("row")
    .filter({ hasText: "size-200" })
    .getByRole("link", { name: /^Edit / })
    .click();
  await expect(page.getByRole("dialog", { name: "Edit field mapping" })).toBeVisible();
  await page.getByRole("dialog").getByLabel("Cost").fill("2.5");
  await page.getByRole("dialog").getByRole("button", { name: "Save changes" }).click();
  await expectToast(page, "Mapping saved");
  await expect(page).toHaveURL(/\/hashmap\/rules\?/);
  await expect(page).toHaveURL(/q=size-2/);
  await expect(page).toHaveURL(/sort=match/);
  await expect(table.getByRole("row").filter({ hasText: "size-200" })).toContainText("2.5");
  // Sorted by value by the server, character by character: size-200 first, size-2xl after size-299.
  await expect(table.locator("tbody tr").first()).toContainText("size-200");

  // The service page's lists pass axe too.
  await page.goto(`/hashmap/services/${service.service_id}?tab=mappings`);
  await expect(page.getByText("No service mappings yet")).toBeVisible();
  await expectNoAxeViolations(page);
});
