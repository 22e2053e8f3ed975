import { expect, test } from "@playwright/test";
import { rest, seedMappings, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

const RATES = 40;

test("a warning about many rules names the first five and opens the rest in the filtered explorer", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("instance"));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  const group = await rest.createGroup(request, uniqueName("licences"));
  // Rate rules and no flat price in the group: the group prices 0, and the warning names them all.
  await seedMappings(
    request,
    Array.from({ length: RATES }, (_, index) => ({
      field_id: field.field_id,
      value: `m1.size-${String(index).padStart(2, "0")}`,
      type: "rate",
      cost: "1.1",
      group_id: group.group_id,
    })),
  );

  await page.goto(`/hashmap/groups/${group.group_id}`);
  const callout = page.getByRole("status", { name: /pricing warning/ });
  const warning = callout
    .getByRole("listitem")
    .filter({ hasText: `Group “${group.name}” prices 0` })
    .first();
  await expect(warning).toContainText(`${RATES} rules involved; the first 5:`);
  await expect(
    warning.getByRole("list", { name: `Rules involved (${RATES})` }).getByRole("listitem"),
  ).toHaveCount(5);
  await expect(warning).toContainText(`And ${RATES - 5} more.`);
  // A keyboard user passes the warning in a few Tab presses: service, group, 5 rules, "show all",
  // "Acknowledge…".
  expect(await warning.locator("a, button").count()).toBeLessThanOrEqual(9);
  await expectNoAxeViolations(page);

  const showAll = warning.getByRole("link", { name: `Show all ${RATES} in the rules explorer` });
  await showAll.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/hashmap\/rules\?/);
  const url = new URL(page.url());
  expect(Object.fromEntries(url.searchParams)).toEqual({
    kind: "mappings",
    field_id: field.field_id,
    group_id: group.group_id,
    no_tenant: "1",
    type: "rate",
  });
  await expect(page.locator(".result-count")).toHaveText(new RegExp(`^${RATES} rules`));
  await expectNoAxeViolations(page);
});
