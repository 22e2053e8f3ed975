import { expect, test, type Locator, type Page } from "@playwright/test";
import { HASHMAP, rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

// A short window, so that the service page scrolls and a kept scroll position means something.
test.use({ viewport: { width: 1280, height: 560 } });

/**
 * A service whose tenant rule replaces its global one (a warning naming both rules), and enough
 * fields for the page to scroll below the warning.
 */
async function seedOverride(page: Page) {
  const request = page.request;
  const service = await rest.createService(request, uniqueName("volume"));
  for (let index = 0; index < 12; index += 1)
    await rest.createField(request, service.service_id, `attribute_${index}`);
  await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "1",
  });
  const override = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "2",
    tenant_id: "acme",
  });
  return { service, override };
}

/** Where the page and every scrolled box around `element` are scrolled to. */
function scrollPositions(element: Locator) {
  return element.evaluate((node) => {
    const positions = [window.scrollY];
    for (let box = node.parentElement; box; box = box.parentElement) positions.push(box.scrollTop);
    return positions;
  });
}

function overrideWarning(page: Page) {
  return page
    .getByRole("status", { name: /pricing warning/ })
    .getByRole("listitem")
    .filter({ hasText: "Tenant acme's rule replaces a global rule" })
    .first();
}

/** Scrolls so that `element` sits at the top of its scroll box: the page is scrolled, not at 0. */
async function scrollToTop(element: Locator) {
  await element.evaluate((node) => node.scrollIntoView({ block: "start" }));
  const positions = await scrollPositions(element);
  expect(positions.some((position) => position > 0)).toBe(true);
  return positions;
}

test("a rule named by a warning is edited in a panel over the service page, which stays where it was", async ({
  page,
}) => {
  const { service, override } = await seedOverride(page);
  await page.goto(`/hashmap/services/${service.service_id}`);
  const warning = overrideWarning(page);
  const involved = warning.getByRole("list", { name: /Rules involved/ });
  await expect(involved).toContainText("for tenant acme (cost 2)");
  // The rule's own page is still a plain link (a new tab, a deep link).
  await expect(
    involved.getByRole("link", { name: /the flat service mapping on .* for tenant acme/ }),
  ).toHaveAttribute("href", `/hashmap/mappings/${override.mapping_id}`);

  const edit = involved.getByRole("button", { name: /^Edit mapping .* for tenant acme here$/ });
  const url = page.url();
  const scrolled = await scrollToTop(edit);
  await edit.click();

  const panel = page.getByRole("dialog");
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel("Cost")).toHaveValue("2");
  await expectNoAxeViolations(page, { include: ".side-panel" });
  await panel.getByLabel("Cost").fill("3.5");
  await panel.getByRole("button", { name: "Save changes" }).click();

  await expect(panel).toBeHidden();
  await expect(involved).toContainText("for tenant acme (cost 3.5)");
  expect(page.url()).toBe(url);
  await expect(edit).toBeFocused();
  expect(await scrollPositions(edit)).toEqual(scrolled);
  const saved = await rest.get<{ cost: string }>(
    page.request,
    `${HASHMAP}/mappings/${override.mapping_id}`,
  );
  expect(Number(saved.cost)).toBe(3.5);

  // Cancel closes the panel the same way, without a change.
  await edit.click();
  await expect(panel).toBeVisible();
  await panel.getByRole("button", { name: "Cancel" }).click();
  await expect(panel).toBeHidden();
  await expect(edit).toBeFocused();
  expect(page.url()).toBe(url);
  expect(await scrollPositions(edit)).toEqual(scrolled);
});

test("keyboard only: the warning's Edit opens the panel, Enter saves, focus comes back to Edit", async ({
  page,
}) => {
  const { service, override } = await seedOverride(page);
  await page.goto(`/hashmap/services/${service.service_id}`);
  const involved = overrideWarning(page).getByRole("list", { name: /Rules involved/ });
  const ruleLink = involved.getByRole("link", {
    name: /the flat service mapping on .* for tenant acme/,
  });
  const edit = involved.getByRole("button", { name: /^Edit mapping .* for tenant acme here$/ });
  await expect(edit).toBeVisible();
  const url = page.url();

  // From the rule's link, the next stop is its Edit button.
  await ruleLink.focus();
  await page.keyboard.press("Tab");
  await expect(edit).toBeFocused();
  const scrolled = await scrollToTop(edit);
  await page.keyboard.press("Enter");

  const panel = page.getByRole("dialog");
  await expect(panel).toBeVisible();
  const cost = panel.getByLabel("Cost");
  // Tab through the form to the cost, as an operator would.
  for (
    let presses = 0;
    presses < 12 && !(await cost.evaluate((node) => node === document.activeElement));
    presses += 1
  )
    await page.keyboard.press("Tab");
  await expect(cost).toBeFocused();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type("4");
  await page.keyboard.press("Enter");

  await expect(panel).toBeHidden();
  await expect(involved).toContainText("for tenant acme (cost 4)");
  await expect(edit).toBeFocused();
  expect(page.url()).toBe(url);
  expect(await scrollPositions(edit)).toEqual(scrolled);
  const saved = await rest.get<{ cost: string }>(
    page.request,
    `${HASHMAP}/mappings/${override.mapping_id}`,
  );
  expect(Number(saved.cost)).toBe(4);

  // Escape closes the panel and returns to Edit too.
  await page.keyboard.press("Enter");
  await expect(panel).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
  await expect(edit).toBeFocused();
  expect(page.url()).toBe(url);
});

test("a fix made from the warning removes it, and focus goes to the page's heading instead of the page's body", async ({
  page,
}) => {
  const request = page.request;
  const service = await rest.createService(request, uniqueName("compute"));
  const group = await rest.createGroup(request, uniqueName("licences"));
  // A rate and no flat price in the group: it prices 0.
  const rate = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "rate",
    cost: "1.2",
    group_id: group.group_id,
  });
  await page.goto(`/hashmap/services/${service.service_id}`);
  const url = page.url();
  const warnings = page.getByRole("status", { name: /pricing warning/ });
  await expect(warnings).toContainText(`Group “${group.name}” prices 0`);

  await warnings.getByRole("button", { name: /^Edit mapping the rate service mapping/ }).click();
  const panel = page.getByRole("dialog");
  await panel.getByRole("radio", { name: /^Flat/ }).click();
  await panel.getByRole("button", { name: "Save changes" }).click();
  await expect(panel).toBeHidden();

  await expect(warnings).toBeHidden();
  await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
  expect(page.url()).toBe(url);
  const saved = await rest.get<{ type: string }>(request, `${HASHMAP}/mappings/${rate.mapping_id}`);
  expect(saved.type).toBe("flat");
});

test("a mapping the preview matched is edited over the preview, which prices again", async ({
  page,
}) => {
  const request = page.request;
  const service = await rest.createService(request, uniqueName("volume"));
  const mapping = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "2",
  });
  await page.goto(`/preview?service=${service.name}&quantity=3`);
  const total = page.getByRole("status", { name: "Total price" });
  await expect(total).toHaveText("6");
  const url = page.url();
  const matched = page.getByRole("list", { name: "Matching mappings of the default group" });
  await expect(
    matched.getByRole("link", { name: `the flat service mapping on ${service.name}` }),
  ).toHaveAttribute("href", `/hashmap/mappings/${mapping.mapping_id}`);
  const edit = matched.getByRole("button", {
    name: `Edit mapping the flat service mapping on ${service.name} here`,
  });
  await edit.click();

  const panel = page.getByRole("dialog");
  await panel.getByLabel("Cost").fill("5");
  await panel.getByRole("button", { name: "Save changes" }).click();
  await expect(panel).toBeHidden();
  await expect(total).toHaveText("15");
  await expect(edit).toBeFocused();
  expect(page.url()).toBe(url);
});

test("the group and field pages' warnings open their rules in place too", async ({ page }) => {
  const request = page.request;
  const service = await rest.createService(request, uniqueName("compute"));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  const group = await rest.createGroup(request, uniqueName("licences"));
  await rest.createMapping(request, {
    field_id: field.field_id,
    value: "m1.small",
    type: "rate",
    cost: "1.2",
    group_id: group.group_id,
  });
  for (const path of [`/hashmap/groups/${group.group_id}`, `/hashmap/fields/${field.field_id}`]) {
    await page.goto(path);
    const url = page.url();
    const edit = page
      .getByRole("status", { name: /pricing warning/ })
      .getByRole("button", { name: /^Edit mapping the rate mapping for “m1\.small”/ });
    await edit.click();
    const panel = page.getByRole("dialog");
    await expect(panel.getByLabel("Cost")).toHaveValue("1.2");
    await panel.getByRole("button", { name: "Cancel" }).click();
    await expect(panel).toBeHidden();
    await expect(edit).toBeFocused();
    expect(page.url()).toBe(url);
  }
});
