import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { HASHMAP, rest } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { expectToast } from "./support/toasts.js";

// The Targets page (issue 14) against the real CloudKitty 17 of ../shared/reference/cloudkitty
// (noauth, SQLite, Debian's packages; the first start installs them: minutes) and a Ratecard
// server of this journey's own: an import needs an empty Ratecard, and the other journeys share
// theirs. Register the CloudKitty, probe it, seed a rule with the real `cloudkitty` CLI, import it,
// see it in Ratecard, change its price in the console, and read the plan as before → after.

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const serverMain = path.resolve(here, "../../server/dist/main.js");
const referenceDir =
  process.env.CLOUDKITTY_REFERENCE_DIR ??
  path.resolve(here, "../../../../shared/reference/cloudkitty");
const ckPort = Number(process.env.RATECARD_E2E_CK_PORT ?? 8975);
const ckDir = process.env.RATECARD_E2E_CK_DIR ?? path.join(os.tmpdir(), "ratecard-e2e-cloudkitty");
const ckUrl = `http://127.0.0.1:${ckPort}`;
const ckEnv = { ...process.env, CK_DIR: ckDir, CK_PORT: String(ckPort) };
const ckScript = (name: string) => path.join(referenceDir, name);

/** The real CLI in noauth, `-f json`: the first row. */
async function cli(...args: string[]): Promise<Record<string, string>> {
  const { stdout } = await run(
    "cloudkitty",
    ["--os-auth-type", "cloudkitty-noauth", "--os-endpoint", ckUrl, ...args, "-f", "json"],
    { timeout: 60_000 },
  );
  return (JSON.parse(stdout) as Record<string, string>[])[0]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

let server: ChildProcess | null = null;
let baseURL = "";
let databaseFile = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // start.sh installs CloudKitty's packages on a fresh machine: allow for apt.
  test.setTimeout(16 * 60_000);
  await run(ckScript("start.sh"), [], { env: ckEnv, timeout: 15 * 60_000 });
  await run(ckScript("reset.sh"), [], { env: ckEnv, timeout: 60_000 });
  const port = await freePort();
  baseURL = `http://127.0.0.1:${port}`;
  const database = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-targets-")), "t.db");
  databaseFile = database;
  server = spawn(process.execPath, [serverMain], {
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `file:${database}`,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await expect
    .poll(
      async () => {
        try {
          return (await fetch(`${baseURL}/healthz`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(200);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await run(ckScript("stop.sh"), [], { env: ckEnv, timeout: 60_000 });
});

async function openTab(page: Page, name: string) {
  await page.getByRole("tab", { name }).click();
  await expect(page.getByRole("tab", { name })).toHaveAttribute("aria-selected", "true");
}

test("register, probe, import a CloudKitty's rules, change a price and read the plan", async ({
  page,
  playwright,
}) => {
  test.setTimeout(180_000);
  const request: APIRequestContext = await playwright.request.newContext({ baseURL });

  // The navigation offers the page (noauth: the session may manage targets); nothing yet.
  await page.goto(`${baseURL}/hashmap/services`);
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "CloudKitty targets" })
    .click();
  await expect(page.getByRole("heading", { name: "CloudKitty targets", level: 1 })).toBeFocused();
  await expect(page.getByText("No CloudKitty target yet")).toBeVisible();
  await expectNoAxeViolations(page);

  // Register: the form refuses what is missing, then takes the URL.
  await page.getByRole("button", { name: "Register the first target" }).click();
  const dialog = page.getByRole("dialog", { name: "Register a CloudKitty target" });
  await dialog.getByRole("button", { name: "Register target" }).click();
  await expect(dialog.getByText("Enter a name.")).toBeVisible();
  await expect(dialog.getByText("Enter CloudKitty's http:// or https:// URL.")).toBeVisible();
  await expectNoAxeViolations(page, { include: "[role=dialog]" });
  // Keystone's fields, with the secret write-only.
  await dialog.getByLabel("Behind Keystone").check();
  await expect(dialog.getByLabel("Application credential secret")).toHaveAttribute(
    "type",
    "password",
  );
  await expectNoAxeViolations(page, { include: "[role=dialog]" });
  await dialog.getByLabel("CloudKitty without authentication").check();
  await dialog.getByLabel("Name").fill("reference");
  await dialog.getByLabel("Mode").selectOption("managed");
  await dialog.getByLabel("CloudKitty URL").fill(ckUrl);
  await dialog.getByRole("button", { name: "Register target" }).click();
  await expectToast(page, "Target “reference” registered");
  await expect(page.getByRole("heading", { name: "reference", level: 1 })).toBeVisible();
  await expect(page.getByText(`${ckUrl} (no authentication)`)).toBeVisible();
  await expectNoAxeViolations(page);

  // Probe: reachable, CloudKitty 17 is before 23, its modules as start.sh left them.
  await page.getByRole("button", { name: "Probe", exact: true }).click();
  await expectToast(page, "Probe: reachable, API generation before 23 (2025.2)");
  const modules = page.getByRole("table", { name: "Rating modules of the target" });
  await expect(modules.getByRole("row", { name: /hashmap/ })).toContainText("enabled");
  await expectNoAxeViolations(page);

  // Seed CloudKitty with its own CLI.
  const serviceId = (await cli("hashmap", "service", "create", "volume.size"))["Service ID"]!;
  const fieldId = (await cli("hashmap", "field", "create", serviceId, "volume_type"))["Field ID"]!;
  const mappingId = (
    await cli("hashmap", "mapping", "create", "--field-id", fieldId, "--value", "ssd", "0.5")
  )["Mapping ID"]!;

  // Import into the empty Ratecard, behind a confirmation; the report says what came in.
  await openTab(page, "Import");
  await expect(page).toHaveURL(/tab=import/);
  await page.getByRole("button", { name: "Import rules" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Import the rules of reference?" });
  await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
  await confirm.getByRole("button", { name: "Import rules" }).click();
  await expectToast(page, "Rules of reference imported");
  const report = page.getByRole("region", { name: "Import report" });
  await expect(report.getByRole("heading", { name: "Duplicates in CloudKitty (0)" })).toBeVisible();
  await expect(report.getByRole("heading", { name: "Skipped (0)" })).toBeVisible();
  await expect(report.getByRole("heading", { name: "Conflicts (0)" })).toBeVisible();
  await expect(report.getByRole("definition").filter({ hasText: /^1$/ }).first()).toBeVisible();
  await expectNoAxeViolations(page);

  // The rule is in Ratecard with CloudKitty's id.
  const stored = await rest.get<{ cost: string; value: string }>(
    request,
    `${HASHMAP}/mappings/${mappingId}`,
  );
  expect(stored.value).toBe("ssd");
  await page.getByRole("link", { name: "Services" }).click();
  await expect(page.getByRole("link", { name: "volume.size", exact: true })).toBeVisible();

  // Change its price in the console.
  await page.goto(`${baseURL}/hashmap/fields/${fieldId}?tab=mappings&rule=mapping:${mappingId}`);
  const panel = page.getByRole("dialog", { name: /Edit .*mapping/ });
  await expect(panel.getByLabel("Cost")).toHaveValue(/^0\.50*$/);
  await panel.getByLabel("Cost").fill("0.75");
  await panel.getByRole("button", { name: "Save changes" }).click();
  await expect
    .poll(
      async () =>
        (await rest.get<{ cost: string }>(request, `${HASHMAP}/mappings/${mappingId}`)).cost,
    )
    .toMatch(/^0\.750*$/);

  // Importing again refuses a Ratecard that has rules; a merge changes none of them and reports
  // the price that differs as a conflict.
  await page.goto(`${baseURL}/targets`);
  await page.getByRole("link", { name: "reference", exact: true }).click();
  await openTab(page, "Import");
  await page.getByRole("button", { name: "Import rules" }).click();
  await page
    .getByRole("alertdialog", { name: "Import the rules of reference?" })
    .getByRole("button", { name: "Import rules" })
    .click();
  await expect(page.getByRole("alert").filter({ hasText: "Import failed" })).toBeVisible();
  await page.getByLabel("Merge: add what Ratecard lacks").check();
  await page.getByRole("button", { name: "Import rules" }).click();
  await page
    .getByRole("alertdialog", { name: "Merge the rules of reference?" })
    .getByRole("button", { name: "Merge rules" })
    .click();
  await expectToast(page, "Rules of reference imported");
  const merged = page.getByRole("region", { name: "Import report" });
  await expect(merged.getByRole("heading", { name: "Conflicts (1)" })).toBeVisible();
  await expect(merged.getByRole("listitem").filter({ hasText: "volume_type" })).toBeVisible();
  await expectNoAxeViolations(page);
  expect(
    (await rest.get<{ cost: string }>(request, `${HASHMAP}/mappings/${mappingId}`)).cost,
  ).toMatch(/^0\.750*$/);

  // The plan: one update under the service, cost 0.5 → 0.75.
  await page.goto(`${baseURL}/targets`);
  await expect(page.getByRole("table", { name: "CloudKitty targets" })).toContainText("reference");
  await expect(page.getByRole("table", { name: "CloudKitty targets" })).toContainText(
    "API before 23 (2025.2)",
  );
  await expectNoAxeViolations(page);
  await page.getByRole("link", { name: "reference", exact: true }).click();
  await openTab(page, "Plan and apply");
  await page.getByRole("button", { name: "Plan", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "1 change: 1 update." })).toBeVisible();
  const group = page.getByRole("table", { name: "Changes to Service volume.size" });
  const line = group.getByRole("row", { name: /volume_type\/mappings\/ssd/ });
  await expect(line).toContainText("update");
  await expect(line).toContainText("cost 0.5 → 0.75");
  await expectNoAxeViolations(page);
  // The plan is in the address: a reload shows it again from its stored run, ready to apply.
  await expect(page).toHaveURL(/plan=/);
  await page.reload();
  await expect(page.getByRole("status").filter({ hasText: "1 change: 1 update." })).toBeVisible();
  await expect(
    page
      .getByRole("table", { name: "Changes to Service volume.size" })
      .getByRole("row", { name: /volume_type\/mappings\/ssd/ }),
  ).toContainText("cost 0.5 → 0.75");

  // Another instance's apply holds the target (its lease, written into the database as that
  // instance would): the page says who applies since when, and Apply waits with that reason; once
  // the apply ends the page sees it by itself and offers Apply again.
  const writeLease = (columns: string) =>
    run("sqlite3", [
      databaseFile,
      `PRAGMA busy_timeout = 10000; UPDATE cloudkitty_targets SET ${columns} WHERE name = 'reference'`,
    ]);
  const moment = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");
  await writeLease(
    `apply_lock_token = 'e2e', apply_lock_holder = 'ratecard-2 pid 4181', ` +
      `apply_lock_actor = 'alice', apply_lock_plan_id = 'plan-elsewhere', ` +
      `apply_lock_since = '${moment(Date.now())}', apply_lock_until = '${moment(Date.now() + 600_000)}'`,
  );
  await page.reload();
  const applyButton = page.getByRole("button", { name: "Apply this plan" });
  await expect(applyButton).toBeDisabled();
  await expect(
    page
      .getByRole("note")
      .filter({ hasText: /^Applying since .+ by alice on ratecard-2 pid 4181/ }),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  await writeLease(
    "apply_lock_token = NULL, apply_lock_holder = NULL, apply_lock_actor = NULL, " +
      "apply_lock_plan_id = NULL, apply_lock_since = NULL, apply_lock_until = NULL",
  );
  await expect(applyButton).toBeEnabled({ timeout: 15_000 });
  await expect(page.getByRole("note").filter({ hasText: /^Applying since/ })).toHaveCount(0);

  // Apply, behind a confirmation that gives the counts and says it is not atomic.
  await applyButton.click();
  const applyDialog = page.getByRole("alertdialog", { name: "Apply the plan to reference?" });
  await expect(applyDialog).toContainText("1 change: 1 update.");
  await expect(applyDialog).toContainText("not atomic on CloudKitty's side");
  await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
  await applyDialog.getByRole("button", { name: "Apply to CloudKitty" }).click();
  await expectToast(page, "Plan applied to reference");
  const applied = page.getByRole("table", { name: "Operations applied" });
  await expect(applied.getByRole("row", { name: /volume_type\/mappings\/ssd/ })).toContainText(
    "done",
  );
  await expectNoAxeViolations(page);
  // CloudKitty holds the new price (read back with its own CLI), and the next plan is empty.
  expect(Number((await cli("hashmap", "mapping", "get", mappingId))["Cost"])).toBe(0.75);
  await page.getByRole("button", { name: "Plan again" }).click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: "Nothing to change: CloudKitty holds Ratecard's rules." }),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Apply this plan" })).toHaveCount(0);

  // Drift: none after the apply; a change made behind Ratecard's back with the CLI is named with
  // both values.
  await openTab(page, "Drift");
  await page.getByRole("button", { name: "Check drift" }).click();
  const driftReport = page.getByRole("region", { name: "Drift report" });
  await expect(driftReport.getByRole("status")).toHaveText("no drift");
  await cli("hashmap", "mapping", "update", "--cost", "0.9", mappingId);
  await page.getByRole("button", { name: "Check again" }).click();
  const differences = page.getByRole("table", { name: "Differences" });
  await expect(
    differences.getByRole("row", { name: /volume_type\/mappings\/ssd/ }).first(),
  ).toContainText(/cost 0\.75 → 0\.90*/);
  await expect(driftReport.getByRole("status")).toContainText("changed");
  await expectNoAxeViolations(page);

  // The run history keeps the imports (the refused one changed nothing), plans, apply and drift.
  await openTab(page, "Runs");
  const runs = page.getByRole("table", { name: "Runs of the target" });
  await expect(runs.getByRole("row", { name: /import/ })).toHaveCount(2);
  await expect(runs.getByRole("row", { name: /drift/ })).toHaveCount(2);
  await expect(runs.getByRole("row", { name: /plan/ }).first()).toBeVisible();
  await expect(runs.getByRole("row", { name: /apply/ })).toContainText("ok");
  await runs
    .getByRole("row", { name: /import/ })
    .last()
    .getByRole("button", { name: /Details/ })
    .click();
  await expect(page).toHaveURL(/run=/);
  await expect(page.getByRole("region", { name: "Run details" })).toContainText("import run");
  await expectNoAxeViolations(page);
  // The first plan, kept as a run, reads as the same diff.
  await runs
    .getByRole("row", { name: /plan/ })
    .last()
    .getByRole("button", { name: /Details/ })
    .click();
  await expect(
    page
      .getByRole("region", { name: "Run details" })
      .getByRole("table", { name: "Changes to Service volume.size" }),
  ).toContainText("cost 0.5 → 0.75");
  await page.reload();
  await expect(page.getByRole("region", { name: "Run details" })).toContainText("plan run");
  await expectNoAxeViolations(page);

  // The list: last apply (revision, time, who).
  await page.getByRole("link", { name: "CloudKitty targets" }).first().click();
  const row = page
    .getByRole("table", { name: "CloudKitty targets" })
    .getByRole("row", { name: /reference/ });
  await expect(row).toContainText(/ok, revision \d+/);
  await expect(row).toContainText(/\d+ differences?/);
  await request.dispose();
});

test("a Keystone target's secret is write-only: never shown, 'unchanged' when editing", async ({
  page,
  playwright,
}) => {
  const request: APIRequestContext = await playwright.request.newContext({ baseURL });
  const secret = "s3cret-never-shown";
  await page.goto(`${baseURL}/targets`);
  await page.getByRole("button", { name: "Register target" }).click();
  const dialog = page.getByRole("dialog", { name: "Register a CloudKitty target" });
  await dialog.getByLabel("Name").fill("keystone-east");
  await dialog.getByLabel("Behind Keystone").check();
  // Nothing listens on port 9: the probe reports it unreachable.
  await dialog.getByLabel("Keystone auth URL").fill("http://127.0.0.1:9/v3");
  await dialog.getByLabel("Region").fill("RegionOne");
  await dialog.getByLabel("Interface").selectOption("internal");
  await dialog.getByLabel("Application credential ID").fill("ac-east");
  await dialog.getByRole("button", { name: "Register target" }).click();
  await expect(dialog.getByText("Enter the application credential's secret.")).toBeVisible();
  await dialog.getByLabel("Application credential secret").fill(secret);
  await dialog.getByRole("button", { name: "Register target" }).click();
  await expectToast(page, "Target “keystone-east” registered");
  await expect(
    page.getByText(
      "Keystone http://127.0.0.1:9/v3 (RegionOne, internal), application credential ac-east",
    ),
  ).toBeVisible();
  await expect(page.getByText("stored encrypted (write-only)")).toBeVisible();

  // Editing: the secret field is empty and says the stored one is kept.
  await page.getByRole("button", { name: "Edit target" }).click();
  const edit = page.getByRole("dialog", { name: "Edit target keystone-east" });
  const secretField = edit.getByLabel("Application credential secret");
  await expect(secretField).toHaveValue("");
  await expect(secretField).toHaveAttribute("placeholder", "unchanged");
  await expect(edit.getByText("Unchanged: leave empty to keep the stored one")).toBeVisible();
  await expectNoAxeViolations(page, { include: "[role=dialog]" });
  await edit.getByLabel("Region").fill("RegionTwo");
  // Escape with a change typed asks first.
  await page.keyboard.press("Escape");
  const discard = page.getByRole("alertdialog", { name: "Discard what you typed?" });
  await expect(discard).toContainText("The changes to keystone-east have not been saved.");
  await discard.getByRole("button", { name: "Keep editing" }).click();
  await expect(edit.getByLabel("Region")).toHaveValue("RegionTwo");
  await edit.getByRole("button", { name: "Save target" }).click();
  await expectToast(page, "Target “keystone-east” saved");
  await expect(page.getByText("(RegionTwo, internal)")).toBeVisible();

  // No answer and no page carries the secret; the probe says why it failed.
  const listed = await request.get("/v1/ratecard/targets");
  expect(await listed.text()).not.toContain(secret);
  await page.getByRole("button", { name: "Probe", exact: true }).click();
  await expectToast(page, "Probe:");
  expect(await page.content()).not.toContain(secret);
  await request.dispose();
});
