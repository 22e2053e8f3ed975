import { expect, test } from "@playwright/test";
import { rest } from "../support/api.js";
import { expectToast } from "../support/toasts.js";
import { expectOffered, UNREPORTED_ATTRIBUTE, UNREPORTED_METRIC } from "./support.js";

// This server has the same METRICS_FILE, but its policy refuses ratecard:list_metrics to everyone:
// the console carries on as without a metrics file, with no suggestion, hint or warning.

test("when the policy refuses the collector's metrics, names are neither suggested nor warned about", async ({
  page,
  request,
}) => {
  const refused = await request.get("/trpc/info.collectorMetrics");
  expect(refused.status()).toBe(403);

  // Wait for the console's own refused request: until it is answered, nothing would show anyway.
  const consoleAsked = page.waitForResponse((response) =>
    response.url().includes("info.collectorMetrics"),
  );
  await page.goto("/hashmap/services");
  await page
    .getByRole("button", { name: /^Create (the first )?service$/ })
    .first()
    .click();
  const dialog = page.getByRole("dialog", { name: "Create a service" });
  const name = dialog.getByLabel("Service name");
  await consoleAsked;
  await name.fill("cpu");
  await expectOffered(name, []);
  await expect(dialog.getByText(UNREPORTED_METRIC)).toBeHidden();
  await dialog.getByRole("button", { name: "Create service" }).click();
  await expectToast(page, "Service “cpu” created");
  await expect(page.getByRole("heading", { name: "cpu", level: 1 })).toBeVisible();

  await page
    .getByRole("button", { name: /^Add (the first )?field$/ })
    .first()
    .click();
  const fieldDialog = page.getByRole("dialog", { name: "Add a field to cpu" });
  await fieldDialog.getByLabel("Field name").fill("flavour");
  await expectOffered(fieldDialog.getByLabel("Field name"), []);
  await expect(fieldDialog.getByText(UNREPORTED_ATTRIBUTE)).toBeHidden();
  await fieldDialog.getByRole("button", { name: "Add field" }).click();
  await expectToast(page, "Field “flavour” added to cpu");

  await expect(page.getByRole("status", { name: /pricing warning/ })).toBeHidden();
  await expect(page.getByRole("alert")).toBeHidden();
  expect((await rest.services(request)).map((service) => service.name)).toEqual(["cpu"]);
});
