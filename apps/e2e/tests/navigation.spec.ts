import { expect, test, type Page } from "@playwright/test";
import { rest, seedServiceWithField, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

// Every page names itself in the title bar, and after each navigation keyboard and screen reader
// users start at the new page's heading (announced), not on <body>.

const heading = (page: Page) => page.getByRole("heading", { level: 1 });
const announcer = (page: Page) => page.locator("[data-route-announcer]");

test("each page has its own title; focus moves to the heading after navigating, not on first load", async ({
  page,
  request,
}) => {
  const { service, field } = await seedServiceWithField(request, "titles");
  await page.goto("/hashmap/services");
  await expect(page).toHaveTitle("Services · Ratecard");
  await expect(heading(page)).not.toBeFocused();
  await expect(announcer(page)).toHaveText("");

  // With the keyboard: from the sidebar to a page, then into a record.
  const modulesLink = page.getByRole("link", { name: "Rating modules" });
  await modulesLink.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveTitle("Rating modules · Ratecard");
  await expect(heading(page)).toHaveText("Rating modules");
  await expect(heading(page)).toBeFocused();
  await expect(announcer(page)).toHaveText("Rating modules · Ratecard");
  // The next Tab goes on from the page's start, not from the sidebar.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.closest("main") !== null)).toBe(true);

  await page.getByRole("link", { name: "Services", exact: true }).click();
  await page.getByRole("link", { name: service.name, exact: true }).click();
  await expect(page).toHaveTitle(`${service.name} · Service · Ratecard`);
  await expect(heading(page)).toHaveText(service.name);
  await expect(heading(page)).toBeFocused();

  await page.getByRole("link", { name: field.name, exact: true }).first().click();
  await expect(page).toHaveTitle(`${field.name} · Field of ${service.name} · Ratecard`);
  await expect(heading(page)).toBeFocused();
  await expect(announcer(page)).toHaveText(`${field.name} · Field of ${service.name} · Ratecard`);

  // Back: the previous page, its heading focused again.
  await page.goBack();
  await expect(page).toHaveTitle(`${service.name} · Service · Ratecard`);
  await expect(heading(page)).toBeFocused();

  for (const [link, title] of [
    ["Groups", "Groups · Ratecard"],
    ["Rules explorer", "Rules explorer · Ratecard"],
    ["Price preview", "Price preview · Hashmap · Ratecard"],
    ["Scripts", "Scripts · Ratecard"],
  ] as const) {
    await page.getByRole("link", { name: link, exact: true }).click();
    await expect(page).toHaveTitle(title);
    await expect(heading(page)).toBeFocused();
  }

  await page.goto("/no/such/page");
  await expect(page).toHaveTitle("Page not found · Ratecard");
  await expectNoAxeViolations(page);
});

test("a name typed in a create dialog is not thrown away without asking", async ({
  page,
  request,
}) => {
  const name = uniqueName("typed");
  await page.goto("/hashmap/groups");
  await page
    .getByRole("button", { name: /Create (the first )?group/ })
    .first()
    .click();
  const dialog = page.getByRole("dialog", { name: "Create a group" });
  const input = dialog.getByRole("textbox", { name: /Group name/ });
  await input.fill(name);
  await expectNoAxeViolations(page, { include: "[role=dialog]" });

  await page.keyboard.press("Escape");
  const discard = page.getByRole("alertdialog", { name: "Discard what you typed?" });
  await expect(discard).toContainText(`“${name}” has not been created yet.`);
  await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
  await discard.getByRole("button", { name: "Keep editing" }).click();
  await expect(discard).toBeHidden();
  await expect(dialog).toBeVisible();
  await expect(input).toHaveValue(name);

  await dialog.getByRole("button", { name: "Cancel" }).click();
  await page
    .getByRole("alertdialog", { name: "Discard what you typed?" })
    .getByRole("button", { name: "Discard" })
    .click();
  await expect(dialog).toBeHidden();
  expect((await rest.groups(request)).map((group) => group.name)).not.toContain(name);

  // Nothing typed: it closes at once.
  await page
    .getByRole("button", { name: /Create (the first )?group/ })
    .first()
    .click();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
});

test("a group whose rules cannot be kept says to delete them too, in the dialog's words", async ({
  page,
  request,
}) => {
  const { field } = await seedServiceWithField(request, "collide");
  const group = await rest.createGroup(request, uniqueName("collide"));
  // The same mapping in the group and in no group: keeping the group's rules would make them twins.
  await rest.createMapping(request, { field_id: field.field_id, value: "7", cost: "1" });
  await rest.createMapping(request, {
    field_id: field.field_id,
    value: "7",
    cost: "1",
    group_id: group.group_id,
  });

  await page.goto(`/hashmap/groups/${group.group_id}`);
  await page.getByRole("button", { name: "Delete group" }).click();
  const dialog = page.getByRole("alertdialog", { name: `Delete group “${group.name}”?` });
  await dialog.getByRole("radio", { name: /Keep the rules/ }).click();
  await dialog.getByRole("button", { name: "Delete group", exact: true }).click();
  const refusal = dialog.getByRole("alert");
  await expect(refusal).toContainText(`The rules of “${group.name}” cannot be kept`);
  await expect(refusal).toContainText("Choose “Delete the rules too”");
  await expect(refusal).not.toContainText("recursive");
  await expect(refusal).not.toContainText(group.group_id);
  await expectNoAxeViolations(page, { include: "[role=alertdialog]" });

  await dialog.getByRole("radio", { name: /Delete the rules too/ }).click();
  await dialog.getByRole("button", { name: "Delete group and rules" }).click();
  await expect(page).toHaveURL(/\/hashmap\/groups$/);
  expect(
    await rest.status(request, `/v1/rating/module_config/hashmap/groups/${group.group_id}`),
  ).toBe(404);
});
