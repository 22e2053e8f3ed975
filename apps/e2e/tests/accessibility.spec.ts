import { expect, test, type Page } from "@playwright/test";
import { PYSCRIPTS, rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

// Issue 11 asks for axe on every page and dialog of the console. The journeys check the pages and
// dialogs they reach in their own states; this one walks every page of the console (and each
// tab of a record) and opens every create, delete and rule dialog once, on a small rule set.
// Sign-in, accounts and tokens need a local-accounts server (auth/local.spec.ts); /docs is
// docs.spec.ts; the targets pages are targets.spec.ts.

/** Waits until the page has shown its heading and read what it lists. */
async function settled(page: Page) {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await expect(page.getByText(/^Loading\b/)).toHaveCount(0);
}

/** Opens a dialog with `open`, checks it, and closes it with Escape. */
async function checkDialog(page: Page, open: () => Promise<void>) {
  await open();
  const dialog = page.locator('[role="dialog"], [role="alertdialog"]').last();
  await expect(dialog).toBeVisible();
  await expectNoAxeViolations(page, { include: `[role="${await dialog.getAttribute("role")}"]` });
  await page.keyboard.press("Escape");
  await expect(page.locator('[role="dialog"], [role="alertdialog"]')).toHaveCount(0);
}

test("axe finds no violation on any page, tab or dialog of the console", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const service = await rest.createService(request, uniqueName("axe"));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  const group = await rest.createGroup(request, uniqueName("axe-group"));
  const mapping = await rest.createMapping(request, {
    field_id: field.field_id,
    value: "m1.small",
    cost: "0.5",
    group_id: group.group_id,
  });
  await rest.createMapping(request, { service_id: service.service_id, cost: "0.01" });
  const threshold = await rest.createThreshold(request, {
    service_id: service.service_id,
    level: "10",
    cost: "0.9",
    type: "rate",
    group_id: group.group_id,
  });
  const created = await request.post(`${PYSCRIPTS}/scripts`, {
    data: { name: uniqueName("axe-script"), data: "data = data\n" },
  });
  expect(created.ok(), await created.text()).toBe(true);
  const script = (await created.json()) as { script_id: string };

  const servicePage = `/hashmap/services/${service.service_id}`;
  const fieldPage = `/hashmap/fields/${field.field_id}`;
  const groupPage = `/hashmap/groups/${group.group_id}`;
  const pages = [
    "/hashmap/services",
    servicePage,
    `${servicePage}?tab=mappings`,
    `${servicePage}?tab=thresholds`,
    `${servicePage}?tab=history`,
    fieldPage,
    `${fieldPage}?tab=thresholds`,
    `${fieldPage}?tab=history`,
    "/hashmap/groups",
    groupPage,
    `${groupPage}?tab=thresholds`,
    `${groupPage}?tab=history`,
    "/hashmap/rules",
    `/hashmap/mappings/new?field_id=${field.field_id}`,
    `/hashmap/mappings/${mapping.mapping_id}`,
    `/hashmap/thresholds/new?service_id=${service.service_id}`,
    `/hashmap/thresholds/${threshold.threshold_id}`,
    `/preview?service=${encodeURIComponent(service.name)}`,
    "/pyscripts",
    "/pyscripts/new",
    `/pyscripts/${script.script_id}`,
    "/modules",
    "/activity",
  ];
  for (const address of pages) {
    await page.goto(address);
    await settled(page);
    await expectNoAxeViolations(page);
  }

  await page.goto("/hashmap/services");
  await settled(page);
  await checkDialog(page, () => page.getByRole("button", { name: "Create service" }).click());

  await page.goto("/hashmap/groups");
  await settled(page);
  await checkDialog(page, () => page.getByRole("button", { name: "Create group" }).click());

  await page.goto(servicePage);
  await settled(page);
  await checkDialog(page, () => page.getByRole("button", { name: "Add field" }).click());
  await checkDialog(page, () => page.getByRole("button", { name: "Delete service" }).click());

  await page.goto(fieldPage);
  await settled(page);
  await checkDialog(page, () => page.getByRole("button", { name: "Delete field" }).click());
  await checkDialog(page, () => page.getByRole("button", { name: /^Delete .*m1\.small/ }).click());
  // The side panel of a new rule and of an edit (a dialog over the list).
  await checkDialog(page, () => page.getByRole("link", { name: "Add field mapping" }).click());
  await checkDialog(page, () => page.getByRole("link", { name: /^Edit .*m1\.small/ }).click());

  await page.goto(groupPage);
  await settled(page);
  await checkDialog(page, () => page.getByRole("button", { name: "Delete group" }).click());

  await page.goto(`/pyscripts/${script.script_id}`);
  await settled(page);
  await checkDialog(page, () => page.getByRole("button", { name: "Delete script" }).click());
});
