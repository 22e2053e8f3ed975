import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP } from "./support/client.js";
import { isPostgres, queryDatabase } from "./support/database.js";
import { startServer, type TestServer } from "./support/server.js";

// docs/deployment.md's backup and restore, run as documented for each database: an online backup
// with the database's own tool while the server serves, then a restore into a stopped deployment.
// Each section runs on the suite's run against its own database kind (RATECARD_TEST_DATABASE;
// scripts/test.sh runs the suite on both), since the tools only work on their own database.
const onPostgres = process.env.RATECARD_TEST_DATABASE === "postgresql";

const running: TestServer[] = [];
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
});

async function start(databasePath?: string): Promise<TestServer> {
  const server = await startServer(databasePath ? { databasePath } : {});
  running.push(server);
  return server;
}

const serviceNames = async (server: TestServer) =>
  (
    (await createClient(server.baseUrl).get(`${HASHMAP}/services`)).body as {
      services: { name: string }[];
    }
  ).services
    .map((service) => service.name)
    .sort();

describe.runIf(!onPostgres)("SQLite backup and restore", () => {
  it("backs up a serving database and restores it to that moment", async () => {
    const server = await start();
    const api = createClient(server.baseUrl);
    for (const name of ["before-1", "before-2"])
      expect((await api.post(`${HASHMAP}/services`, { name })).status).toBe(201);

    const backup = path.join(path.dirname(server.databasePath), "backup.db");
    // As documented: `sqlite3 /var/lib/ratecard/ratecard.db ".backup '/backups/ratecard.db'"`
    execFileSync("sqlite3", [server.databasePath, `.backup '${backup}'`]);
    expect((await api.post(`${HASHMAP}/services`, { name: "after" })).status).toBe(201);
    expect(await serviceNames(server)).toEqual(["after", "before-1", "before-2"]);
    expect(execFileSync("sqlite3", [backup, "PRAGMA integrity_check"]).toString().trim()).toBe(
      "ok",
    );

    // Restore: stop every instance, put the copy in place without the old WAL, start.
    expect(await server.stop()).toBe(0);
    running.splice(running.indexOf(server), 1);
    for (const suffix of ["-wal", "-shm"])
      fs.rmSync(`${server.databasePath}${suffix}`, { force: true });
    fs.copyFileSync(backup, server.databasePath);
    const restored = await start(server.databasePath);
    expect(await serviceNames(restored)).toEqual(["before-1", "before-2"]);
  });
});

describe.runIf(onPostgres)("PostgreSQL backup and restore", () => {
  it("dumps a serving database and restores it to that moment, in place or into a new database", async () => {
    const server = await start();
    expect(isPostgres(server.databasePath)).toBe(true);
    const api = createClient(server.baseUrl);
    for (const name of ["before-1", "before-2"])
      expect((await api.post(`${HASHMAP}/services`, { name })).status).toBe(201);

    const dump = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-dump-")),
      "ratecard.dump",
    );
    // As documented: `pg_dump --format=custom --file=/backups/ratecard-$(date +%F).dump "$DATABASE_URL"`
    execFileSync("pg_dump", ["--format=custom", `--file=${dump}`, server.databasePath]);
    expect((await api.post(`${HASHMAP}/services`, { name: "after" })).status).toBe(201);
    expect(await serviceNames(server)).toEqual(["after", "before-1", "before-2"]);
    expect(execFileSync("pg_restore", ["--list", dump]).toString()).toContain(
      "TABLE DATA public hashmap_services",
    );

    // Restore: stop every instance, restore over the database, start.
    expect(await server.stop()).toBe(0);
    running.splice(running.indexOf(server), 1);
    const restore = (databaseUrl: string) =>
      execFileSync("pg_restore", [
        "--clean",
        "--if-exists",
        "--no-owner",
        "--single-transaction",
        `--dbname=${databaseUrl}`,
        dump,
      ]);
    restore(server.databasePath);
    const restored = await start(server.databasePath);
    expect(await serviceNames(restored)).toEqual(["before-1", "before-2"]);
    // Triggers and constraints came back with the tables: writes go on, duplicates are refused.
    expect(
      (await createClient(restored.baseUrl).post(`${HASHMAP}/services`, { name: "later" })).status,
    ).toBe(201);
    expect(
      (await createClient(restored.baseUrl).post(`${HASHMAP}/services`, { name: "later" })).status,
    ).toBe(409);

    // The same command fills a new, empty database (another cluster after a loss).
    const fresh = new URL(server.databasePath);
    fresh.pathname = `${fresh.pathname}_restored`;
    queryDatabase(
      process.env.RATECARD_TEST_POSTGRES_URL!,
      `CREATE DATABASE "${fresh.pathname.slice(1)}"`,
    );
    restore(fresh.toString());
    const moved = await start(fresh.toString());
    expect(await serviceNames(moved)).toEqual(["before-1", "before-2"]);
  });
});
