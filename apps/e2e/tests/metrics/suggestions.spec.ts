import { expect, test, type Page } from "@playwright/test";
import { rest } from "../support/api.js";
import { saveScreen } from "../support/screens.js";
import { expectToast } from "../support/toasts.js";
import { expectOffered, UNREPORTED_ATTRIBUTE, UNREPORTED_METRIC } from "./support.js";

// The server runs with METRICS_FILE=tests/fixtures/metrics.yml, CloudKitty's sample collector
// configuration: cpu (alt_name instance), image.size, volume.size, ...

const SAMPLE_SERVICES = [
  "instance",
  "image.size",
  "volume.size",
  "network.outgoing.bytes.rate",
  "network.incoming.bytes.rate",
  "ip.floating",
  "radosgw.objects.size",
];
const INSTANCE_ATTRIBUTES = ["id", "user_id", "project_id", "flavor_name", "flavor_id", "vcpus"];

const pricingWarnings = (page: Page) => page.getByRole("status", { name: /pricing warning/ });

async function openCreateService(page: Page) {
  await page.goto("/hashmap/services");
  await page
    .getByRole("button", { name: /^Create (the first )?service$/ })
    .first()
    .click();
  const dialog = page.getByRole("dialog", { name: "Create a service" });
  return { dialog, name: dialog.getByLabel("Service name") };
}

async function addField(page: Page, name: string) {
  await page
    .getByRole("button", { name: /^Add (the first )?field$/ })
    .first()
    .click();
  const dialog = page.getByRole("dialog", { name: /^Add a field to / });
  await dialog.getByLabel("Field name").fill(name);
  await dialog.getByRole("button", { name: "Add field" }).click();
  await expect(dialog).toBeHidden();
}

test("a new service is offered the collector's metrics, a field its metric's attributes; other names are accepted and warned about", async ({
  page,
  request,
}) => {
  const { dialog, name } = await openCreateService(page);
  await expectOffered(name, SAMPLE_SERVICES);
  // cpu is the metric's key: CloudKitty rates it under its alt_name, instance.
  await name.fill("cpu");
  await expect(dialog.getByText(UNREPORTED_METRIC)).toBeVisible();
  await saveScreen(page, "metrics-create-service");
  await expect(name).toHaveAccessibleDescription(new RegExp(UNREPORTED_METRIC.slice(0, 40)));
  await name.fill("instance");
  await expect(dialog.getByText(UNREPORTED_METRIC)).toBeHidden();
  await dialog.getByRole("button", { name: "Create service" }).click();
  await expectToast(page, "Service “instance” created");
  await expect(page.getByRole("heading", { name: "instance", level: 1 })).toBeVisible();
  await expect(pricingWarnings(page)).toBeHidden();

  // The field dialog offers instance's groupby and metadata.
  await page.getByRole("button", { name: "Add field", exact: true }).click();
  const fieldDialog = page.getByRole("dialog", { name: "Add a field to instance" });
  const fieldName = fieldDialog.getByLabel("Field name");
  await expectOffered(fieldName, INSTANCE_ATTRIBUTES);
  await fieldName.fill("flavour");
  await expect(fieldDialog.getByText(UNREPORTED_ATTRIBUTE)).toBeVisible();
  await fieldName.fill("flavor_id");
  await expect(fieldDialog.getByText(UNREPORTED_ATTRIBUTE)).toBeHidden();
  await fieldDialog.getByRole("button", { name: "Add field" }).click();
  await expectToast(page, "Field “flavor_id” added to instance");
  await expect(pricingWarnings(page)).toBeHidden();

  // A name outside the metric is still accepted, then warned about on the service's page.
  await addField(page, "flavour");
  await expectToast(page, "Field “flavour” added to instance");
  const warnings = pricingWarnings(page);
  await expect(warnings.getByRole("heading")).toHaveText("1 pricing warning");
  await expect(warnings).toContainText(
    "The collector does not report the field flavour of instance",
  );
  await saveScreen(page, "metrics-service-warning");

  // Fields already there are not offered again.
  await page.getByRole("button", { name: "Add field", exact: true }).click();
  await expectOffered(
    page.getByRole("dialog").getByLabel("Field name"),
    INSTANCE_ATTRIBUTES.filter((attribute) => attribute !== "flavor_id"),
  );
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

  // The field's own page warns; a reported field's page does not.
  await page.getByRole("link", { name: "flavour", exact: true }).click();
  await expect(page.getByRole("heading", { name: "flavour", level: 1 })).toBeVisible();
  await expect(pricingWarnings(page)).toContainText(
    "The collector does not report the field flavour of instance",
  );
  await page.goBack();
  await page.getByRole("link", { name: "flavor_id", exact: true }).click();
  await expect(page.getByRole("heading", { name: "flavor_id", level: 1 })).toBeVisible();
  await expect(pricingWarnings(page)).toBeHidden();

  const [service] = (await rest.services(request)).filter((s) => s.name === "instance");
  expect(service).toBeDefined();
  const fields = await rest.fields(request, service!.service_id);
  expect(fields.map((field) => field.name).sort()).toEqual(["flavor_id", "flavour"]);
});

test("a service no metric has is created, and its page says CloudKitty will never rate it", async ({
  page,
  request,
}) => {
  const { dialog, name } = await openCreateService(page);
  await name.fill("cpu");
  await expect(dialog.getByText(UNREPORTED_METRIC)).toBeVisible();
  await dialog.getByRole("button", { name: "Create service" }).click();
  await expectToast(page, "Service “cpu” created");
  await expect(page.getByRole("heading", { name: "cpu", level: 1 })).toBeVisible();
  const warnings = pricingWarnings(page);
  await expect(warnings.getByRole("heading")).toHaveText("1 pricing warning");
  await expect(warnings).toContainText("The collector does not report cpu");
  await expect(warnings).toContainText("CloudKitty will never rate this service");

  // A field of a service the collector lacks gets no suggestions and no hint of its own.
  await page
    .getByRole("button", { name: /^Add (the first )?field$/ })
    .first()
    .click();
  const fieldDialog = page.getByRole("dialog", { name: "Add a field to cpu" });
  await expectOffered(fieldDialog.getByLabel("Field name"), []);
  await fieldDialog.getByLabel("Field name").fill("flavor_id");
  await expect(fieldDialog.getByText(UNREPORTED_ATTRIBUTE)).toBeHidden();
  await fieldDialog.getByRole("button", { name: "Cancel" }).click();

  expect((await rest.services(request)).map((service) => service.name)).toContain("cpu");
});
