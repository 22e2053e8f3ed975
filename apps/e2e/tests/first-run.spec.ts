import { expect, test } from "@playwright/test";
import { rest } from "./support/api.js";

// Runs first, on the fresh database of this run (see the projects in playwright.config.ts).

test("an empty installation invites creating the first service, group, rule and script", async ({
  page,
  request,
}) => {
  expect(await rest.services(request)).toEqual([]);

  await page.goto("/");
  await expect(page).toHaveURL(/\/hashmap\/services$/);
  await expect(page.getByRole("heading", { name: "Services", level: 1 })).toBeVisible();
  await expect(page.getByText("No services yet")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create the first service" })).toBeVisible();

  await page.getByRole("link", { name: "Groups" }).click();
  await expect(page.getByText("No groups yet")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create the first group" })).toBeVisible();

  await page.getByRole("link", { name: "Rules explorer" }).click();
  await expect(page.getByText("No rules yet")).toBeVisible();

  await page.getByRole("link", { name: "Scripts" }).click();
  await expect(page.getByText("No scripts yet")).toBeVisible();
  await expect(page.getByRole("link", { name: "Create the first script" })).toBeVisible();
});

test("when the server does not answer, the page says so and retries on request", async ({
  page,
}) => {
  await page.route("**/trpc/**", (route) => route.abort("connectionrefused"));
  await page.goto("/hashmap/groups");
  const alert = page.getByRole("alert").filter({ hasText: "The server is not answering" });
  await expect(alert).toBeVisible({ timeout: 20_000 });
  await expect(alert).toContainText("Cannot reach the Ratecard server");

  await page.unroute("**/trpc/**");
  await alert.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByText("No groups yet")).toBeVisible();
});

test("an unknown address and a deleted record each get their own message", async ({ page }) => {
  await page.goto("/no/such/page");
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page.goto("/hashmap/services/4b0d3f0e-0000-4000-8000-000000000000");
  await expect(page.getByRole("heading", { name: "Service not found" })).toBeVisible();
});
