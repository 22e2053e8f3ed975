import { expect, test, type Page } from "@playwright/test";
import { rest, uniqueName } from "./support/api.js";
import { saveScreen } from "./support/screens.js";
import { expectToast } from "./support/toasts.js";

// CloudKitty's documented volume example: 0.001 per GiB, 2% off from 50 GiB, 5% off from 200 GiB.
const DOCUMENTED_TOTALS = [
  ["20", "0.02"],
  ["50", "0.049"],
  ["80", "0.0784"],
  ["250", "0.2375"],
] as const;

const previewTotal = (page: Page) => page.getByRole("status", { name: "Total price" });
const groupPrice = (page: Page, name: string) => page.getByRole("region", { name });
const pricingWarnings = (page: Page) => page.getByRole("status", { name: /pricing warning/ });

test("the price preview explains CloudKitty's worked example, a grouped field mapping and a tenant override, as the quote prices them", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("volume"));
  const serviceId = service.service_id;
  await rest.createMapping(request, { service_id: serviceId, type: "flat", cost: "0.001" });
  await rest.createThreshold(request, {
    service_id: serviceId,
    level: "50",
    type: "rate",
    cost: "0.98",
  });
  await rest.createThreshold(request, {
    service_id: serviceId,
    level: "200",
    type: "rate",
    cost: "0.95",
  });

  // From the service page, with the service chosen.
  await page.goto(`/hashmap/services/${serviceId}`);
  await page.getByRole("link", { name: "Preview prices" }).click();
  await expect(page).toHaveURL(new RegExp(`/preview\\?service=${service.name}`));
  await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue(service.name);

  // The price follows the quantity as it is typed.
  const quantity = page.getByRole("textbox", { name: "Quantity" });
  for (const [volume, total] of DOCUMENTED_TOTALS) {
    await quantity.fill(volume);
    await expect(previewTotal(page)).toHaveText(total);
  }
  const defaultGroup = groupPrice(page, "Default group");
  await expect(defaultGroup).toContainText("rate service threshold at level 200, cost 0.95");
  await expect(defaultGroup).toContainText("rate × flat × quantity × threshold");
  await expect(defaultGroup).toContainText("1 × 0.001 × 250 × 0.95 = 0.2375");
  await expect(
    defaultGroup.getByRole("link", { name: `the flat service mapping on ${service.name}` }),
  ).toBeVisible();

  // A field mapping in a group adds that group's price when the metadata matches it exactly.
  const field = await rest.createField(request, serviceId, "volume_type");
  const group = await rest.createGroup(request, uniqueName("ssd"));
  await rest.createMapping(request, {
    field_id: field.field_id,
    value: "ssd",
    cost: "0.0005",
    group_id: group.group_id,
  });
  await page.reload();
  // The URL kept the quantity.
  await expect(quantity).toHaveValue("250");
  await expect(previewTotal(page)).toHaveText("0.2375");
  // A field input suggests the values its mappings match (a combobox with a list).
  const volumeType = page.getByRole("combobox", { name: "volume_type" });
  await volumeType.fill("SSD");
  await expect(page).toHaveURL(/meta\.volume_type=SSD/);
  await expect(previewTotal(page)).toHaveText("0.2375");
  await expect(groupPrice(page, `Group ${group.name}`)).toHaveCount(0);
  await volumeType.fill("ssd");
  await expect(previewTotal(page)).toHaveText("0.3625");
  const ssdGroup = groupPrice(page, `Group ${group.name}`);
  await expect(ssdGroup).toContainText("1 × 0.0005 × 250 = 0.125");
  await expect(ssdGroup).toContainText("none reached");
  await expect(
    ssdGroup.getByRole("link", {
      name: `the flat mapping for “ssd” on ${service.name} › volume_type`,
    }),
  ).toBeVisible();

  // Metadata the service has no field for prices nothing, and is kept in the URL too.
  await page.getByRole("button", { name: "Add other metadata" }).click();
  await page.getByRole("textbox", { name: "Key of metadata row 1" }).fill("region");
  await page.getByRole("textbox", { name: "Value of metadata row 1" }).fill("eu");
  await expect(page).toHaveURL(/meta\.region=eu/);
  await expect(previewTotal(page)).toHaveText("0.3625");

  // A quantity that is not a number is explained next to the input; the last price stays.
  await quantity.fill("80 GiB");
  await expect(
    page.getByText("Not a decimal number (NaN and infinities are refused)."),
  ).toBeVisible();
  await expect(quantity).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("This is the price of the last valid input")).toBeVisible();
  await expect(previewTotal(page)).toHaveText("0.3625");
  await quantity.fill("250");
  await expect(quantity).toHaveAttribute("aria-invalid", "false");

  // A tenant's service mapping replaces the global one for that tenant only.
  const tenantMapping = await rest.createMapping(request, {
    service_id: serviceId,
    type: "flat",
    cost: "0.002",
    tenant_id: "acme",
  });
  await page.reload();
  await expect(previewTotal(page)).toHaveText("0.3625");
  await page.getByRole("textbox", { name: "Tenant" }).fill("acme");
  await expect(previewTotal(page)).toHaveText("0.6");
  await expect(defaultGroup).toContainText("1 × 0.002 × 250 × 0.95 = 0.475");
  const tenantLink = defaultGroup.getByRole("link", {
    name: `the flat service mapping on ${service.name} for tenant acme`,
  });
  await expect(tenantLink.first()).toBeVisible();
  await expect(defaultGroup).toContainText(
    `tenant acme rule “the flat service mapping on ${service.name} for tenant acme (cost 0.002)” overrides global rule “the flat service mapping on ${service.name} (cost 0.001)”`,
  );
  await expect(ssdGroup).toContainText("0.125");
  await expect(page).toHaveURL(/tenant=acme/);
  await saveScreen(page, "price-preview");

  await tenantLink.first().click();
  await expect(page).toHaveURL(new RegExp(`/hashmap/mappings/${tenantMapping.mapping_id}$`));

  // CloudKitty's quote prices the same usage with the global rules (a quote has no tenant).
  for (const [volume, total] of DOCUMENTED_TOTALS) {
    expect(await rest.quote(request, [{ service: service.name, desc: {}, volume }])).toBe(total);
  }
  expect(
    await rest.quote(request, [
      { service: service.name, desc: { metadata: { volume_type: "ssd" } }, volume: "250" },
    ]),
  ).toBe("0.3625");
});

test("pricing warnings name the rules of a rate-only group and of a tenant override, and go once the rules are fixed", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("instance"));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  const group = await rest.createGroup(request, uniqueName("licence"));
  const rateOnly = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "rate",
    cost: "1.5",
    group_id: group.group_id,
  });
  await rest.createMapping(request, { field_id: field.field_id, value: "m1.small", cost: "0.01" });
  await rest.createMapping(request, {
    field_id: field.field_id,
    value: "m1.small",
    cost: "0.008",
    tenant_id: "acme",
  });
  const rateOnlyTitle = `Group “${group.name}” prices 0`;
  const overrideTitle = "Tenant acme's rule replaces a global rule in the default group";
  const rateRule = `the rate service mapping on ${service.name}`;
  const fieldRule = `the flat mapping for “m1.small” on ${service.name} › flavor_id`;

  // The group page: only the group's own trap.
  await page.goto(`/hashmap/groups/${group.group_id}`);
  const callout = pricingWarnings(page);
  await expect(callout.getByRole("heading")).toHaveText("1 pricing warning");
  await expect(callout).toContainText(rateOnlyTitle);
  await expect(callout).toContainText(
    "a rate multiplies the group's flat price, and there is none to multiply",
  );
  await expect(callout.getByRole("link", { name: rateRule })).toBeVisible();
  await saveScreen(page, "pricing-warnings");
  await callout.getByRole("link", { name: rateRule }).click();
  await expect(page).toHaveURL(new RegExp(`/hashmap/mappings/${rateOnly.mapping_id}$`));

  // The service page: both traps, naming the tenant's rule and the global rule it replaces.
  await page.goto(`/hashmap/services/${service.service_id}`);
  await expect(callout.getByRole("heading")).toHaveText("2 pricing warnings");
  await expect(
    callout.getByRole("listitem").filter({ hasText: rateOnlyTitle }).first(),
  ).toBeVisible();
  const override = callout.getByRole("listitem").filter({ hasText: overrideTitle }).first();
  await expect(override).toContainText(`applies for tenant acme: ${fieldRule} for tenant acme`);
  await expect(override).toContainText(`replaced for tenant acme: ${fieldRule} (cost 0.01)`);
  await saveScreen(page, "service-warnings");

  // The preview of tenant acme's point: the tenant's matched mapping carries its warning's
  // badge, which leads to the warning on the service page.
  await page.goto(
    `/preview?service=${service.name}&quantity=1&tenant=acme&meta.flavor_id=m1.small`,
  );
  const matched = page.getByRole("list", { name: "Matching mappings of the default group" });
  await expect(matched).toContainText(`${fieldRule} for tenant acme`);
  await matched.getByRole("link", { name: "1 pricing warning" }).click();
  await expect(page).toHaveURL(new RegExp(`/hashmap/services/${service.service_id}#warning-`));
  await expect(
    callout.getByRole("listitem").filter({ hasText: overrideTitle }).first(),
  ).toBeVisible();

  // The field page: only the trap its rules are part of.
  await page.getByRole("link", { name: "flavor_id", exact: true }).click();
  await expect(callout.getByRole("heading")).toHaveText("1 pricing warning");
  await expect(callout).toContainText(overrideTitle);
  await expect(callout).not.toContainText(rateOnlyTitle);

  // Deleting the tenant's rule on this page clears the warning without reloading.
  await page.getByRole("button", { name: `Delete ${fieldRule} for tenant acme` }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete mapping" }).click();
  await expectToast(page, "Mapping deleted");
  await expect(callout).toHaveCount(0);

  // Back on the service page, only the rate-only group is left.
  await page
    .getByRole("navigation", { name: "Breadcrumb" })
    .getByRole("link", { name: service.name })
    .click();
  await expect(callout.getByRole("heading")).toHaveText("1 pricing warning");
  await expect(callout).toContainText(rateOnlyTitle);

  // A flat field mapping in the group, added through the console, gives its rate something to
  // multiply. (A flat service mapping would take the rate's place: one service mapping per group.)
  await callout.getByRole("link", { name: group.name, exact: true }).click();
  await page.getByRole("link", { name: "Add mapping to group" }).click();
  await page
    .getByLabel("Attached to")
    .selectOption({ label: `${service.name} › flavor_id (field)` });
  await page.getByLabel("Value").fill("m1.small");
  await page.getByLabel("Cost").fill("0.05");
  await expect(page.getByLabel("Group", { exact: true })).toHaveValue(group.group_id);
  await page.getByRole("button", { name: "Create mapping" }).click();
  await expectToast(page, "Mapping created");
  // The form opened in place over the group page, and closing it returns there.
  await expect(page.getByRole("table", { name: `Mappings in group ${group.name}` })).toContainText(
    "m1.small",
  );
  await page.goto(`/hashmap/services/${service.service_id}`);
  await expect(page.getByRole("heading", { name: service.name, level: 1 })).toBeVisible();
  await expect(callout).toHaveCount(0);
  expect(
    await rest.get(
      request,
      `/v1/rating/module_config/hashmap/warnings?service_id=${service.service_id}`,
    ),
  ).toEqual({ warnings: [] });
});
