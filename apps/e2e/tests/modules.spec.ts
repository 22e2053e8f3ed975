import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { saveScreen } from "./support/screens.js";
import { expectToast } from "./support/toasts.js";

// Module switches change what CloudKitty charges: each one is confirmed with its effect on prices
// and can be undone from the notification; the preview says what a disabled hashmap or running
// scripts do to the price shown.

const toast = (page: Page, text: string) =>
  page.locator("[data-sonner-toast]").filter({ hasText: text }).last();

async function setModule(
  request: APIRequestContext,
  moduleId: string,
  change: { enabled?: boolean; priority?: number },
) {
  const response = await request.put(`/v1/rating/modules/${moduleId}`, {
    data: { module_id: moduleId, ...change },
  });
  expect(response.ok(), await response.text()).toBe(true);
}

test.describe("rating modules", () => {
  const saved: Record<string, { enabled: boolean; priority: number }> = {};
  test.beforeEach(async ({ request }) => {
    for (const id of ["hashmap", "pyscripts"]) {
      const { enabled, priority } = await rest.module(request, id);
      saved[id] = { enabled, priority };
    }
  });
  // The journeys after these ones share the server: leave the modules as they were.
  test.afterEach(async ({ request }) => {
    for (const [id, state] of Object.entries(saved)) await setModule(request, id, state);
  });

  test("disabling hashmap is confirmed with its effect on prices, and can be undone", async ({
    page,
    request,
  }) => {
    await setModule(request, "hashmap", { enabled: true });
    await page.goto("/modules");
    const hashmapSwitch = page.getByRole("switch", { name: "hashmap enabled" });
    await expect(hashmapSwitch).toHaveAttribute("aria-checked", "true");

    // Cancelling changes nothing.
    await hashmapSwitch.click();
    let dialog = page.getByRole("alertdialog", { name: "Disable hashmap?" });
    await expect(dialog).toContainText(
      "Disabling hashmap: CloudKitty will charge 0 for everything the hashmap rules price",
    );
    await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(hashmapSwitch).toHaveAttribute("aria-checked", "true");
    await expect(hashmapSwitch).toBeFocused();
    expect((await rest.module(request, "hashmap")).enabled).toBe(true);

    // With the keyboard: Space on the switch, Enter on the confirmation.
    await hashmapSwitch.press("Space");
    dialog = page.getByRole("alertdialog", { name: "Disable hashmap?" });
    await dialog.getByRole("button", { name: "Disable hashmap" }).click();
    await expect(dialog).toBeHidden();
    await expect(hashmapSwitch).toHaveAttribute("aria-checked", "false");
    await expect(hashmapSwitch).toBeFocused();
    await expect(toast(page, "hashmap disabled")).toContainText("charge 0");
    expect((await rest.module(request, "hashmap")).enabled).toBe(false);
    await saveScreen(page, "modules-undo");

    await toast(page, "hashmap disabled").getByRole("button", { name: "Undo" }).click();
    await expectToast(page, "Undone: hashmap enabled again");
    await expect(hashmapSwitch).toHaveAttribute("aria-checked", "true");
    expect((await rest.module(request, "hashmap")).enabled).toBe(true);
  });

  test("enabling pyscripts says scripts will change prices; a priority change says whether the order changes", async ({
    page,
    request,
  }) => {
    await setModule(request, "hashmap", { enabled: true, priority: 1 });
    await setModule(request, "pyscripts", { enabled: false, priority: 0 });
    await page.goto("/modules");
    await expect(page.getByText("CloudKitty runs hashmap (priority 1).")).toBeVisible();

    await page.getByRole("switch", { name: "pyscripts enabled" }).click();
    const enable = page.getByRole("alertdialog", { name: "Enable pyscripts?" });
    await expect(enable).toContainText(
      "Enabling pyscripts: scripts run by CloudKitty will change prices.",
    );
    await expect(enable).toContainText("The scripts run after hashmap");
    await enable.getByRole("button", { name: "Enable pyscripts" }).click();
    await expectToast(page, "pyscripts enabled");
    expect((await rest.module(request, "pyscripts")).enabled).toBe(true);
    await expect(
      page.getByText("CloudKitty runs hashmap (priority 1), then pyscripts (priority 0)."),
    ).toBeVisible();

    const priority = page.getByRole("textbox", { name: "Priority of pyscripts" });
    await priority.fill("x");
    await page.getByRole("button", { name: "Set priority of pyscripts" }).click();
    await expect(page.getByText("Enter a whole number, for example 1.")).toBeVisible();
    await priority.fill("7");
    await page.getByRole("button", { name: "Set priority of pyscripts" }).click();
    const reorder = page.getByRole("alertdialog", { name: "Set the priority of pyscripts to 7?" });
    await expect(reorder).toContainText(
      "The scripts run before hashmap (priority 7 over 1): hashmap then adds the price of its rules to what the scripts set.",
    );
    await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
    await reorder.getByRole("button", { name: "Set priority" }).click();
    await expectToast(page, "Priority of pyscripts set to 7");
    expect((await rest.module(request, "pyscripts")).priority).toBe(7);
    await expect(priority).toHaveValue("7");
    // Focus lands on what now shows the new priority.
    await expect(priority).toBeFocused();

    await toast(page, "Priority of pyscripts set to 7")
      .getByRole("button", { name: "Undo" })
      .click();
    await expectToast(page, "Undone: priority of pyscripts back to 0");
    await expect(priority).toHaveValue("0");
    expect((await rest.module(request, "pyscripts")).priority).toBe(0);
    await expectNoAxeViolations(page);
    await saveScreen(page, "modules");
  });

  test("a priority typed and not set is not lost by leaving the page without a word", async ({
    page,
  }) => {
    await page.goto("/modules");
    await page.getByRole("textbox", { name: "Priority of hashmap" }).fill("42");
    await page.getByRole("link", { name: "Services", exact: true }).click();
    const guard = page.getByRole("alertdialog", { name: "Leave without saving?" });
    await expect(guard).toContainText("The priority typed for hashmap has not been set.");
    await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
    await guard.getByRole("button", { name: "Stay on this page" }).click();
    await expect(page).toHaveURL(/\/modules$/);
    await expect(page.getByRole("textbox", { name: "Priority of hashmap" })).toHaveValue("42");

    await page.getByRole("link", { name: "Services", exact: true }).click();
    await page
      .getByRole("alertdialog", { name: "Leave without saving?" })
      .getByRole("button", { name: "Leave without saving" })
      .click();
    await expect(page).toHaveURL(/\/hashmap\/services$/);
  });

  test("the preview shows a disabled hashmap charging 0 beside its rules' price, and running scripts", async ({
    page,
    request,
  }) => {
    const service = await rest.createService(request, uniqueName("modules-preview"));
    await rest.createMapping(request, {
      service_id: service.service_id,
      type: "flat",
      cost: "0.18",
    });
    await setModule(request, "hashmap", { enabled: true });
    await setModule(request, "pyscripts", { enabled: false });
    await page.goto(`/preview?service=${service.name}&quantity=1`);
    await expect(page.getByRole("status", { name: "Total price" })).toHaveText("0.18");
    await expect(page.getByRole("status", { name: "Price charged by CloudKitty" })).toHaveCount(0);

    await setModule(request, "hashmap", { enabled: false });
    expect(await rest.quote(request, [{ service: service.name, desc: {}, volume: "1" }])).toBe("0");
    await page.reload();
    await expect(page.getByRole("status", { name: "Price charged by CloudKitty" })).toHaveText("0");
    await expect(page.getByRole("status", { name: "Total price" })).toHaveText("0.18");
    await expect(
      page.getByRole("note").filter({ hasText: "hashmap module is disabled" }),
    ).toContainText("CloudKitty charges 0 for this usage");
    await expectNoAxeViolations(page);

    await setModule(request, "hashmap", { enabled: true });
    await setModule(request, "pyscripts", { enabled: true });
    const script = await request.post("/v1/rating/module_config/pyscripts/scripts", {
      data: { name: uniqueName("modules-preview"), data: "# changes nothing\n" },
    });
    expect(script.ok(), await script.text()).toBe(true);
    await page.reload();
    await expect(page.getByRole("status", { name: "Total price" })).toHaveText("0.18");
    const scriptsNote = page.getByRole("note").filter({ hasText: "pyscripts module is enabled" });
    await expect(scriptsNote).toContainText("The price shown excludes the scripts.");
    await expect(page.getByRole("status", { name: "Price charged by CloudKitty" })).toHaveCount(0);
    const { script_id } = (await script.json()) as { script_id: string };
    await request.delete(`/v1/rating/module_config/pyscripts/scripts/${script_id}`);
  });
});
