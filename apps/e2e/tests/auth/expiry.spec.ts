import { expect, test } from "@playwright/test";
import type { TGroup } from "@ratecard/validators";
import { uniqueName } from "../support/api.js";
import { expectToast } from "../support/toasts.js";
import {
  ADMIN_PASSWORD,
  apiSession,
  SHORT_SESSION_SECONDS,
  signInThroughPage,
} from "./accounts.js";

// AUTH_STRATEGY=local with SESSION_TTL_SECONDS=SHORT_SESSION_SECONDS (the "local-auth-expiry"
// project's server): the session expires while a create dialog is open.

test("a session that expires while a dialog is open: signing in again creates what was typed", async ({
  page,
  baseURL,
}) => {
  const groupName = uniqueName("expired");
  await page.goto("/hashmap/groups");
  await signInThroughPage(page, { username: "admin", password: ADMIN_PASSWORD });
  await page.getByRole("button", { name: "Create group", exact: true }).click();
  const createDialog = page.getByRole("dialog", { name: "Create a group" });
  await createDialog.getByLabel("Group name").fill(groupName);

  await page.waitForTimeout((SHORT_SESSION_SECONDS + 1) * 1000);
  await createDialog.getByRole("button", { name: "Create group" }).click();

  const sessionDialog = page.getByRole("dialog", { name: "Your session has ended" });
  await expect(sessionDialog).toBeVisible();
  await expect(page.locator('input[name="name"]')).toHaveValue(groupName);
  await sessionDialog.getByLabel("Password").fill(ADMIN_PASSWORD);
  await sessionDialog.getByRole("button", { name: "Sign in and continue" }).click();

  await expectToast(page, `Group “${groupName}” created`);
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(page.getByRole("link", { name: groupName })).toBeVisible();

  const admin = await apiSession(baseURL!, { username: "admin", password: ADMIN_PASSWORD });
  const { groups } = await admin.query<{ groups: TGroup[] }>("hashmap.groups.list");
  expect(groups.map((group) => group.name)).toContain(groupName);
  await admin.dispose();
});
