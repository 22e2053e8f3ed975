import { expect, test, type Browser, type Page } from "@playwright/test";
import { HASHMAP, PYSCRIPTS, rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { expectToast } from "./support/toasts.js";

// Issue 10, point 5: two tabs editing the same rule both said "saved" and the second silently
// undid the first (a per-tenant override turned back into a global rule). Every save and delete
// now names the revision it read; a stale one ends in the conflict dialog.

const trimmed = (cost: string) => cost.replace(/\.?0+$/, "");

async function openEditPanel(page: Page, serviceId: string, mappingId: string) {
  await page.goto(`/hashmap/services/${serviceId}?tab=mappings&rule=mapping:${mappingId}`);
  const panel = page.getByRole("dialog", { name: "Edit service mapping" });
  await expect(panel.getByLabel("Cost")).toHaveValue("0.5");
  return panel;
}

async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: test.info().project.use.baseURL });
  return context.newPage();
}

test("two tabs edit one mapping: the stale save meets the conflict dialog, never a silent undo", async ({
  browser,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("lost-update"));
  const mapping = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "0.5",
  });
  const url = `${HASHMAP}/mappings/${mapping.mapping_id}`;
  const pageA = await newPage(browser);
  const pageB = await newPage(browser);
  const panelA = await openEditPanel(pageA, service.service_id, mapping.mapping_id);
  const panelB = await openEditPanel(pageB, service.service_id, mapping.mapping_id);

  // Tab A makes it a per-tenant override.
  await panelA.getByLabel("Tenant").fill("acme");
  await panelA.getByRole("button", { name: "Save changes" }).click();
  await expectToast(pageA, "Mapping saved");

  // Tab B, from its stale copy, changes the cost: refused, and B is told what changed.
  await panelB.getByLabel("Cost").fill("0.75");
  await panelB.getByRole("button", { name: "Save changes" }).click();
  const conflict = pageB.getByRole("alertdialog", {
    name: "This mapping was changed by someone else",
  });
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText(/Changed (by .+ )?at /);
  const differences = conflict.getByRole("table", { name: "What differs" });
  await expect(differences.getByRole("row", { name: /^Tenant/ })).toHaveText(
    /Tenantacme\(all tenants\)/,
  );
  await expect(differences.getByRole("row", { name: /^Cost/ })).toHaveText(/Cost0\.50\.75/);
  await expect(conflict.getByRole("button", { name: "Reload" })).toBeFocused();
  await expectNoAxeViolations(pageB, { include: '[role="alertdialog"]' });
  // Nothing of B's was written: A's override stands.
  let stored = await rest.get<{ tenant_id: string | null; cost: string }>(request, url);
  expect(stored.tenant_id).toBe("acme");
  expect(trimmed(stored.cost)).toBe("0.5");

  // Escape keeps what B typed, until B chooses.
  await pageB.keyboard.press("Escape");
  await expect(conflict).toBeHidden();
  await expect(panelB.getByLabel("Cost")).toHaveValue("0.75");
  await panelB.getByRole("button", { name: "Save changes" }).click();
  await expect(conflict).toBeVisible();

  // Reload: B now sees A's tenant, and B's change applied again keeps it.
  await conflict.getByRole("button", { name: "Reload" }).click();
  await expect(conflict).toBeHidden();
  await expect(panelB.getByLabel("Tenant")).toHaveValue("acme");
  await expect(panelB.getByLabel("Cost")).toHaveValue("0.5");
  await expect(panelB.getByLabel("Cost")).toBeFocused();
  await panelB.getByLabel("Cost").fill("0.75");
  await panelB.getByRole("button", { name: "Save changes" }).click();
  await expectToast(pageB, "Mapping saved");
  stored = await rest.get(request, url);
  expect(stored.tenant_id).toBe("acme");
  expect(trimmed(stored.cost)).toBe("0.75");

  // Reapply: B's values, seen against A's newer ones, are sent over them on purpose.
  const panelA2 = await openEditPanel2(pageA, service.service_id, mapping.mapping_id, "0.75");
  const panelB2 = await openEditPanel2(pageB, service.service_id, mapping.mapping_id, "0.75");
  await panelA2.getByLabel("Cost").fill("0.9");
  await panelA2.getByRole("button", { name: "Save changes" }).click();
  await expectToast(pageA, "Mapping saved");
  await panelB2.getByLabel("Tenant").fill("beta");
  await panelB2.getByRole("button", { name: "Save changes" }).click();
  await expect(conflict).toBeVisible();
  await expect(differences.getByRole("row", { name: /^Cost/ })).toHaveText(/Cost0\.90\.75/);
  await conflict.getByRole("button", { name: "Reapply my change" }).click();
  await expectToast(pageB, "Mapping saved");
  stored = await rest.get(request, url);
  expect(stored.tenant_id).toBe("beta");
  expect(trimmed(stored.cost)).toBe("0.75");

  await pageA.context().close();
  await pageB.context().close();
});

async function openEditPanel2(page: Page, serviceId: string, mappingId: string, cost: string) {
  await page.goto(`/hashmap/services/${serviceId}?tab=mappings&rule=mapping:${mappingId}`);
  const panel = page.getByRole("dialog", { name: "Edit service mapping" });
  await expect(panel.getByLabel("Cost")).toHaveValue(cost);
  return panel;
}

test("a delete from a stale list meets the conflict dialog: Reload, then Delete anyway", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("stale-delete"));
  const mapping = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "0.5",
  });
  const url = `${HASHMAP}/mappings/${mapping.mapping_id}`;
  const change = async (body: Record<string, unknown>) =>
    expect((await request.put(url, { data: { ...mapping, ...body } })).status()).toBe(200);

  await page.goto(`/hashmap/services/${service.service_id}?tab=mappings`);
  const table = page.getByRole("table", { name: /mappings of /i });
  await expect(table.getByRole("button", { name: /^Delete / })).toBeVisible();
  // Someone makes it a tenant override behind the list's back.
  await change({ tenant_id: "acme" });

  await table.getByRole("button", { name: /^Delete / }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete mapping" }).click();
  const conflict = page.getByRole("alertdialog", {
    name: "This mapping was changed by someone else",
  });
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText("Nothing was deleted.");
  await expectNoAxeViolations(page, { include: '[role="alertdialog"]' });
  expect(await rest.status(request, url)).toBe(200);

  // Reload: the list shows the override now.
  await conflict.getByRole("button", { name: "Reload" }).click();
  await expect(conflict).toBeHidden();
  await expect(table).toContainText("acme");

  // Changed again, then deleted anyway from the conflict dialog.
  await change({ cost: "0.6", tenant_id: "acme" });
  await table.getByRole("button", { name: /^Delete / }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete mapping" }).click();
  await expect(conflict).toBeVisible();
  await conflict.getByRole("button", { name: "Delete anyway" }).click();
  await expectToast(page, "Mapping deleted");
  // A soft delete (docs/lifecycle.md): still readable by id, marked deleted.
  expect((await rest.get<{ deleted: string | null }>(request, url)).deleted).not.toBeNull();
});

test("a script saved over a change made meanwhile: the dialog compares name and source, Reapply saves the operator's", async ({
  page,
  request,
}) => {
  const name = uniqueName("conflict-script");
  const created = await request.post(`${PYSCRIPTS}/scripts`, {
    data: { name, data: "data = data\n" },
  });
  expect(created.status()).toBe(201);
  const script = (await created.json()) as { script_id: string };
  const url = `${PYSCRIPTS}/scripts/${script.script_id}`;

  await page.goto(`/pyscripts/${script.script_id}`);
  await expect(page.getByLabel("Name")).toHaveValue(name);
  // Another client changes the source behind the editor's back.
  const changed = await request.put(url, { data: { name, data: "data = data\n# theirs\n" } });
  expect(changed.status()).toBe(200);

  const mine = `${name}-mine`;
  await page.getByLabel("Name").fill(mine);
  await page.getByRole("button", { name: "Save changes" }).click();
  const conflict = page.getByRole("alertdialog", {
    name: "This script was changed by someone else",
  });
  await expect(conflict).toBeVisible();
  const differences = conflict.getByRole("table", { name: "What differs" });
  await expect(differences.getByRole("row", { name: /^Name/ })).toContainText(mine);
  await expect(differences.getByRole("row", { name: /^Source/ })).toContainText("2 lines");
  await expectNoAxeViolations(page, { include: '[role="alertdialog"]' });
  expect((await rest.get<{ name: string }>(request, url)).name).toBe(name);

  await conflict.getByRole("button", { name: "Reapply my change" }).click();
  await expectToast(page, `Script “${mine}” saved`);
  const stored = await rest.get<{ name: string; data: string }>(request, url);
  expect(stored).toMatchObject({ name: mine, data: "data = data\n" });
});
