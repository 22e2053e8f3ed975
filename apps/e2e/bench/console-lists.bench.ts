import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { rest, seedMappings, uniqueName } from "../tests/support/api.js";

// For 2,000 and 10,000 rules, on each page that lists rules (a field's mappings, a service's
// thresholds, a group's mappings, the rules explorer): the time from navigation to the first row,
// the longest main-thread block while the page loads (PerformanceObserver "longtask"), and the
// time a sort by cost takes to show, with the longest block during it, and the bytes of API answers
// (/trpc/) the page received until it settled. Figures are printed.
// RATECARD_BENCH_SIZES=2000 measures one size; RATECARD_BENCH_COLD=1 measures first visits.

const SIZES = (process.env.RATECARD_BENCH_SIZES ?? "2000,10000").split(",").map(Number);

async function seedThresholds(request: APIRequestContext, thresholds: Record<string, unknown>[]) {
  for (let start = 0; start < thresholds.length; start += 250) {
    const batch = thresholds.slice(start, start + 250);
    const procedures = batch.map(() => "hashmap.thresholds.create").join(",");
    const response = await request.post(`/trpc/${procedures}?batch=1`, {
      data: Object.fromEntries(batch.map((threshold, index) => [index, threshold])),
    });
    expect(response.ok(), await response.text()).toBe(true);
  }
}

/** N mappings on one field, all in one group, and N thresholds on the service itself. */
async function seed(request: APIRequestContext, size: number) {
  const service = await rest.createService(request, uniqueName(`bench-${size}`));
  const field = await rest.createField(request, service.service_id, "flavor_id");
  const group = await rest.createGroup(request, uniqueName(`bench-${size}`));
  await seedMappings(
    request,
    Array.from({ length: size }, (_, index) => ({
      field_id: field.field_id,
      value: `flavor-${String(index).padStart(5, "0")}`,
      cost: `${(index * 7919) % 1000}.${String(index % 97).padStart(2, "0")}`,
      group_id: group.group_id,
    })),
  );
  await seedThresholds(
    request,
    Array.from({ length: size }, (_, index) => ({
      service_id: service.service_id,
      level: String(index + 1),
      cost: `0.${String((index * 104729) % 100000).padStart(5, "0")}`,
      type: "rate",
    })),
  );
  return { service, field, group };
}

// Installed before any page script: records long tasks and when the first rule row appears.
function instrument() {
  const marks = { firstRow: 0, longTasks: [] as { start: number; duration: number }[] };
  (window as unknown as { __bench: typeof marks }).__bench = marks;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      marks.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: "longtask", buffered: true });
  const seen = () => {
    if (!marks.firstRow && document.querySelector("table tbody tr[data-row-id]"))
      marks.firstRow = performance.now();
    return marks.firstRow > 0;
  };
  const observer = new MutationObserver(() => {
    if (seen()) observer.disconnect();
  });
  document.addEventListener("DOMContentLoaded", () =>
    observer.observe(document.body, { childList: true, subtree: true }),
  );
}

interface Figures {
  firstRowMs: number;
  longestLoadBlockMs: number;
  sortMs: number;
  longestSortBlockMs: number;
  /** Decoded bytes of the /trpc/ answers received from navigation until the page settled. */
  apiBytes: number;
}

async function measure(page: Page, url: string, costHeader: string): Promise<Figures> {
  // Counted in the page (Resource Timing), so answers served from the browser's cache or as a
  // 304 count with the size of the body the page got.
  await page.goto(url);
  await page.locator("table tbody tr[data-row-id]").first().waitFor({ timeout: 120_000 });
  // Let the page settle (late queries, long tasks reported after the first row).
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  const load = await page.evaluate(() => {
    const marks = (
      window as unknown as {
        __bench: { firstRow: number; longTasks: { start: number; duration: number }[] };
      }
    ).__bench;
    const api = performance
      .getEntriesByType("resource")
      .filter((entry) => entry.name.includes("/trpc/")) as PerformanceResourceTiming[];
    return {
      firstRowMs: marks.firstRow,
      longestLoadBlockMs: Math.max(0, ...marks.longTasks.map((task) => task.duration)),
      apiBytes: api.reduce((sum, entry) => sum + entry.decodedBodySize, 0),
    };
  });
  const sort = await page.evaluate(async (header) => {
    const marks = (
      window as unknown as { __bench: { longTasks: { start: number; duration: number }[] } }
    ).__bench;
    const button = [...document.querySelectorAll<HTMLButtonElement>("th .sort-button")].find(
      (candidate) => candidate.textContent?.includes(header),
    )!;
    const th = button.closest("th")!;
    const start = performance.now();
    button.click();
    // Sorted once the header says so, the rows are no longer being fetched (a list windowed by
    // the server marks its table aria-busy meanwhile) and the browser has painted them.
    const table = th.closest("table")!;
    while (
      th.getAttribute("aria-sort") !== "ascending" ||
      table.getAttribute("aria-busy") === "true"
    )
      await new Promise((resolve) => requestAnimationFrame(resolve));
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
    const end = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const during = marks.longTasks.filter((task) => task.start + task.duration >= start);
    return {
      sortMs: end - start,
      longestSortBlockMs: Math.max(0, ...during.map((task) => task.duration)),
    };
  }, costHeader);
  return { ...load, ...sort };
}

test("console lists at 2,000 and 10,000 rules", async ({ page, request }) => {
  await page.addInitScript(instrument);
  const rows: string[] = [];
  for (const size of SIZES) {
    const seeding = Date.now();
    const { service, field, group } = await seed(request, size);
    console.log(`seeded ${size} mappings and ${size} thresholds in ${Date.now() - seeding} ms`);
    const pages: [string, string][] = [
      [`field page (${size} mappings)`, `/hashmap/fields/${field.field_id}`],
      [
        `service page (${size} thresholds)`,
        `/hashmap/services/${service.service_id}?tab=thresholds`,
      ],
      [`group page (${size} mappings)`, `/hashmap/groups/${group.group_id}`],
      [`rules explorer (${size} rules)`, `/hashmap/rules?field_id=${field.field_id}`],
    ];
    for (const [name, url] of pages) {
      // The first visit of each page fills the server's answer cache (an ETag per data version,
      // as a second operator would find it); the figures are from the second.
      if (process.env.RATECARD_BENCH_COLD !== "1") await measure(page, url, "Cost");
      const figures = await measure(page, url, "Cost");
      rows.push(
        [
          name.padEnd(34),
          `${figures.firstRowMs.toFixed(0)} ms`.padStart(10),
          `${figures.longestLoadBlockMs.toFixed(0)} ms`.padStart(10),
          `${figures.sortMs.toFixed(0)} ms`.padStart(10),
          `${figures.longestSortBlockMs.toFixed(0)} ms`.padStart(10),
          `${(figures.apiBytes / 1024).toFixed(0)} KiB`.padStart(10),
        ].join(" "),
      );
    }
  }
  console.log(
    [
      "",
      `${"list".padEnd(34)} ${"first row".padStart(10)} ${"longest".padStart(10)} ${"sort".padStart(10)} ${"longest".padStart(10)} ${"API".padStart(10)}`,
      `${"".padEnd(34)} ${"".padStart(10)} ${"block".padStart(10)} ${"".padStart(10)} ${"in sort".padStart(10)} ${"answers".padStart(10)}`,
      ...rows,
    ].join("\n"),
  );
});
