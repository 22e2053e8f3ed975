import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, HASHMAP, type Client } from "./support/client.js";
import { queryDatabase } from "./support/database.js";
import { seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// Group commit (packages/db, PreparedConnection.write) answers the creates of one event-loop turn
// after one shared COMMIT. An answer sent before its commit was durable would show here: a real
// server on SQLite is killed with SIGKILL (no shutdown, nothing flushed), restarted on the same
// file, and every create it acknowledged must be there, with its audit event. (Power loss is what
// `synchronous=FULL` adds, an fsync before the COMMIT returns; a test cannot cut the power.)

const BURST = 200;

let servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.stop();
  servers = [];
});

async function start(databasePath: string): Promise<{ server: TestServer; api: Client }> {
  const server = await startServer({ databasePath });
  servers.push(server);
  return { server, api: createClient(server.baseUrl) };
}

async function killed(server: TestServer): Promise<void> {
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill("SIGKILL");
  await exited;
}

const newDatabasePath = () =>
  path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-durability-")), "ratecard.db");

/** The values of the mappings stored under `fieldId` that have their create's audit event. */
function storedWithEvent(databasePath: string, fieldId: string): string[] {
  const rows = queryDatabase(
    databasePath,
    `SELECT m."value", (SELECT count(*) FROM "audit_events" e
        WHERE e."resource_id" = m."id" AND e."operation" = 'create')
      FROM "hashmap_mappings" m WHERE m."field_id" = '${fieldId}' ORDER BY m."value"`,
  );
  return rows
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [value, events] = line.split("|");
      // A mapping without its audit event (or with two) would be a torn group commit.
      expect(events, `audit events of mapping ${value}`).toBe("1");
      return value!;
    });
}

describe("acknowledged creates survive SIGKILL (SQLite)", () => {
  it(`all ${BURST} concurrent creates answered 201, then killed: all are there after a restart`, async () => {
    const databasePath = newDatabasePath();
    const first = await start(databasePath);
    expect(first.server.output()).toMatch(/"synchronous":"full"/);
    const { fieldId } = await seeder(first.api).parents();
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        first.api.post(`${HASHMAP}/mappings`, { field_id: fieldId, value: `v${i}`, cost: "1" }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 201));
    const acknowledged = answers.map(
      (answer) => (answer.body as { mapping_id: string }).mapping_id,
    );
    await killed(first.server);

    const second = await start(databasePath);
    const listed = await second.api.get(`${HASHMAP}/mappings`, { query: { field_id: fieldId } });
    expect(listed.status).toBe(200);
    const stored = (listed.body.mappings as { mapping_id: string }[]).map((m) => m.mapping_id);
    expect(stored.sort()).toEqual(acknowledged.sort());
    expect(storedWithEvent(databasePath, fieldId)).toHaveLength(BURST);
  });

  it("killed mid-burst: every acknowledged create is there, and none is there without its audit event", async () => {
    const databasePath = newDatabasePath();
    const first = await start(databasePath);
    const { fieldId } = await seeder(first.api).parents();
    const acknowledged: string[] = [];
    // Killed at the tenth acknowledged create, while the rest of the burst is in flight.
    let enough!: () => void;
    const kill = new Promise<void>((resolve) => (enough = resolve)).then(() =>
      killed(first.server),
    );
    const burst = Array.from({ length: BURST }, async (_, i) => {
      const answer = await first.api
        .post(`${HASHMAP}/mappings`, { field_id: fieldId, value: `k${i}`, cost: "1" })
        .catch(() => undefined); // the connection dies with the process
      if (answer?.status === 201) {
        acknowledged.push((answer.body as { value: string }).value);
        if (acknowledged.length === 10) enough();
      }
    });
    await Promise.race([kill, Promise.all(burst)]);
    await Promise.all(burst);
    expect(acknowledged.length).toBeGreaterThanOrEqual(10);
    await kill;
    expect(acknowledged.length).toBeLessThan(BURST);

    await start(databasePath);
    const stored = new Set(storedWithEvent(databasePath, fieldId));
    expect(acknowledged.filter((value) => !stored.has(value))).toEqual([]);
  });
});
