import { expect, test, type Page } from "@playwright/test";
import { rest, seedServiceWithField, uniqueName } from "./support/api.js";
import { saveScreen } from "./support/screens.js";
import { expectToast } from "./support/toasts.js";

const COST = (text: string) => `${text}${"0".repeat(28 - (text.split(".")[1]?.length ?? 0))}`;

async function createServiceThroughDialog(page: Page, name: string) {
  await page.goto("/hashmap/services");
  await page.getByRole("button", { name: "Create service", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Create a service" });
  await dialog.getByLabel("Service name").fill(name);
  await dialog.getByRole("button", { name: "Create service" }).click();
  return dialog;
}

test("create a service, a field, field and service mappings in a group, and a threshold", async ({
  page,
  request,
}) => {
  const serviceName = uniqueName("instance");
  const groupName = uniqueName("compute");

  // The group first, from the groups page.
  await page.goto("/hashmap/groups");
  await page.getByRole("button", { name: "Create group", exact: true }).click();
  await page
    .getByRole("dialog", { name: "Create a group" })
    .getByLabel("Group name")
    .fill(groupName);
  await page.getByRole("dialog").getByRole("button", { name: "Create group" }).click();
  await expectToast(page, `Group “${groupName}” created`);
  await expect(page.getByRole("link", { name: groupName })).toBeVisible();

  // The service: creating it opens its page.
  await createServiceThroughDialog(page, serviceName);
  await expectToast(page, `Service “${serviceName}” created`);
  await expect(page.getByRole("heading", { name: serviceName, level: 1 })).toBeVisible();

  // A field.
  await page.getByRole("button", { name: "Add field", exact: true }).click();
  await page.getByRole("dialog").getByLabel("Field name").fill("flavor_id");
  await page.getByRole("dialog").getByRole("button", { name: "Add field" }).click();
  await expectToast(page, `Field “flavor_id” added to ${serviceName}`);

  // A field mapping in the group, from the field page.
  await page.getByRole("link", { name: "flavor_id" }).click();
  await expect(
    page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("listitem"),
  ).toHaveText(["Services", serviceName, "flavor_id"]);
  await page.getByRole("link", { name: "Add field mapping", exact: true }).click();
  await expect(page.getByRole("heading", { name: "New field mapping" })).toBeVisible();
  await expect(page.getByText(`Attached to ${serviceName} › flavor_id`)).toBeVisible();
  await page.getByLabel("Value").fill("m1.small");
  await page.getByLabel("Cost").fill("0.05");
  await page.getByLabel("Group", { exact: true }).selectOption({ label: groupName });
  await saveScreen(page, "mapping-form");
  await page.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  const fieldMappings = page.getByRole("table", { name: `Mappings of ${serviceName} › flavor_id` });
  await expect(fieldMappings.getByRole("row").filter({ hasText: "m1.small" })).toContainText(
    "0.05",
  );
  await expect(fieldMappings.getByRole("row").filter({ hasText: "m1.small" })).toContainText(
    groupName,
  );
  await saveScreen(page, "field-page");

  // A rate service mapping in the same group, from the service page.
  await page
    .getByRole("navigation", { name: "Breadcrumb" })
    .getByRole("link", { name: serviceName })
    .click();
  await page.getByRole("tab", { name: /Service mappings/ }).click();
  await expect(page).toHaveURL(/tab=mappings/);
  await page.getByRole("link", { name: "Add the first service mapping" }).click();
  await page.getByRole("radio", { name: /^Rate/ }).click();
  await page.getByLabel("Cost").fill("1.2");
  await page.getByLabel("Group", { exact: true }).selectOption({ label: groupName });
  await page.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  await expect(page.getByRole("tab", { name: /Service mappings/ })).toHaveAttribute(
    "aria-selected",
    "true",
  );

  // A service threshold.
  await page.getByRole("tab", { name: /Service thresholds/ }).click();
  await page.getByRole("link", { name: "Add service threshold" }).click();
  await page.getByLabel("Level").fill("100");
  await page.getByRole("radio", { name: /^Rate/ }).click();
  await page.getByLabel("Cost").fill("0.95");
  await page.getByLabel("Group", { exact: true }).selectOption({ label: groupName });
  await page.getByRole("button", { name: "Create threshold" }).click();
  await expectToast(page, "Threshold created");
  await expect(
    page.getByRole("table", { name: `Service thresholds of ${serviceName}` }),
  ).toContainText("100");
  await saveScreen(page, "service-page");

  // What the server holds.
  const service = (await rest.services(request)).find(
    (candidate) => candidate.name === serviceName,
  );
  expect(service).toBeDefined();
  const group = (await rest.groups(request)).find((candidate) => candidate.name === groupName)!;
  const [field] = await rest.fields(request, service!.service_id);
  expect(field?.name).toBe("flavor_id");
  expect(await rest.mappings(request, `field_id=${field!.field_id}`)).toEqual([
    expect.objectContaining({
      value: "m1.small",
      type: "flat",
      cost: COST("0.05"),
      group_id: group.group_id,
      tenant_id: null,
    }),
  ]);
  expect(await rest.mappings(request, `service_id=${service!.service_id}`)).toEqual([
    expect.objectContaining({
      type: "rate",
      cost: COST("1.2"),
      group_id: group.group_id,
      field_id: null,
    }),
  ]);
  expect(await rest.thresholds(request, `service_id=${service!.service_id}`)).toEqual([
    expect.objectContaining({
      level: "100.00000000",
      type: "rate",
      cost: COST("0.95"),
      group_id: group.group_id,
    }),
  ]);
});

test("a service can be created with the keyboard alone", async ({ page, request }) => {
  const name = uniqueName("keyboard");
  await page.goto("/hashmap/services");
  const createButton = page.getByRole("button", { name: "Create service", exact: true });
  for (
    let presses = 0;
    presses < 30 && !(await createButton.evaluate((button) => button === document.activeElement));
    presses++
  ) {
    await page.keyboard.press("Tab");
  }
  await expect(createButton).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog").getByLabel("Service name")).toBeFocused();
  await page.keyboard.type(name);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  expect((await rest.services(request)).map((service) => service.name)).toContain(name);
});

test("edit a mapping", async ({ page, request }) => {
  const { service, field } = await seedServiceWithField(request, "edit");
  const mapping = await rest.createMapping(request, {
    field_id: field.field_id,
    value: "m1.large",
    cost: "0.2",
  });

  await page.goto(`/hashmap/fields/${field.field_id}`);
  await page
    .getByRole("link", {
      name: `Edit the flat mapping for “m1.large” on ${service.name} › flavor_id`,
    })
    .click();
  await expect(page).toHaveURL(new RegExp(`/hashmap/mappings/${mapping.mapping_id}$`));
  await expect(page.getByRole("heading", { name: "Edit field mapping" })).toBeVisible();
  await expect(page.getByLabel("Cost")).toHaveValue("0.2");
  await page.getByLabel("Cost").fill("0.0000000000000000000000000123");
  await page.getByRole("radio", { name: /^Rate/ }).click();
  await page.getByLabel("Tenant").fill("acme-project");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expectToast(page, "Mapping saved");
  await expect(page).toHaveURL(new RegExp(`/hashmap/fields/${field.field_id}`));
  await expect(page.getByRole("row").filter({ hasText: "m1.large" })).toContainText("acme-project");

  expect(
    await rest.get(request, `/v1/rating/module_config/hashmap/mappings/${mapping.mapping_id}`),
  ).toEqual({
    ...mapping,
    type: "rate",
    cost: "0.0000000000000000000000000123",
    tenant_id: "acme-project",
    updated_by: "noauth",
  });
});

test("duplicates and invalid values are explained next to the field, and nothing is stored", async ({
  page,
  request,
}) => {
  const { service, field } = await seedServiceWithField(request, "duplicate");

  // A service name that is taken.
  const dialog = await createServiceThroughDialog(page, service.name);
  await expect(dialog.getByText(`Service ${service.name} already exists.`)).toBeVisible();
  await expect(dialog.getByLabel("Service name")).toHaveAttribute("aria-invalid", "true");
  await saveScreen(page, "duplicate-service");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  expect(
    (await rest.services(request)).filter((candidate) => candidate.name === service.name),
  ).toHaveLength(1);

  // An identical mapping.
  await rest.createMapping(request, { field_id: field.field_id, value: "m1.small", cost: "1" });
  await page.goto(`/hashmap/mappings/new?field_id=${field.field_id}`);
  await page.getByLabel("Value").fill("m1.small");
  await page.getByLabel("Cost").fill("2");
  await page.getByRole("button", { name: "Create mapping" }).click();
  const message = "A mapping for this value with the same tenant and group already exists here.";
  await expect(page.locator(".form-error").filter({ hasText: message })).toBeVisible();
  await expect(page.getByLabel("Value")).toHaveAttribute("aria-invalid", "true");
  expect(await rest.mappings(request, `field_id=${field.field_id}`)).toHaveLength(1);

  // A cost that cannot be stored exactly is refused before it is sent, with the API's words.
  await page.getByLabel("Value").fill("m1.tiny");
  await page.getByLabel("Cost").fill("0.00000000000000000000000000001");
  await page.getByRole("button", { name: "Create mapping" }).click();
  await expect(
    page.getByText("More than 28 fractional digits cannot be stored exactly."),
  ).toBeVisible();
  await page.getByLabel("Cost").fill("abc");
  await page.getByRole("button", { name: "Create mapping" }).click();
  await expect(
    page.getByText("Not a decimal number (NaN and infinities are refused)."),
  ).toBeVisible();
  expect(await rest.mappings(request, `field_id=${field.field_id}`)).toHaveLength(1);
});

async function seedGroupWithRules(request: Parameters<typeof rest.createGroup>[0]) {
  const { service, field } = await seedServiceWithField(request, "grouped");
  const group = await rest.createGroup(request, uniqueName("licences"));
  const mappings = [
    await rest.createMapping(request, {
      service_id: service.service_id,
      cost: "1",
      group_id: group.group_id,
    }),
    await rest.createMapping(request, {
      field_id: field.field_id,
      value: "windows",
      cost: "3",
      group_id: group.group_id,
    }),
  ];
  const threshold = await rest.createThreshold(request, {
    service_id: service.service_id,
    level: "10",
    cost: "0.9",
    type: "rate",
    group_id: group.group_id,
  });
  return { group, mappings, threshold };
}

test("deleting a group can keep its rules, which move to no group", async ({ page, request }) => {
  const { group, mappings, threshold } = await seedGroupWithRules(request);
  await page.goto("/hashmap/groups");
  await page.getByRole("button", { name: `Delete group ${group.name}` }).click();
  const dialog = page.getByRole("alertdialog", { name: `Delete group “${group.name}”?` });
  await expect(dialog.getByText("What should happen to its rules?")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Delete group" })).toBeDisabled();
  const keep = dialog.getByRole("radio", { name: /Keep the rules/ });
  await expect(keep).toHaveAccessibleName(
    /its 2 mappings and 1 threshold stay and move to no group/,
  );
  await expect(keep).toHaveAccessibleName(/which can change prices/);
  await expect(dialog.getByRole("radio", { name: /Delete the rules too/ })).toHaveAccessibleName(
    /also deletes its 2 mappings and 1 threshold/,
  );
  await keep.click();
  await saveScreen(page, "group-delete-dialog");
  await dialog.getByRole("button", { name: "Delete group" }).click();
  await expectToast(page, `Group “${group.name}” deleted`);
  await expect(page.getByRole("link", { name: group.name })).toHaveCount(0);

  expect(
    await rest.status(request, `/v1/rating/module_config/hashmap/groups/${group.group_id}`),
  ).toBe(404);
  for (const mapping of mappings) {
    expect(
      await rest.get(request, `/v1/rating/module_config/hashmap/mappings/${mapping.mapping_id}`),
    ).toEqual({
      ...mapping,
      group_id: null,
    });
  }
  expect(
    await rest.get(
      request,
      `/v1/rating/module_config/hashmap/thresholds/${threshold.threshold_id}`,
    ),
  ).toEqual({
    ...threshold,
    group_id: null,
  });
});

test("deleting a group can delete its rules too", async ({ page, request }) => {
  const { group, mappings, threshold } = await seedGroupWithRules(request);
  await page.goto(`/hashmap/groups/${group.group_id}`);
  await expect(page.getByRole("tab", { name: /Mappings/ })).toContainText("2");
  await expect(page.getByRole("table", { name: `Mappings in group ${group.name}` })).toContainText(
    "windows",
  );
  await saveScreen(page, "group-page");
  await page.getByRole("button", { name: "Delete group" }).click();
  const dialog = page.getByRole("alertdialog");
  await dialog.getByRole("radio", { name: /Delete the rules too/ }).click();
  await dialog.getByRole("button", { name: "Delete group and rules" }).click();
  await expectToast(page, `Group “${group.name}” and its rules deleted`);
  await expect(page).toHaveURL(/\/hashmap\/groups$/);

  expect(
    await rest.status(request, `/v1/rating/module_config/hashmap/groups/${group.group_id}`),
  ).toBe(404);
  for (const mapping of mappings) {
    expect(
      await rest.status(request, `/v1/rating/module_config/hashmap/mappings/${mapping.mapping_id}`),
    ).toBe(404);
  }
  expect(
    await rest.status(
      request,
      `/v1/rating/module_config/hashmap/thresholds/${threshold.threshold_id}`,
    ),
  ).toBe(404);
});

test("deleting a service states and performs the cascade", async ({ page, request }) => {
  const { service, field } = await seedServiceWithField(request, "cascade");
  const second = await rest.createField(request, service.service_id, "volume_type");
  const mappings = [
    await rest.createMapping(request, { service_id: service.service_id, cost: "0.5" }),
    await rest.createMapping(request, { field_id: field.field_id, value: "a", cost: "1" }),
    await rest.createMapping(request, { field_id: second.field_id, value: "ssd", cost: "2" }),
  ];
  const threshold = await rest.createThreshold(request, {
    field_id: second.field_id,
    level: "5",
    cost: "1",
  });
  const bystander = await rest.createService(request, uniqueName("bystander"));

  await page.goto("/hashmap/services");
  await expect(page.getByRole("link", { name: service.name, exact: true })).toBeVisible();
  await saveScreen(page, "services-list");
  await page.getByRole("button", { name: `Delete service ${service.name}` }).click();
  const dialog = page.getByRole("alertdialog", { name: `Delete service “${service.name}”?` });
  await expect(dialog).toContainText(
    `Deleting service “${service.name}” also deletes 2 fields, 3 mappings and 1 threshold.`,
  );
  await saveScreen(page, "service-delete-dialog");
  await dialog.getByRole("button", { name: "Delete service" }).click();
  await expectToast(page, `Service “${service.name}” deleted`);
  await expect(page.getByRole("link", { name: service.name, exact: true })).toHaveCount(0);

  expect(
    await rest.status(request, `/v1/rating/module_config/hashmap/services/${service.service_id}`),
  ).toBe(404);
  for (const removed of [field, second]) {
    expect(
      await rest.status(request, `/v1/rating/module_config/hashmap/fields/${removed.field_id}`),
    ).toBe(404);
  }
  for (const mapping of mappings) {
    expect(
      await rest.status(request, `/v1/rating/module_config/hashmap/mappings/${mapping.mapping_id}`),
    ).toBe(404);
  }
  expect(
    await rest.status(
      request,
      `/v1/rating/module_config/hashmap/thresholds/${threshold.threshold_id}`,
    ),
  ).toBe(404);
  expect(
    await rest.status(request, `/v1/rating/module_config/hashmap/services/${bystander.service_id}`),
  ).toBe(200);
});

test("a field page opened from its address survives a reload", async ({ page, request }) => {
  const { service, field } = await seedServiceWithField(request, "deeplink");
  await rest.createThreshold(request, {
    field_id: field.field_id,
    level: "4",
    cost: "0.5",
    type: "flat",
  });

  await page.goto(`/hashmap/fields/${field.field_id}?tab=thresholds`);
  const check = async () => {
    await expect(page.getByRole("heading", { name: "flavor_id", level: 1 })).toBeVisible();
    await expect(
      page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("listitem"),
    ).toHaveText(["Services", service.name, "flavor_id"]);
    await expect(page.getByRole("tab", { name: /Field thresholds/ })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    await expect(
      page.getByRole("table", { name: `Thresholds of ${service.name} › flavor_id` }),
    ).toContainText("0.5");
  };
  await check();
  await page.reload();
  await check();
  await page.getByRole("tab", { name: /Field mappings/ }).click();
  await expect(page).not.toHaveURL(/tab=/);
});
