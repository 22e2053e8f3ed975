import { expect, test, type Page } from "@playwright/test";
import type { TField, TMapping, TService } from "@ratecard/validators";
import { HASHMAP, uniqueName } from "../support/api.js";
import { expectNoAxeViolations } from "../support/axe.js";
import { expectToast } from "../support/toasts.js";
import {
  ADMIN_PASSWORD,
  apiSession,
  endSessionBehindThePage,
  signInThroughPage,
  type Credentials,
} from "./accounts.js";

// AUTH_STRATEGY=local (the "local-auth" project's server): the first admin comes from
// RATECARD_ADMIN_PASSWORD; every other account is created in the console or over its RPC.

const ADMIN: Credentials = { username: "admin", password: ADMIN_PASSWORD };
const READER_PASSWORD = "reader-password-42";

const sessionUser = (page: Page) => page.getByRole("group", { name: "Signed-in user" });
const navLink = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Main" }).getByRole("link", { name });

async function signedInAsAdmin(page: Page) {
  await page.goto("/hashmap/services");
  await signInThroughPage(page, ADMIN);
  await expect(sessionUser(page)).toContainText("admin");
}

/**
 * A reader, and a service with a field and a field mapping for them to look at; the service also
 * has a global price and a tenant's price that replaces it (a pricing warning naming both rules).
 */
async function seedReaderAndRules(baseURL: string) {
  const admin = await apiSession(baseURL, ADMIN);
  const reader = uniqueName("reader");
  await admin.mutation("accounts.users.create", {
    name: reader,
    role: "reader",
    password: READER_PASSWORD,
  });
  const service = await admin.mutation<TService>("hashmap.services.create", {
    name: uniqueName("instance"),
  });
  const field = await admin.mutation<TField>("hashmap.fields.create", {
    service_id: service.service_id,
    name: "flavor_id",
  });
  const mapping = await admin.mutation<TMapping>("hashmap.mappings.create", {
    field_id: field.field_id,
    value: "m1.small",
    type: "flat",
    cost: "0.5",
  });
  for (const tenant_id of [undefined, "acme"])
    await admin.mutation<TMapping>("hashmap.mappings.create", {
      service_id: service.service_id,
      type: "flat",
      cost: tenant_id ? "2" : "1",
      ...(tenant_id ? { tenant_id } : {}),
    });
  await admin.dispose();
  return { reader, service, field, mapping };
}

test("sign-in page: a wrong password is refused in words, the right one opens the console", async ({
  page,
}) => {
  await page.goto("/hashmap/groups?q=x");
  await expect(page).toHaveTitle("Sign in · Ratecard");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect(page.getByLabel("Username")).toBeFocused();
  await expect(page.getByLabel("Project")).toHaveCount(0);
  await expectNoAxeViolations(page);

  await signInThroughPage(page, { username: "admin", password: "not-the-password" });
  await expect(page.getByRole("alert")).toHaveText("The username or password is incorrect.");
  await expect(page.getByLabel("Password")).toHaveValue("");
  await expect(page.getByLabel("Password")).toBeFocused();
  await expectNoAxeViolations(page);

  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The address asked for opens, with its query string.
  await expect(page.getByRole("heading", { name: "Groups", level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/hashmap\/groups\?q=x$/);
  await expect(page).toHaveTitle("Groups · Ratecard");
  await expect(sessionUser(page)).toContainText("admin");
  await expect(navLink(page, "Users and tokens")).toBeVisible();

  // The session survives a reload.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Groups", level: 1 })).toBeVisible();
});

test("an admin creates a reader and an API token that works with the REST API until revoked", async ({
  page,
  baseURL,
}) => {
  const reader = uniqueName("reader");
  const tokenName = uniqueName("e2e-cli");
  await signedInAsAdmin(page);

  await navLink(page, "Users and tokens").click();
  await expect(page.getByRole("heading", { name: "Users and API tokens" })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole("button", { name: "Create user" }).click();
  const dialog = page.getByRole("dialog", { name: "Create a user" });
  await expect(dialog).toBeVisible();
  await expectNoAxeViolations(page, { include: '[role="dialog"]' });
  await dialog.getByLabel("User name").fill(reader);
  await dialog.getByLabel("Role").selectOption("reader");
  await dialog.getByLabel("Password").fill("short");
  await dialog.getByRole("button", { name: "Create user" }).click();
  // The server's password policy, in its words, on the field.
  await expect(dialog.getByText("A password must be at least 12 characters long.")).toBeVisible();
  await dialog.getByLabel("Password").fill(READER_PASSWORD);
  await dialog.getByRole("button", { name: "Create user" }).click();
  await expectToast(page, `User “${reader}” created as reader`);
  const users = page.getByRole("table", { name: "Users" });
  await expect(users.getByRole("row", { name: new RegExp(reader) })).toBeVisible();
  await expect(page.getByLabel(`Role of ${reader}`)).toHaveValue("reader");

  await navLink(page, "My API tokens").click();
  await page.getByLabel("Token name").fill(tokenName);
  await page.getByLabel("Expires in (days)").fill("7");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Copy the token now.")).toBeVisible();
  const secret = (await page.getByTestId("new-token-secret").textContent()) ?? "";
  expect(secret.length).toBeGreaterThan(20);
  await expect(
    page.getByText(
      `cloudkitty --os-auth-type admin_token --os-endpoint ${baseURL} --os-token ${secret}`,
    ),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
  await expectNoAxeViolations(page);

  // What the CLI sends: the token as X-Auth-Token.
  const withToken = { headers: { "X-Auth-Token": secret } };
  expect((await page.request.get(`${HASHMAP}/services`, withToken)).status()).toBe(200);

  await page.getByRole("button", { name: "I have copied the token" }).click();
  await expect(page.getByTestId("new-token-secret")).toHaveCount(0);
  const tokens = page.getByRole("table", { name: "My API tokens" });
  await expect(tokens.getByRole("row", { name: new RegExp(tokenName) })).toContainText("Active");
  await tokens.getByRole("button", { name: new RegExp(`Revoke token ${tokenName}`) }).click();
  await expect(page.getByRole("alertdialog")).toBeVisible();
  await expectNoAxeViolations(page, { include: '[role="alertdialog"]' });
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke token" }).click();
  await expectToast(page, "revoked");
  await expect(tokens.getByRole("row", { name: new RegExp(tokenName) })).toContainText("Revoked");
  expect((await page.request.get(`${HASHMAP}/services`, withToken)).status()).toBe(401);
});

test("signing out shows the sign-in page; a reader then sees every list and no write control", async ({
  page,
  baseURL,
}) => {
  const { reader, service, mapping } = await seedReaderAndRules(baseURL!);
  await signedInAsAdmin(page);
  await expect(navLink(page, "Activity")).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect(page.getByText("You have signed out.")).toBeVisible();

  await signInThroughPage(page, { username: reader, password: READER_PASSWORD });
  await expect(sessionUser(page)).toContainText(reader);
  await expect(sessionUser(page)).toContainText("reader");
  await expect(navLink(page, "Users and tokens")).toHaveCount(0);
  await expect(navLink(page, "My API tokens")).toBeVisible();
  // The audit trail is the admins' (ratecard:read_audit): no Activity page, no History tabs.
  await expect(navLink(page, "Activity")).toHaveCount(0);

  await expect(page.getByRole("link", { name: service.name })).toBeVisible();
  await expect(page.getByRole("button", { name: "Create service" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Delete/ })).toHaveCount(0);

  await page.getByRole("link", { name: service.name }).click();
  await expect(page.getByRole("heading", { name: service.name, level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "flavor_id", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: /Delete|Add field/ })).toHaveCount(0);
  await expect(page.getByRole("tab", { name: "History" })).toHaveCount(0);
  // The warning names its rules, but offers a reader no Edit in place and no Acknowledge.
  const warnings = page.getByRole("status", { name: /pricing warning/ });
  await expect(warnings.getByRole("list", { name: /Rules involved/ }).first()).toBeVisible();
  await expect(warnings.getByRole("button", { name: /^Edit .* here$/ })).toHaveCount(0);
  await expect(warnings.getByRole("button", { name: /Acknowledge/ })).toHaveCount(0);

  await page.getByRole("link", { name: "flavor_id", exact: true }).click();
  await expect(page.getByRole("cell", { name: "m1.small", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: /Add field mapping/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Delete/ })).toHaveCount(0);
  await page.getByRole("link", { name: /^View / }).click();

  // The form, reached from the list or by its address, says it is read-only.
  await expect(page).toHaveURL(new RegExp(`/hashmap/mappings/${mapping.mapping_id}$`));
  await expect(page.getByRole("note")).toContainText("Read only.");
  await expect(page.getByLabel("Cost")).toHaveValue("0.5");
  await expect(page.getByLabel("Cost")).toBeDisabled();
  await expect(page.getByRole("button", { name: "Save changes" })).toHaveCount(0);
  await page.goto("/hashmap/mappings/new");
  await expect(page.getByRole("note")).toContainText("Your role cannot create mappings.");
  await expect(page.getByRole("button", { name: "Create mapping" })).toHaveCount(0);

  await navLink(page, "Rules explorer").click();
  await expect(page.getByRole("row", { name: new RegExp(service.name) }).first()).toBeVisible();
  await expect(page.getByRole("link", { name: "New mapping" })).toHaveCount(0);

  await navLink(page, "Rating modules").click();
  await expect(page.getByRole("row", { name: /hashmap/ })).toBeVisible();
  await expect(page.getByRole("switch")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Set priority/ })).toHaveCount(0);

  await page.goto("/admin/accounts");
  await expect(page.getByRole("note")).toContainText("Only administrators manage accounts.");
  await expectNoAxeViolations(page);
});

test("when the session ends mid-edit, signing in again in the dialog saves what was typed", async ({
  page,
  baseURL,
}) => {
  const { mapping } = await seedReaderAndRules(baseURL!);
  await signedInAsAdmin(page);
  await page.goto(`/hashmap/mappings/${mapping.mapping_id}`);
  await expect(page.getByRole("heading", { name: "Edit field mapping" })).toBeVisible();
  await page.getByLabel("Cost").fill("0.42");

  await endSessionBehindThePage(page, baseURL!);
  await page.getByRole("button", { name: "Save changes" }).click();

  const dialog = page.getByRole("dialog", { name: "Your session has ended" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("Sign in again to continue; your unsaved changes are kept.");
  await expect(dialog.getByLabel("Username")).toHaveValue("admin");
  await expect(dialog.getByLabel("Password")).toBeFocused();
  await expectNoAxeViolations(page, { include: '[role="dialog"]' });
  // The page under the dialog still holds the typed value.
  await expect(page.locator('input[name="cost"]')).toHaveValue("0.42");

  await dialog.getByLabel("Password").fill("wrong-password");
  await dialog.getByRole("button", { name: "Sign in and continue" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("The username or password is incorrect.");

  await dialog.getByLabel("Password").fill(ADMIN_PASSWORD);
  await dialog.getByRole("button", { name: "Sign in and continue" }).click();
  await expect(dialog).toHaveCount(0);
  await expectToast(page, "Mapping saved");

  const admin = await apiSession(baseURL!, ADMIN);
  const saved = await admin.query<TMapping>("hashmap.mappings.get", {
    mapping_id: mapping.mapping_id,
  });
  expect(saved.cost).toMatch(/^0\.420*$/);
  await admin.dispose();
});
