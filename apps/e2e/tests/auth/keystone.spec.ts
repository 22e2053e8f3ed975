import { expect, test, type Page } from "@playwright/test";
import { expectNoAxeViolations } from "../support/axe.js";
import { signInThroughPage } from "./accounts.js";

// AUTH_STRATEGY=keystone (the "keystone-auth" project's server) against a real Keystone seeded with
// ../shared/reference/openstack/keystone-seed.sh: rating-admin (admin in project admin) and
// demo-reader (reader in project demo), both with the password "secret".

const sessionUser = (page: Page) => page.getByRole("group", { name: "Signed-in user" });

test("Keystone users sign in with project and domain; the console shows their project and role", async ({
  page,
}) => {
  await page.goto("/hashmap/services");
  await expect(page).toHaveTitle("Sign in · Ratecard");
  await expect(page.getByLabel("Username")).toBeFocused();
  await expect(page.getByLabel("Domain")).toHaveValue("Default");
  // Keystone's sign-in form (project and domain besides the local one's fields) passes axe too.
  await expectNoAxeViolations(page);

  await signInThroughPage(page, { username: "rating-admin", password: "wrong", project: "admin" });
  await expect(page.getByRole("alert")).toHaveText("The username or password is incorrect.");
  await expectNoAxeViolations(page);

  await signInThroughPage(page, { username: "rating-admin", password: "secret", project: "admin" });
  await expect(page.getByRole("heading", { name: "Services", level: 1 })).toBeVisible();
  await expect(sessionUser(page)).toContainText("rating-admin");
  await expect(sessionUser(page)).toContainText("admin");
  await expect(page.getByRole("button", { name: "Create service", exact: true })).toBeVisible();
  // Keystone manages its users: no local account pages.
  await expect(page.getByRole("link", { name: "My API tokens" })).toHaveCount(0);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("You have signed out.")).toBeVisible();

  await signInThroughPage(page, {
    username: "demo-reader",
    password: "secret",
    project: "demo",
    domain: "Default",
  });
  await expect(sessionUser(page)).toContainText("demo-reader");
  await expect(sessionUser(page)).toContainText("demo");
  await expect(page.getByRole("heading", { name: "Services", level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: "Create service", exact: true })).toHaveCount(0);
});
