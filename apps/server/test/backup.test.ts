import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, HASHMAP } from "./support/client.js";
import { startServer, type TestServer } from "./support/server.js";

// docs/deployment.md's SQLite backup and restore, run as documented: an online backup with the
// sqlite3 shell while the server serves, then a restore into a stopped deployment.

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

describe("SQLite backup and restore", () => {
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
