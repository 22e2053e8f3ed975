import { expect, test, type Locator, type Page } from "@playwright/test";
import { HASHMAP, rest, seedServiceWithField } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { expectToast } from "./support/toasts.js";

/** What the browser sends for a datetime-local value: its own time zone, in UTC. */
const utcOf = (page: Page, local: string) =>
  page.evaluate((value) => new Date(value).toISOString(), local);

/** The API writes moments in UTC without an offset. */
const asUtc = (moment: string | null | undefined) =>
  moment ? new Date(`${moment}Z`).toISOString() : moment;

/** The lifecycle fields are folded under a summary unless the rule uses them. */
async function unfoldLifecycle(panel: Locator) {
  const details = panel.locator("details");
  if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open)))
    await panel.getByText("Name, description and validity period").click();
}

test("a mapping's name, description, validity period and soft deletion in the console", async ({
  page,
  request,
}) => {
  const { service, field } = await seedServiceWithField(request, "lifecycle");
  // A rule that ended: a past start needs ?force=true.
  const ended = await request.post(`${HASHMAP}/mappings?force=true`, {
    data: {
      field_id: field.field_id,
      value: "m1.ended",
      cost: "0.02",
      start: "2001-01-01",
      end: "2002-01-01",
    },
  });
  expect(ended.status()).toBe(201);
  const endedId = ((await ended.json()) as { mapping_id: string }).mapping_id;
  await page.goto(`/hashmap/fields/${field.field_id}`);
  const panel = page.getByRole("dialog", { name: "New field mapping" });

  // Name, description and an end, from the form.
  await page.getByRole("link", { name: "Add field mapping", exact: true }).click();
  await panel.getByLabel("Value").fill("m1.small");
  await panel.getByLabel("Cost").fill("0.05");
  await unfoldLifecycle(panel);
  await panel.getByLabel("Name", { exact: true }).fill("small-2099");
  await panel.getByLabel("Description").fill("Small flavour until 2099");
  await panel.getByLabel("Ends").fill("2099-12-31T23:00");
  await expectNoAxeViolations(page, { include: '[role="dialog"]' });
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  const [small] = (await rest.mappings(request, `field_id=${field.field_id}`)).filter(
    (mapping) => mapping.value === "m1.small",
  );
  expect(small).toMatchObject({ name: "small-2099", description: "Small flavour until 2099" });
  expect(asUtc(small?.end)).toBe(await utcOf(page, "2099-12-31T23:00"));
  expect(small?.created_by).toBe("noauth");

  // Editing shows who created it.
  const table = page.getByRole("table", { name: `Mappings of ${service.name} › flavor_id` });
  await table
    .getByRole("row")
    .filter({ hasText: "m1.small" })
    .getByRole("link", { name: /^Edit/ })
    .click();
  const editPanel = page.getByRole("dialog", { name: "Edit field mapping" });
  await expect(editPanel.getByLabel("Name", { exact: true })).toHaveValue("small-2099");
  await expect(editPanel.getByText(/by noauth/)).toBeVisible();
  // A new end is sent; the unchanged start is not, and stays as it was to the microsecond.
  await editPanel.getByLabel("Ends").fill("2098-06-30T12:00");
  await editPanel.getByRole("button", { name: "Save changes" }).click();
  await expectToast(page, "Mapping saved");
  await expect(editPanel).toBeHidden();
  const edited = await rest.get<{ start: string; end: string; updated_by: string }>(
    request,
    `${HASHMAP}/mappings/${small?.mapping_id}`,
  );
  expect(edited.start).toBe(small?.start);
  expect(asUtc(edited.end)).toBe(await utcOf(page, "2098-06-30T12:00"));
  expect(edited.updated_by).toBe("noauth");

  // A start in the past needs the operator's confirmation; then the server takes it (force).
  await page.getByRole("link", { name: "Add field mapping", exact: true }).click();
  await panel.getByLabel("Value").fill("m1.old");
  await panel.getByLabel("Cost").fill("0.01");
  await unfoldLifecycle(panel);
  await panel.getByLabel("Starts").fill("2001-01-01T00:00");
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expect(panel.getByText(/This start is in the past/).first()).toBeVisible();
  await panel.getByLabel("Start in the past").check();
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  const [old] = (await rest.mappings(request, `field_id=${field.field_id}`)).filter(
    (mapping) => mapping.value === "m1.old",
  );
  expect(asUtc(old?.start)).toBe(await utcOf(page, "2001-01-01T00:00"));

  // A rule that starts later is "Scheduled"; beside it, one in force says "Active".
  await page.getByRole("link", { name: "Add field mapping", exact: true }).click();
  await panel.getByLabel("Value").fill("m1.later");
  await panel.getByLabel("Cost").fill("0.07");
  await unfoldLifecycle(panel);
  await panel.getByLabel("Starts").fill("2099-01-01T00:00");
  await panel.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  await expect(table.getByRole("row").filter({ hasText: "m1.later" })).toContainText("Scheduled");
  await expect(table.getByRole("row").filter({ hasText: "m1.small" })).not.toContainText(
    "Scheduled",
  );
  await expect(table.getByRole("row").filter({ hasText: "m1.small" })).toContainText("Active");
  await expect(table.getByRole("row").filter({ hasText: "m1.ended" })).toContainText("Ended");

  // Deleting: kept as history, gone from the list, back with the Deleted status without actions.
  await table
    .getByRole("row")
    .filter({ hasText: "m1.small" })
    .getByRole("button", { name: /^Delete/ })
    .click();
  const confirm = page.getByRole("alertdialog", { name: "Delete this mapping?" });
  await expect(confirm).toContainText("kept as history");
  await expect(confirm).toContainText("identical mapping can be created again");
  await expectNoAxeViolations(page, { include: '[role="alertdialog"]' });
  await confirm.getByRole("button", { name: "Delete mapping" }).click();
  await expectToast(page, "Mapping deleted");
  await expect(table.getByRole("row").filter({ hasText: "m1.small" })).toHaveCount(0);

  // The filters: only scheduled, only ended, only deleted.
  await page.getByLabel("Status").selectOption("scheduled");
  await expect(page).toHaveURL(/status=scheduled/);
  await expect(table.getByRole("row").filter({ hasText: "m1." })).toHaveCount(1);
  await expect(table.getByRole("row").filter({ hasText: "m1.later" })).toBeVisible();
  await page.getByLabel("Status").selectOption("ended");
  await expect(table.getByRole("row").filter({ hasText: "m1." })).toHaveCount(1);
  await expect(table.getByRole("row").filter({ hasText: "m1.ended" })).toBeVisible();
  await page.getByLabel("Status").selectOption("deleted");
  await expect(page).toHaveURL(/status=deleted/);
  const deletedRow = table.getByRole("row").filter({ hasText: "m1.small" });
  await expect(deletedRow).toContainText(/Deleted by noauth at/);
  await expect(deletedRow.getByRole("button")).toHaveCount(0);
  await expect(deletedRow.getByRole("link")).toHaveCount(0);
  await expectNoAxeViolations(page);
  const [gone] = (await rest.mappings(request, `field_id=${field.field_id}&deleted=true`)).filter(
    (mapping) => mapping.value === "m1.small",
  );
  expect(gone).toMatchObject({ deleted_by: "noauth" });
  expect(gone?.deleted).toBeTruthy();

  // The address keeps the filter; any status but Deleted hides deleted rules again.
  await page.reload();
  await expect(page.getByLabel("Status")).toHaveValue("deleted");
  await expect(table.getByRole("row").filter({ hasText: "m1." })).toHaveCount(1);
  await page.getByLabel("Status").selectOption("");
  await expect(table.getByRole("row").filter({ hasText: "m1.small" })).toHaveCount(0);
  await expect(table.getByRole("row").filter({ hasText: "m1.later" })).toBeVisible();

  // Leave no scheduled or ended rule behind for the journeys that measure the explorer's columns.
  const [later] = (await rest.mappings(request, `field_id=${field.field_id}`)).filter(
    (mapping) => mapping.value === "m1.later",
  );
  expect((await request.delete(`${HASHMAP}/mappings/${later?.mapping_id}`)).status()).toBe(204);
  expect((await request.delete(`${HASHMAP}/mappings/${endedId}`)).status()).toBe(204);
});

test("the rules explorer filters by status, creator and description, and lists deleted rules", async ({
  page,
  request,
}) => {
  const { field } = await seedServiceWithField(request, "explorer-lifecycle");
  const create = async (value: string, extra: Record<string, unknown> = {}) => {
    const response = await request.post(`${HASHMAP}/mappings?force=true`, {
      data: { field_id: field.field_id, value, cost: "0.01", ...extra },
    });
    expect(response.status()).toBe(201);
    return ((await response.json()) as { mapping_id: string }).mapping_id;
  };
  await create("x.now", { description: "Nightly batch flavour" });
  const laterId = await create("x.later", { start: "2099-01-01" });
  const goneId = await create("x.gone");
  expect((await request.delete(`${HASHMAP}/mappings/${goneId}`)).status()).toBe(204);

  await page.goto(`/hashmap/rules?field_id=${field.field_id}`);
  const table = page.getByRole("table", { name: "Rules" });
  const rows = table.getByRole("row").filter({ hasText: "x." });
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: "x.later" })).toContainText("Scheduled");

  await page.getByLabel("Status").selectOption("scheduled");
  await expect(page).toHaveURL(/status=scheduled/);
  await expect(rows).toHaveCount(1);
  await expect(rows.filter({ hasText: "x.later" })).toBeVisible();

  // Deleted: the API's deleted=true, greyed rows saying who deleted them, no Edit or Delete.
  await page.getByLabel("Status").selectOption("deleted");
  await expect(page).toHaveURL(/status=deleted/);
  await expect(rows).toHaveCount(1);
  const gone = rows.filter({ hasText: "x.gone" });
  await expect(gone).toContainText(/Deleted by noauth at/);
  await expect(gone.getByRole("button")).toHaveCount(0);
  // Its parent still exists: only the link to it is left.
  await expect(gone.getByRole("link", { name: /^Edit/ })).toHaveCount(0);
  await expect(gone.locator(".deleted-rule").first()).toBeVisible();
  await expectNoAxeViolations(page);

  // Created by is the API's exact filter, kept in the address with the others.
  await page.getByLabel("Status").selectOption("");
  await page.getByLabel("Created by").fill("someone-else");
  await expect(page).toHaveURL(/created_by=someone-else/);
  await expect(rows).toHaveCount(0);
  await page.getByLabel("Created by").fill("noauth");
  await expect(page).toHaveURL(/created_by=noauth/);
  await expect(rows).toHaveCount(2);
  await page.reload();
  await expect(page.getByLabel("Created by")).toHaveValue("noauth");
  await expectNoAxeViolations(page);

  // Description: the API's filter, any case, any part of it.
  await page.getByLabel("Description").fill("BATCH");
  await expect(page).toHaveURL(/description=BATCH/);
  await expect(rows).toHaveCount(1);
  await expect(rows.filter({ hasText: "x.now" })).toBeVisible();

  // Leave no scheduled rule behind for the journeys that measure the explorer's columns.
  expect((await request.delete(`${HASHMAP}/mappings/${laterId}`)).status()).toBe(204);
});
