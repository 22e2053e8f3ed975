import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";

// A server of this journey's own (its own port and SQLite file), stopped and started again while
// the console is open: the console shows the outage, then recovers by itself, without a reload.

const serverMain = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../server/dist/main.js",
);

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

async function startServer(port: number, database: string): Promise<ChildProcess> {
  const server = spawn(process.execPath, [serverMain], {
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
          return (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
        } catch {
          return 0;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(200);
  return server;
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await exited;
}

test("after a server restart the console recovers by itself, without a reload", async ({
  page,
  playwright,
}) => {
  test.setTimeout(120_000);
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const database = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-recovery-")), "r.db");
  let server = await startServer(port, database);
  const request = await playwright.request.newContext({ baseURL });
  try {
    const group = await rest.createGroup(request, uniqueName("recovery"));
    const service = await rest.createService(request, uniqueName("recovery"));
    const field = await rest.createField(request, service.service_id, "flavor_id");
    const value = uniqueName("m1.recovery");
    await rest.createMapping(request, { field_id: field.field_id, value, cost: "1" });
    await page.goto(`${baseURL}/hashmap/services`);
    await expect(page.getByRole("heading", { name: "Services", level: 1 })).toBeVisible();
    // Set in this document: still there at the end means the page was never reloaded.
    await page.evaluate(() => ((window as { sameDocument?: boolean }).sameDocument = true));

    await stopServer(server);
    await page.getByRole("link", { name: "Groups", exact: true }).click();
    const outage = page.getByRole("alert").filter({ hasText: "The server is not answering" });
    await expect(outage).toBeVisible({ timeout: 30_000 });
    await expect(outage).toContainText("tries again by itself");
    await expectNoAxeViolations(page);
    await expect(page.getByRole("link", { name: group.name })).toHaveCount(0);

    server = await startServer(port, database);
    // No click, no focus change, no reload: the page asks again on its own.
    await expect(page.getByRole("link", { name: group.name })).toBeVisible({ timeout: 30_000 });
    await expect(outage).toHaveCount(0);

    // The explorer, where the outage was first seen: the same, a second time.
    await stopServer(server);
    await page.getByRole("link", { name: "Rules explorer", exact: true }).click();
    await expect(outage).toBeVisible({ timeout: 30_000 });
    // The rules are unknown while the server is away, not zero.
    await expect(page.getByText(/^0 (rules|mappings|thresholds)$/)).toHaveCount(0);
    server = await startServer(port, database);
    await expect(page.getByText(value, { exact: true }).first()).toBeVisible({ timeout: 30_000 });
    await expect(outage).toHaveCount(0);
    expect(await page.evaluate(() => (window as { sameDocument?: boolean }).sameDocument)).toBe(
      true,
    );
  } finally {
    await request.dispose();
    await stopServer(server);
  }
});
