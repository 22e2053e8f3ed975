import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { expectNoAxeViolations } from "./support/axe.js";
import { HASHMAP, rest, uniqueName } from "./support/api.js";
import { saveScreen } from "./support/screens.js";

// The preview's "Price as of" (issue 10, point 3): a past moment is priced with the rules as they
// stood then, rebuilt from the audit trail; a later one with the rules scheduled for it. The page
// runs in a time zone other than UTC, so the picker's local time must reach the server as the right
// UTC moment.

const TIME_ZONE = "Pacific/Auckland";
test.use({ timezoneId: TIME_ZONE });

const previewTotal = (page: Page) => page.getByRole("status", { name: "Total price" });
const priceAsOf = (page: Page) => page.getByLabel("Price as of");

/** A moment as the `datetime-local` input shows it in TIME_ZONE, to the second. */
function localInput(ms: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone: TIME_ZONE,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * The input's value as the browser reports it: a `datetime-local` value is normalized to its
 * shortest form, so a moment on a whole minute reads without its ":00" seconds.
 */
function localInputValue(ms: number): string {
  return localInput(ms).replace(/:00$/, "");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A whole second strictly after now, once it has passed: the picker's precision. */
async function nextWholeSecond(): Promise<number> {
  const second = Math.ceil((Date.now() + 1) / 1000) * 1000;
  await sleep(second - Date.now() + 150);
  return second;
}

async function changeCost(request: APIRequestContext, mappingId: string, cost: string) {
  const answer = await request.put(`${HASHMAP}/mappings/${mappingId}`, { data: { cost } });
  expect(answer.status(), await answer.text()).toBe(200);
}

test("a past moment is priced with the rules as they stood then, and Now returns to today's", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("as-of"));
  const mapping = await rest.createMapping(request, {
    service_id: service.service_id,
    type: "flat",
    cost: "2",
  });
  const whenTwo = await nextWholeSecond();
  await sleep(1000);
  await changeCost(request, mapping.mapping_id, "5");

  await page.goto(`/preview?service=${service.name}&quantity=3`);
  await expect(previewTotal(page)).toHaveText("15");
  await expect(priceAsOf(page)).toHaveValue("");
  await expect(page.getByRole("note", { name: "Moment priced" })).toHaveCount(0);

  await priceAsOf(page).fill(localInput(whenTwo));
  await expect(previewTotal(page)).toHaveText("6");
  const note = page.getByRole("note", { name: "Moment priced" });
  await expect(note).toContainText(
    "with the rules as they stood then, rebuilt from the change history",
  );
  // The moment travels in the address as UTC, so a shared link means the same moment anywhere.
  await expect(page).toHaveURL(
    new RegExp(`[?&]at=${encodeURIComponent(new Date(whenTwo).toISOString())}`),
  );
  await expectNoAxeViolations(page);
  await saveScreen(page, "preview-at-moment");

  // The same moment through the REST quote.
  const quote = await request.post("/v1/rating/quote", {
    data: {
      resources: [{ service: service.name, desc: {}, volume: "3" }],
      at: new Date(whenTwo).toISOString(),
    },
  });
  expect(await quote.text()).toBe("6");

  // Reloading the shared address keeps the moment.
  await page.reload();
  await expect(priceAsOf(page)).toHaveValue(localInputValue(whenTwo));
  await expect(previewTotal(page)).toHaveText("6");

  await page.getByRole("button", { name: "Now" }).click();
  await expect(previewTotal(page)).toHaveText("15");
  await expect(note).toHaveCount(0);

  // Before the change history began, nothing can be rebuilt: the page says so.
  await priceAsOf(page).fill("2001-01-01T12:00:00");
  await expect(page.getByText(/the audit trail begins at/)).toBeVisible();
});

test("rules scheduled to start later are listed as not in force now, and count at a later moment", async ({
  page,
  request,
}) => {
  const service = await rest.createService(request, uniqueName("scheduled"));
  await rest.createMapping(request, { service_id: service.service_id, type: "flat", cost: "1" });
  const group = await rest.createGroup(request, uniqueName("later"));
  const start = Date.now() + 2 * 86_400_000;
  const answer = await request.post(`${HASHMAP}/mappings`, {
    data: {
      service_id: service.service_id,
      group_id: group.group_id,
      type: "flat",
      cost: "4",
      start: new Date(start).toISOString().slice(0, 19),
    },
  });
  const scheduled = (await answer.json()) as Record<string, unknown>;
  test.skip(
    answer.status() !== 201 || !("start" in scheduled),
    "rules have no start date on this server (the lifecycle columns are not there)",
  );

  await page.goto(`/preview?service=${service.name}&quantity=2`);
  await expect(previewTotal(page)).toHaveText("2");
  const excluded = page.getByRole("region", { name: /Not in force at this moment/ });
  await expect(excluded).toContainText("(1)");
  await expect(excluded).toContainText("starts");

  await priceAsOf(page).fill(localInput(start + 86_400_000));
  await expect(previewTotal(page)).toHaveText("10");
  await expect(page.getByRole("note", { name: "Moment priced" })).toContainText(
    "with today's rules in force at that moment",
  );
  await expect(excluded).toHaveCount(0);
  await expectNoAxeViolations(page);
});
