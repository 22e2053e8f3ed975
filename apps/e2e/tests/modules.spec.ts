import { expect, test } from "@playwright/test";
import { rest } from "./support/api.js";
import { saveScreen } from "./support/screens.js";
import { expectToast } from "./support/toasts.js";

test("rating modules are enabled, disabled and prioritised", async ({ page, request }) => {
  const before = await rest.module(request, "hashmap");
  await page.goto("/modules");
  const hashmapSwitch = page.getByRole("switch", { name: "hashmap enabled" });
  await expect(hashmapSwitch).toHaveAttribute("aria-checked", String(before.enabled));

  await hashmapSwitch.click();
  await expectToast(page, `hashmap ${before.enabled ? "disabled" : "enabled"}`);
  await expect(hashmapSwitch).toHaveAttribute("aria-checked", String(!before.enabled));
  expect((await rest.module(request, "hashmap")).enabled).toBe(!before.enabled);

  await hashmapSwitch.click();
  await expect(hashmapSwitch).toHaveAttribute("aria-checked", String(before.enabled));
  expect((await rest.module(request, "hashmap")).enabled).toBe(before.enabled);

  const priority = page.getByRole("textbox", { name: "Priority of pyscripts" });
  await priority.fill("x");
  await page.getByRole("button", { name: "Set priority of pyscripts" }).click();
  await expect(page.getByText("Enter a whole number, for example 1.")).toBeVisible();
  await priority.fill("7");
  await page.getByRole("button", { name: "Set priority of pyscripts" }).click();
  await expectToast(page, "Priority of pyscripts set to 7");
  expect((await rest.module(request, "pyscripts")).priority).toBe(7);
  await saveScreen(page, "modules");
});
